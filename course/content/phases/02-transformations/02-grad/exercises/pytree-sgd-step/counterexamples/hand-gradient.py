# max-score: 4
# why: the mean squared error's gradient derived by hand (an unused jax.grad beside it): wrong for the loss drawn at grading time
def sgd_step(w, b, x, y):
    jax.grad(jnp.sum)(w)
    r = x @ w + b - y
    dw, db = 2.0 * x.T @ r / y.shape[0], 2.0 * jnp.mean(r)
    return w - {{lr}} * dw, b - {{lr}} * db
