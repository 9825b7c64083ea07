# A vector back into a tree (Challenge): flatten the tree for its leaves' shapes, cut the vector
# into pieces of those sizes, and unflatten them into a tree of the same structure.
def from_vector(v, a, b, c):
    leaves, treedef = jax.tree.flatten(build_tree(a, b, c))
    pieces, start = [], 0
    for leaf in leaves:
        pieces.append(v[start:start + leaf.size].reshape(leaf.shape))
        start += leaf.size
    rebuilt = jax.tree.unflatten(treedef, pieces)
    return tuple(jax.tree.leaves(jax.tree.map(lambda x: {{k}} * x, rebuilt)))


back = from_vector(jnp.arange(20.0), jnp.ones((2, 3)), jnp.arange(3.0), jnp.array(-2.0))
print("pieces:", [x.shape for x in back])
