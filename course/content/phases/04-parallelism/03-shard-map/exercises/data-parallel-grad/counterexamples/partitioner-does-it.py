# max-score: 8
# why: the automatic version (jit on a sharded batch): right numbers and layout, no shard_map
def data_parallel_grad(w, x, y):
    rows = NamedSharding(mesh, P("data"))
    grad = jax.jit(jax.grad(loss), out_shardings=NamedSharding(mesh, P()))
    return grad(w, jax.device_put(x, rows), jax.device_put(y, rows)) * {{scale}}
