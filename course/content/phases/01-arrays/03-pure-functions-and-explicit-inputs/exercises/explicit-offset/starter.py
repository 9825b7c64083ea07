# Make the offset an input (Exercise): a jitted function that reads a global offset keeps the
# value it saw when traced; as an argument, every call uses the value it is given.
@jax.jit
def add_offset(v, offset):
    return v  # TODO: add the offset argument (not a global)


shifted_a = add_offset(x, 1.0)
shifted_b = add_offset(x, 5.0)
print("shifted_a:", shifted_a, "| shifted_b:", shifted_b)
