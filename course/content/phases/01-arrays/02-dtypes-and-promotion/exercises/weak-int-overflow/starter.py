# Widen before you overflow (Practice): a weak Python int keeps an int8 array int8, so the
# product wraps around; cast to int32 first when the result needs the range.
def widen_and_scale(counts):
    return counts * {{factor}}  # TODO: widen counts to int32 before the product


counts = jnp.array([1, 2, 3], dtype=jnp.int8)
scaled = counts * {{factor}}
safe = widen_and_scale(counts)
print("scaled:", scaled, scaled.dtype, "| safe:", safe, safe.dtype)
