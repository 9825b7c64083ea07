# max-score: 4
# why: the mean squared error's gradient derived by hand for the lesson's MLP (an unused jax.grad beside it): wrong for the loss drawn at grading time
def adam_steps(w1, b1, w2, b2, x, y):
    jax.grad(jnp.sum)(w1)
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt = optax.adam({{lr}})
    state = opt.init(params)
    for _ in range(3):
        (a, c), (e, f) = (params[0]["w"], params[0]["b"]), (params[1]["w"], params[1]["b"])
        h = jnp.tanh(x @ a + c)
        r = 2.0 * (h @ e + f - y) / y.size
        dh = (r @ e.T) * (1.0 - h ** 2)
        grads = [{"w": x.T @ dh, "b": dh.sum(0)}, {"w": h.T @ r, "b": r.sum(0)}]
        updates, state = opt.update(grads, state, params)
        params = optax.apply_updates(params, updates)
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"]
