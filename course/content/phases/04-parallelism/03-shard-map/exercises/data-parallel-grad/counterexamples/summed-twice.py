# max-score: 6
# why: pmean of the gradient of a replicated w, already summed by shard_map: 8 times too large
def data_parallel_grad(w, x, y):
    def one_device(w, x, y):
        return jax.lax.pmean(jax.grad(loss)(w, x, y) * {{scale}}, "data")

    return jax.shard_map(one_device, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                         out_specs=P())(w, x, y)
