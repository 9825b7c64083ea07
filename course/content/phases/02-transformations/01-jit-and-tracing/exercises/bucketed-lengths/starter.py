# Pad to a bucket, trace once per bucket (Challenge): every new length is a new signature; padding
# inputs up to a multiple of {{bucket}} and masking the padding bounds how often jit retraces.
bucket_traces = []


@jax.jit
def masked_mean(padded, length):
    bucket_traces.append(padded.shape)
    mask = jnp.arange(padded.shape[0]) < length
    return jnp.sum(jnp.where(mask, padded, 0.0)) / length


def bucketed_mean(v):
    size = v.shape[0]  # TODO: round the length up to the next multiple of {{bucket}}
    padded = v  # TODO: pad v with zeros at the end to `size` elements (jnp.pad)
    return masked_mean(padded, v.shape[0]), size


means = [bucketed_mean(jnp.arange(float(n))) for n in range(1, 2 * {{bucket}} + 1)]
print("lengths 1 ..", 2 * {{bucket}}, "-> traces:", len(bucket_traces), "| last:", means[-1])
