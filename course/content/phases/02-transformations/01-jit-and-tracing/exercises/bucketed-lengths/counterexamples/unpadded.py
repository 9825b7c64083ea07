# max-score: 8
# why: masked_mean (as given) called on the unpadded input, jnp.pad called on the side (its result unused): one compilation per length, not per bucket
bucket_traces = []


@jax.jit
def masked_mean(padded, length):
    bucket_traces.append(padded.shape)
    mask = jnp.arange(padded.shape[0]) < length
    return jnp.sum(jnp.where(mask, padded, 0.0)) / length


def bucketed_mean(v):
    size = -(-v.shape[0] // {{bucket}}) * {{bucket}}
    jnp.pad(v, (0, 1))
    return masked_mean(v, v.shape[0]), size
