# Let the compiler partition a product (Exercise): fix the layouts of x, w and the result with
# jax.jit's in_shardings and out_shardings; the partitioner inserts what moves between devices.
def partitioned_matmul(x, w):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    x_spec, w_spec = P(), P()  # TODO: the layouts of x and w that split the {{split}} dimension
    raise NotImplementedError("partitioned_matmul")  # TODO: jax.jit with in/out_shardings


x_host = np.asarray(x)  # uncommitted: x itself is committed to P('data') (step 1)
print("y:", partitioned_matmul(x_host, w).sharding)
