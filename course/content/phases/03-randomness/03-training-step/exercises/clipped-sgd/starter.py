# Clip, then step (Practice): optax.chain applies its transformations in order to the gradient tree.
# The grader calls it with a loss of its own: differentiate `loss`, do not derive by hand.
def clipped_sgd_step(w1, b1, w2, b2, x, y):
    params = [{"w": w1, "b": b1}, {"w": w2, "b": b2}]
    opt = optax.sgd(0.1)  # TODO: chain clip_by_global_norm({{c}}) before sgd(0.1)
    grads = jax.grad(loss)(params, (x, y))
    updates, _ = opt.update(grads, opt.init(params), params)
    new = optax.apply_updates(params, updates)
    return new[0]["w"], new[0]["b"], new[1]["w"], new[1]["b"]


clipped = clipped_sgd_step(params[0]["w"], params[0]["b"], params[1]["w"], params[1]["b"], x, 20 * y)
print("one clipped step on far-off targets moves w1 by at most 0.1 * {{c}}:",
      float(jnp.abs(clipped[0] - params[0]["w"]).max()))
