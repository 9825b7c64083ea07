# max-score: 7
# why: splits the other dimension than the variant's (the shapes are chosen to divide by 8)
def spread(x):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    spec = P("data") if {{dim}} == 1 else P(None, "data")
    return jax.device_put(x, NamedSharding(mesh, spec))
