# max-score: 8
# why: the layout in, but no out_shardings: the result stays split, never made whole
def partitioned_matmul(x, w):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    product = jax.jit(lambda x, w: x @ w,
                      in_shardings=(NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P())))
    return product(x, w)
