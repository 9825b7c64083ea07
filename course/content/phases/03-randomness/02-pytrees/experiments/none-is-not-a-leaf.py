# Experiment — None is a node with no children, not a leaf: a tree with None where another has
# an array has a different structure, and mapping over both fails. Optimizer states use an
# empty tuple or None for "nothing here" in both trees alike.
with_none = {"w": jnp.ones(2), "v": None}
with_array = {"w": jnp.ones(2), "v": jnp.zeros(2)}
print("structures:", jax.tree.structure(with_none), jax.tree.structure(with_array))
assert jax.tree.structure(with_none) != jax.tree.structure(with_array)
try:
    jax.tree.map(lambda a, b: a + b, with_none, with_array)
    raise AssertionError("different structures should fail")
except ValueError:
    print("tree.map over them: ValueError")
assert jax.tree.map(lambda a, b: a + b, with_none, with_none)["v"] is None
