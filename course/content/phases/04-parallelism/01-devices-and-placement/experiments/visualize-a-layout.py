# Experiment — see a layout: jax.debug.visualize_array_sharding draws which device holds which
# block of a 2-D array, here on a 1-D mesh and on a 2-D mesh of 4 x 2 devices.
jax.debug.visualize_array_sharding(rows)
grid = Mesh(np.array(devices).reshape(4, 2), ("data", "model"))
blocks = jax.device_put(table, NamedSharding(grid, P("data", "model")))
jax.debug.visualize_array_sharding(blocks)
print("P('data', 'model') on a 4 x 2 mesh: shard shape", blocks.sharding.shard_shape(table.shape),
      "| device 3 holds", blocks.addressable_shards[3].data.tolist())
assert blocks.sharding.shard_shape(table.shape) == (2, 2)
assert [s.device.id for s in blocks.addressable_shards] == list(range(8))
