# Make the offset an input (Exercise): a jitted function that reads a global offset keeps the
# value it saw when traced; as an argument, every call uses the value it is given.
@jax.jit
def add_offset(v, offset):
    return ...  # TODO: add offset to v (use the argument, not a global)


shifted_a = add_offset(x, 1.0)  # TODO: runs once add_offset returns an array
shifted_b = add_offset(x, 5.0)
assert jnp.array_equal(shifted_a, jnp.array([2.0, 3.0, 4.0]))  # TODO: complete assertion check
assert jnp.array_equal(shifted_b, jnp.array([6.0, 7.0, 8.0]))  # TODO: complete assertion check
