# max-score: 7
# why: the single-device step: the right numbers, nothing split, no collective
def model_parallel_step(w1, w2, x, y):
    new, value = jax.jit(lambda p, x, y: sgd_step(p, x, y, lr={{lr}}))({"w1": w1, "w2": w2}, x, y)
    return new["w1"], new["w2"], value
