# Experiment — what changes on many hosts, and what this machine can show: one process here
# drives all 8 devices, so every shard is addressable and a batch built from this process's
# data is the whole global batch. On many hosts each process calls jax.distributed.initialize()
# first, sees only its own devices, and contributes only its slice of the global batch.
print("processes:", jax.process_count(), "| this one:", jax.process_index(),
      "| its devices:", jax.local_device_count(), "of", jax.device_count())
local = np.asarray(x)  # on 4 hosts, each would hold 8 of the 32 examples
global_batch = jax.make_array_from_process_local_data(batch_sharding, local)
print("global batch from this process's data:", global_batch.shape, "| fully addressable:",
      global_batch.is_fully_addressable, "| same values:", bool(jnp.array_equal(global_batch, x)))
assert global_batch.is_fully_addressable and jax.process_count() == 1
