# max-score: 7
# why: the right sum without committing the weights to a named device
def weighted_sum(weights, doubled):
    return jnp.sum(weights * doubled)
