# max-score: 7
# why: a NamedSharding on the right mesh, but P(): every device holds the whole array
def spread(x):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    return jax.device_put(x, NamedSharding(mesh, P()))
