# max-score: 4
# why: the sum written for the lesson's tree (a, b and c once each): wrong for the grader's trees
def global_norm(a, b, c):
    jax.tree.leaves(build_tree(a, b, c))
    return sum(jnp.sum(jnp.abs(x) ** {{p}}) for x in (a, b, c)) ** (1.0 / {{p}})
