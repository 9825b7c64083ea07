# max-score: 4
# why: a compact boolean selection: its length depends on the values (wrong shape, fails under jit)
def keep_above(x):
    return x[x > {{threshold}}]
