# max-score: 4
# why: widening the product after it wrapped around in int8 keeps the wrapped values
def widen_and_scale(counts):
    return (counts * {{factor}}).astype(jnp.int32)
