# max-score: 7
# why: jax.grad of the whole batch on one device: the right numbers, no device does any part
def data_parallel_grad(w, x, y):
    return jax.grad(loss)(w, x, y) * {{scale}}
