# Let the compiler partition a product (Exercise): fix the layouts of x, w and the result with
# jax.jit's in_shardings and out_shardings; the partitioner inserts what moves between devices.
def partitioned_matmul(x, w):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    if {{split}} == "contracted":
        x_spec, w_spec = P(None, "data"), P("data", None)  # each device: k/8 of the sum
    else:
        x_spec, w_spec = P("data", None), P()  # each device: m/8 rows of y
    product = jax.jit(lambda x, w: x @ w,
                      in_shardings=(NamedSharding(mesh, x_spec), NamedSharding(mesh, w_spec)),
                      out_shardings=NamedSharding(mesh, P()))
    return product(x, w)


x_host = np.asarray(x)  # uncommitted: x itself is committed to P('data') (step 1)
print("y:", partitioned_matmul(x_host, w).sharding)
print(collectives(partitioned_matmul, x_host, w))
