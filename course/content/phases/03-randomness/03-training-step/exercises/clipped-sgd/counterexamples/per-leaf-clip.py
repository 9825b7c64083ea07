# max-score: 6
# why: each gradient value clipped to [-c, c] on its own (optax.clip), not the tree by its global norm
def clipped_sgd_step(w1, b1, w2, b2, x, y):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt = optax.chain(optax.clip({{c}}), optax.sgd(0.1))
    grads = jax.grad(loss)(params, (x, y))
    updates, _ = opt.update(grads, opt.init(params), params)
    new = optax.apply_updates(params, updates)
    return new[0]["w"], new[0]["b"], new[1]["w"], new[1]["b"]
