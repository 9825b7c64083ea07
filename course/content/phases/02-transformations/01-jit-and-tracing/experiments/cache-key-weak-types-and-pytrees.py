# Experiment — jit's cache key is more than shapes and dtypes. A Python float is traced as a
# weakly typed float32 (~float32[]), a different key from a float32 array; a tuple and a list
# holding the same arrays are different pytree structures, so different keys too.
keys = []


@jax.jit
def scaled(s):
    keys.append(str(jax.typeof(s)))  # once per trace: the abstract value with its weak type
    return s * 2


scaled(1.0)  # a Python float: weakly typed
scaled(2.0)  # another value, same key
scaled(jnp.float32(1.0))  # a float32 array: same shape and dtype, not weak: a new key
print("traces for 1.0, 2.0, jnp.float32(1.0):", keys)
assert keys == ["~float32[]", "float32[]"]

structures = []


@jax.jit
def total(pair):
    structures.append(type(pair).__name__)  # once per trace: the pytree's container
    return pair[0] + pair[1]


a, b = jnp.ones(3), jnp.zeros(3)
total((a, b))
total((b, a))  # same structure and avals: cached
total([a, b])  # the same leaves in a list: another pytree structure, another trace
print("traces for (a, b), (b, a), [a, b]:", structures,
      "| structures differ:", jax.tree.structure((a, b)) != jax.tree.structure([a, b]))
assert structures == ["tuple", "list"]
