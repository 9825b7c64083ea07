# The global norm of a tree (Exercise): every leaf, whatever the nesting, in one sum.
# The grader calls it with trees of its own (its build_tree): do not assume the nesting.
def global_norm(a, b, c):
    leaves = []  # TODO: the leaves of build_tree(a, b, c), with jax.tree.leaves
    return sum(jnp.sum(jnp.abs(x) ** {{p}}) for x in leaves) ** (1.0 / {{p}})


print("global norm of the example tree:", global_norm(jnp.ones((2, 3)), jnp.arange(3.0),
                                                      jnp.array(-2.0)))
