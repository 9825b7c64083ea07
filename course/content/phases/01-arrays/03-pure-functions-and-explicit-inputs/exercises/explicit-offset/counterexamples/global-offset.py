# max-score: 3
# why: the jitted function reads a global offset, which it keeps from its first trace
OFFSET = 1.0


@jax.jit
def add_offset(v, offset):
    return v + OFFSET
