# max-score: 8
# why: a compliant decoy def, then the name rebound to a loop: the grader judges what it calls
def scores(w, xs):
    return jax.vmap(lambda x: jnp.tanh({{k}} * jnp.dot(w, x)))(xs)


def _loop(w, xs):
    return jnp.stack([jnp.tanh({{k}} * jnp.dot(w, x)) for x in xs])


scores = _loop
