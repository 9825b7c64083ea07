# max-score: 8
# why: an unused jax.vmap beside a Python loop: the rule reads what the program does, not a name
def scores(w, xs):
    jax.vmap(jnp.sin)(xs)
    return jnp.stack([jnp.tanh({{k}} * jnp.dot(w, x)) for x in xs])
