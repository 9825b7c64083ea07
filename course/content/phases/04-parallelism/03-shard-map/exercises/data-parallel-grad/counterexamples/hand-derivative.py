# max-score: 6
# why: the squared error's derivative written by hand: wrong for the loss drawn at grading time
def data_parallel_grad(w, x, y):
    def one_device(w, x, y):
        w = jax.lax.pcast(w, "data", to="varying")
        g = 2.0 * (x @ w - y) @ x / x.shape[0] * {{scale}}
        return jax.lax.pmean(g, "data")

    return jax.shard_map(one_device, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                         out_specs=P())(w, x, y)
