# A tree as one vector (Practice): every leaf raveled, in jax.tree.leaves order.
# The grader calls it with trees of its own (its build_tree): do not assume the nesting.
def to_vector(a, b, c):
    leaves = [a, b, c]  # TODO: the leaves of build_tree(a, b, c), in the tree's own order
    return {{k}} * jnp.concatenate([jnp.ravel(x) for x in leaves])


vector = to_vector(jnp.ones((2, 3)), jnp.arange(3.0), jnp.array(-2.0))
print("one vector:", vector.shape, vector)
