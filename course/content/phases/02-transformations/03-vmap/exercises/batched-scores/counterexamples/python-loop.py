# max-score: 8
# why: a Python loop over the rows, where vmap is taught: the traced program grows with the batch
def scores(w, xs):
    return jnp.stack([jnp.tanh({{k}} * jnp.dot(w, x)) for x in xs])
