# Make the length static (Exercise): n decides the slice's shape, so under jit it must be a
# concrete Python int: declare it static, and jit compiles once per value of n.
@jax.jit  # TODO: declare n static (functools.partial(jax.jit, static_argnames=...))
def head_power_sum(v, n):
    return jnp.sum(v)  # TODO: sum only the first n elements, each raised to the power {{p}}


head_2 = head_power_sum(x, 2)
head_4 = head_power_sum(x, n=4)
print("head_2:", head_2, "| head_4:", head_4)
