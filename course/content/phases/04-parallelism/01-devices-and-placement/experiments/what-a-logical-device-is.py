# Experiment — what a logical CPU device is: eight devices of one process on the same cores.
# Every shard is addressable from this process, and splitting the work over them does not add
# cores: the CPU time of a sum over 8 shards is not 8 times smaller.
import time

print("cores this process may use:", len(os.sched_getaffinity(0)), "| logical devices:",
      jax.device_count(), "| all shards addressable here:",
      len(rows.addressable_shards) == jax.device_count())
big = jnp.ones((8, 1_000_000))
spread_out = jax.device_put(big, NamedSharding(mesh, P("data")))
total = jax.jit(jnp.sum)
for a in (big, spread_out):
    total(a).block_until_ready()  # compile first
cpu = []
for a in (big, spread_out):
    start = time.process_time()
    for _ in range(5):
        total(a).block_until_ready()
    cpu.append(time.process_time() - start)
print(f"CPU seconds, one device: {cpu[0]:.4f} | eight logical devices: {cpu[1]:.4f}")
assert float(total(big)) == float(total(spread_out)) == 8_000_000.0
assert all(d.platform == "cpu" for d in devices) and jax.process_index() == 0
