# max-score: 8
# why: computes on one device, then copies the result everywhere: replicated, but no collective
def partitioned_matmul(x, w):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    return jax.device_put(x @ w, NamedSharding(mesh, P()))
