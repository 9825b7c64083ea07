# Average gradients by hand (Exercise): each device differentiates the loss on its own block of
# the batch, then a collective averages the 8 gradients. The grader rebinds `loss` to a loss of
# its own: differentiate whatever `loss` is with jax.grad, never a formula of yours.
def data_parallel_grad(w, x, y):
    def one_device(w, x, y):
        w = jax.lax.pcast(w, "data", to="varying")
        g = jax.grad(loss)(w, x, y) * {{scale}}
        return jax.lax.pmean(g, "data")

    return jax.shard_map(one_device, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                         out_specs=P())(w, x, y)


print("gradient:", data_parallel_grad(w, xs, ys))
assert bool(jnp.allclose(data_parallel_grad(w, xs, ys), {{scale}} * whole, rtol=1e-5, atol=1e-6))
