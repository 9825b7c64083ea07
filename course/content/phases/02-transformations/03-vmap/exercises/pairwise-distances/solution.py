# All pairs with vmap of vmap (Practice): the inner vmap compares one a[i] with every b[j], the
# outer one does that for every a[i]; in_axes=None keeps the other argument whole.
def pairwise(a, b):
    def one(ai, bj):
        return distance(ai, bj) ** {{p}}

    row = jax.vmap(one, in_axes=(None, 0))  # a[i] against every b[j]: shape (m,)
    return jax.vmap(row, in_axes=(0, None))(a, b)  # every a[i]: shape (n, m)


table = pairwise(points, origins[:2])
print("pairwise table:", table.shape)
print(table)
assert table.shape == (3, 2)
