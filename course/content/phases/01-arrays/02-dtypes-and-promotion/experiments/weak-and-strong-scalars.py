# Experiment — Find out what makes a scalar weak: weakness belongs to the value, not to the
# Python spelling. Python numbers and jnp.asarray(1.0) are weak; NumPy and jnp.float32 scalars
# are strong and take part in promotion.
candidates = {
    "1.0 (Python float)": 1.0,
    "2 (Python int)": 2,
    "jnp.asarray(1.0)": jnp.asarray(1.0),
    "np.float32(1)": np.float32(1),
    "jnp.float32(1)": jnp.float32(1),
}
results = {}
for label, scalar in candidates.items():
    _, weak = jax.dtypes.result_type(scalar, return_weak_type_flag=True)
    results[label] = (half + scalar).dtype
    print(f"float16 array + {label:20s} -> {results[label]}  (scalar weak: {weak})")
assert results["1.0 (Python float)"] == results["2 (Python int)"] == jnp.float16
assert results["jnp.asarray(1.0)"] == jnp.float16
assert results["np.float32(1)"] == results["jnp.float32(1)"] == jnp.float32
