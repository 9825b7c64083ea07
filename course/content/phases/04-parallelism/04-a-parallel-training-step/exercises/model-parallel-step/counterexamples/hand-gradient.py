# max-score: 6
# why: the tanh-and-squared-error gradient derived by hand: wrong for the loss drawn at grading
def model_parallel_step(w1, w2, x, y):
    h = jnp.tanh(x @ w1)
    r = 2.0 * (h @ w2 - y) / y.size
    g2, g1 = h.T @ r, x.T @ ((r @ w2.T) * (1 - h ** 2))
    value = jnp.mean((h @ w2 - y) ** 2)
    return (jax.device_put(w1 - {{lr}} * g1, NamedSharding(mesh, P(None, "model"))),
            jax.device_put(w2 - {{lr}} * g2, NamedSharding(mesh, P("model", None))), value)
