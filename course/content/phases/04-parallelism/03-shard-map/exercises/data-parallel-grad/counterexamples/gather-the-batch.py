# max-score: 9
# why: a shard_map that all_gathers the whole batch onto every device and differentiates it there
def data_parallel_grad(w, x, y):
    def one_device(w, x, y):
        x = jax.lax.all_gather(x, "data", tiled=True)
        y = jax.lax.all_gather(y, "data", tiled=True)
        g = jax.grad(loss)(jax.lax.pcast(w, "data", to="varying"), x, y) * {{scale}}
        return jax.lax.pmean(g, "data")

    return jax.shard_map(one_device, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                         out_specs=P())(w, x, y)
