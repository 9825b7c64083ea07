# max-score: 9
# why: masked_mean called on the unpadded input (jnp.pad called on the side): one compilation per length, not per bucket
def bucketed_mean(v):
    size = -(-v.shape[0] // {{bucket}}) * {{bucket}}
    jnp.pad(v, (0, 1))
    return masked_mean(v, v.shape[0]), size
