# max-score: 8
# why: the mean of the unpadded input with the bucket size computed: every new length is a new trace
def bucketed_mean(v):
    size = -(-v.shape[0] // {{bucket}}) * {{bucket}}
    return jnp.mean(v), size
