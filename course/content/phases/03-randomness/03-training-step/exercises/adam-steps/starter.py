# Three Adam steps (Exercise): one optimizer state, created once and carried from step to step.
# The grader calls it with a loss of its own: differentiate `loss`, do not derive by hand.
def adam_steps(w1, b1, w2, b2, x, y):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt = optax.adam({{lr}})
    state = opt.init(params)
    for _ in range(3):
        grads = jax.grad(loss)(params, (x, y))
        updates = jax.tree.map(jnp.zeros_like, grads)  # TODO: opt.update(grads, state, params), keep its new state
        params = params  # TODO: optax.apply_updates(params, updates)
    return params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"]


stepped = adam_steps(params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], x, y)
print("loss after 3 adam steps:", loss([{"w": stepped[0], "b": stepped[1]},
                                        {"w": stepped[2], "b": stepped[3]}], batch))
