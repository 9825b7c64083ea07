# max-score: 8
# why: Python loops over both point sets, where vmap of vmap is taught: the program grows with n and m
def pairwise(a, b):
    return jnp.stack([jnp.stack([distance(ai, bj) ** {{p}} for bj in b]) for ai in a])
