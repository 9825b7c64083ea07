# max-score: 8
# why: the right int32 values from a product computed in float32 (exact only below 2**24), not the int32 product the lesson widens to
def widen_and_scale(counts):
    return (counts.astype(jnp.float32) * {{factor}}).astype(jnp.int32)
