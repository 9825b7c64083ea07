# Experiment — Choose the out-of-bounds policy with mode=: clip, drop or fill.
# Reads (get): "clip" clamps to the edge; "fill" returns fill_value (NaN for floats by default).
assert float(x.at[10].get(mode="clip")) == 4.
assert float(x.at[10].get(mode="fill", fill_value=-1.)) == -1.
assert bool(jnp.isnan(x.at[10].get(mode="fill")))
# Updates (set/add): "clip" writes to the clamped index; "drop" ignores the update.
clipped = x.at[10].set(99., mode="clip")
dropped = x.at[10].set(99., mode="drop")
assert jnp.array_equal(clipped, jnp.array([1., 2., 3., 99.]))
assert jnp.array_equal(dropped, x)
# In-bounds indices behave the same under every mode.
for mode in ("clip", "drop", "fill"):
    assert float(x.at[2].get(mode=mode)) == 3.
print("clip set:", clipped, "| drop set:", dropped)
