# max-score: 7
# why: the right loop, but fit_step is never compiled with jax.jit (a jitted function of another name beside it)
fit_opt = optax.sgd({{lr}})
unused = jax.jit(lambda v: v)


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
