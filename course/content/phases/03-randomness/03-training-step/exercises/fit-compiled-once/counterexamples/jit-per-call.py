# max-score: 7
# why: a new jax.jit of a lambda on every step (module-level fit_step jitted but never called): it compiles on every step
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
        step = jax.jit(lambda p, s, b: fit_step.__wrapped__(p, s, b))
        params, opt_state, value = step(params, opt_state, (x, y))
        losses.append(value)
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], jnp.stack(losses)
