# Spread an array over the devices (Exercise): a 1-D mesh of all 8 devices named "data", and a
# NamedSharding that splits dimension {{dim}} over it; the values must not change.
def spread(x):
    mesh = Mesh(np.array(jax.devices()), ("data",))
    raise NotImplementedError("spread")  # TODO: device_put x, dimension {{dim}} split on 'data'


spread_out = spread(jnp.ones((8, 16)))
print("spread:", spread_out.sharding.shard_shape(spread_out.shape))
