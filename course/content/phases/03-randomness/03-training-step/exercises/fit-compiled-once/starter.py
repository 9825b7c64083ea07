# A loop around one compiled step (Challenge): fit_step is jitted once, at module level, and
# the loop only calls it; the loss stays an array until the loop is done.
fit_opt = optax.sgd({{lr}})


def fit_step(params, opt_state, batch):  # TODO: compile it with jax.jit (once, here)
    value, grads = jax.value_and_grad(loss)(params, batch)
    updates, opt_state = fit_opt.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value


def fit(w1, b1, w2, b2, x, y, steps):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt_state = fit_opt.init(params)
    losses = jnp.zeros(steps)  # TODO: call fit_step `steps` times, rebinding params and
    # opt_state, and stack every step's loss
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], losses


*_, fit_losses = fit(params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], x, y, 20)
print("fit, 20 steps:", fit_losses[0], "->", fit_losses[-1])
