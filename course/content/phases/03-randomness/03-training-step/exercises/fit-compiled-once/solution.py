# A loop around one compiled step (Challenge): fit_step is jitted once, at module level, and
# the loop only calls it; the loss stays an array until the loop is done.
fit_opt = optax.sgd({{lr}})


@jax.jit
def fit_step(params, opt_state, batch):
    value, grads = jax.value_and_grad(loss)(params, batch)
    updates, opt_state = fit_opt.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value


def fit(w1, b1, w2, b2, x, y, steps):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt_state = fit_opt.init(params)
    losses = []
    for _ in range(steps):
        params, opt_state, value = fit_step(params, opt_state, (x, y))
        losses.append(value)
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], jnp.stack(losses)


*_, fit_losses = fit(params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], x, y, 20)
print("fit, 20 steps:", fit_losses[0], "->", fit_losses[-1], "| compiled", fit_step._cache_size())
