# The global norm of a tree (Exercise): every leaf, whatever the nesting, in one sum.
def global_norm(a, b, c):
    leaves = jax.tree.leaves(build_tree(a, b, c))
    return sum(jnp.sum(jnp.abs(x) ** {{p}}) for x in leaves) ** (1.0 / {{p}})


print("global norm of the example tree:", global_norm(jnp.ones((2, 3)), jnp.arange(3.0),
                                                      jnp.array(-2.0)))
