# max-score: 8
# why: splits the other dimension than the variant asks: the other collective in its program
def partitioned_matmul(x, w):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    if {{split}} == "contracted":
        x_spec, w_spec = P("data", None), P()
    else:
        x_spec, w_spec = P(None, "data"), P("data", None)
    product = jax.jit(lambda x, w: x @ w,
                      in_shardings=(NamedSharding(mesh, x_spec), NamedSharding(mesh, w_spec)),
                      out_shardings=NamedSharding(mesh, P()))
    return product(x, w)
