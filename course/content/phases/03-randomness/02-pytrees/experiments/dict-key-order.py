# Experiment — a dict's leaves come in sorted key order, not in insertion order, so two dicts
# with the same keys have one structure however they were built, and their leaves line up.
one = {"w": jnp.ones(2), "b": jnp.zeros(())}
two = {"b": jnp.zeros(()), "w": jnp.ones(2)}
print("leaf shapes:", [x.shape for x in jax.tree.leaves(one)], [x.shape for x in jax.tree.leaves(two)])
assert jax.tree.structure(one) == jax.tree.structure(two)
assert [x.shape for x in jax.tree.leaves(one)] == [(), (2,)]  # b before w
