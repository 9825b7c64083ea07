# Widen before you overflow (Practice): a weak Python int keeps an int8 array int8, so the
# product wraps around; cast to int32 first when the result needs the range.
def widen_and_scale(counts):
    return counts.astype(jnp.int32) * {{factor}}


counts = jnp.array([1, 2, 3], dtype=jnp.int8)
scaled = counts * {{factor}}
safe = widen_and_scale(counts)
print("scaled:", scaled, scaled.dtype, "| safe:", safe, safe.dtype)
assert scaled.dtype == jnp.int8 and safe.dtype == jnp.int32
