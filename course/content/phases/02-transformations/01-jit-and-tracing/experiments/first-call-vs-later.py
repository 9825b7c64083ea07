# Experiment — First call versus later calls: the first call of a jitted function traces,
# compiles and runs; later calls with the same signature only run. The timings are measured
# (they differ between machines and runs), so they are printed, never asserted.
sizes = (1_000, 100_000)
for size in sizes:
    v = jnp.linspace(-1.0, 1.0, size)
    fn = jax.jit(energy)  # a fresh function: an empty cache
    out_first, first = timed(fn, v)
    later = sorted(timed(fn, v)[1] for _ in range(5))[2]  # the median of five later calls
    print(f"n={size:>7}: first call {first * 1e3:8.3f} ms | later call (median) "
          f"{later * 1e3:8.3f} ms")
    assert jnp.allclose(out_first, energy(v), rtol=1e-5)
