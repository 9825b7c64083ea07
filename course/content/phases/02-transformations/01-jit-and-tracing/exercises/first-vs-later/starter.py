# Time the first call and a later one (Practice): the first call of a fresh jitted function
# traces, compiles and runs; the second only runs. Block before you stop each clock.
def first_and_later(v):
    fn = jax.jit(lambda a: jnp.sum(jnp.tanh(a) * {{k}}))  # fresh: nothing cached yet
    out = jnp.float32(0.0)  # TODO: fn(v), blocked until ready, timed with time.perf_counter
    first = 0.0  # TODO: the seconds that first call took
    later = 0.0  # TODO: time a second call the same way
    return out, first, later


value, first_s, later_s = first_and_later(big)
print(f"value: {float(value):.4f} | first call {first_s * 1e3:.2f} ms | later call "
      f"{later_s * 1e3:.3f} ms")
