# max-score: 4
# why: a new Adam state for every step (init inside the loop): the moments and step count never carry over
def adam_steps(w1, b1, w2, b2, x, y):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt = optax.adam({{lr}})
    for _ in range(3):
        grads = jax.grad(loss)(params, (x, y))
        updates, _ = opt.update(grads, opt.init(params), params)
        params = optax.apply_updates(params, updates)
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"]
