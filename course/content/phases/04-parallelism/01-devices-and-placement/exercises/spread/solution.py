# Spread an array over the devices (Exercise): a 1-D mesh of all 8 devices named "data", and a
# NamedSharding that splits dimension {{dim}} over it; the values must not change.
def spread(x):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    spec = P(*([None] * {{dim}}), "data")
    return jax.device_put(x, NamedSharding(mesh, spec))


spread_out = spread(jnp.ones((8, 16)))
print("spread:", spread_out.sharding.shard_shape(spread_out.shape))
assert len(spread_out.sharding.device_set) == 8
