# All pairs with vmap of vmap (Practice): the inner vmap compares one a[i] with every b[j], the
# outer one does that for every a[i]; in_axes=None keeps the other argument whole.
def pairwise(a, b):
    def one(ai, bj):
        return distance(ai, bj) ** {{p}}

    row = one  # TODO: vmap one over b's rows, a[i] shared
    return jnp.zeros((a.shape[0], b.shape[0]))  # TODO: vmap row over a's rows, b shared


table = pairwise(points, origins[:2])
print("pairwise table:", table.shape)
print(table)
