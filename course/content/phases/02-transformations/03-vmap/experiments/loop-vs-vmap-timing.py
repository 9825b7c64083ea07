# Experiment — Time a Python loop against vmap: the loop dispatches one small program per
# example, vmap one program for the batch. The timings are measured (they differ between
# machines and runs), so they are printed, never asserted; only the results are.
for size in (16, 128):
    xb = jnp.sin(jnp.arange(size * 8.0)).reshape(size, 8)
    yb = jnp.cos(jnp.arange(float(size)))
    assert jnp.allclose(with_loop(w8, xb, yb), with_vmap(w8, xb, yb), rtol=1e-5, atol=1e-6)
    loop_s, vmap_s = timed(with_loop, w8, xb, yb), timed(with_vmap, w8, xb, yb)
    print(f"{size:>4} examples: loop {loop_s * 1e3:8.3f} ms | vmap {vmap_s * 1e3:8.3f} ms "
          f"(median of 5)")
