# One gradient step on a pytree (Challenge): the gradient of a dict of parameters is a dict of
# the same shape, so one jax.tree.map applies the update to every leaf.
def sgd_step(w, b, x, y):
    params = {"w": w, "b": b}
    grads = jax.grad(loss_fn)(params, x, y)
    new = jax.tree.map(lambda p, g: p - {{lr}} * g, params, grads)
    return new["w"], new["b"]


stepped_w, stepped_b = sgd_step(params["w"], params["b"], x, y)
print("after one step: w", stepped_w, "| b", stepped_b)
assert loss_fn({"w": stepped_w, "b": stepped_b}, x, y) < loss_fn(params, x, y)
