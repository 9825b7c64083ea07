# max-score: 8
# why: an unused jax.vmap beside Python loops: the rule reads the traced program, not a name
def pairwise(a, b):
    jax.vmap(jnp.sin)(a)
    return jnp.stack([jnp.stack([distance(ai, bj) ** {{p}} for bj in b]) for ai in a])
