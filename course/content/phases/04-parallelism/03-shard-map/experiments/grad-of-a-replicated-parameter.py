# Experiment — the gradient of a replicated parameter inside shard_map is already summed: w
# comes in with P() (the same on every device), and the transpose of using it on every device
# is a psum. Averaging again with pmean then gives 8 times the batch's gradient.
def summed_already(w, x, y):
    return jax.lax.pmean(jax.grad(loss)(w, x, y), "data")  # w not made varying


twice = jax.jit(jax.shard_map(summed_already, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                              out_specs=P()))(w, xs, ys)
print("pmean of grad w.r.t. a replicated w:", twice, "| ratio to the batch gradient:",
      np.round(np.asarray(twice / whole), 4))
assert bool(jnp.allclose(twice, 8 * whole, rtol=1e-5))
