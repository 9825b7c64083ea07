# max-score: 7
# why: a plain Python function (the grader used to jit it for the learner, static argument included)
def head_power_sum(v, n):
    return jnp.sum(v[:n] ** {{p}})
