# max-score: 8
# why: lax.map runs one example after another (a scan), not one batched operation
def scores(w, xs):
    return jax.lax.map(lambda x: jnp.tanh({{k}} * jnp.dot(w, x)), xs)
