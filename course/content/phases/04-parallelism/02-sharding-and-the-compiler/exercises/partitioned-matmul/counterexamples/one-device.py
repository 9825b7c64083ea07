# max-score: 7
# why: computes x @ w on one device: the right numbers, nothing partitioned
def partitioned_matmul(x, w):
    return x @ w
