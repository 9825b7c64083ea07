# One gradient step on a pytree (Challenge): the gradient of a dict of parameters is a dict of
# the same shape, so one jax.tree.map applies the update to every leaf.
# The grader calls it with a loss_fn of its own: differentiate loss_fn, do not derive by hand.
def sgd_step(w, b, x, y):
    params = {"w": w, "b": b}
    grads = params  # TODO: the gradient of loss_fn (step 3) with respect to params
    new = params  # TODO: p - {{lr}} * g for every leaf, with jax.tree.map
    return new["w"], new["b"]


stepped_w, stepped_b = sgd_step(params["w"], params["b"], x, y)
print("after one step: w", stepped_w, "| b", stepped_b)
