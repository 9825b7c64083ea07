# max-score: 8
# why: the batch split but the parameters replicated: data parallel, not model parallel
def model_parallel_step(w1, w2, x, y):
    whole = {"w1": NamedSharding(mesh, P()), "w2": NamedSharding(mesh, P())}
    rows = NamedSharding(mesh, P("data", None))
    step = jax.jit(lambda p, x, y: sgd_step(p, x, y, lr={{lr}}), in_shardings=(whole, rows, rows),
                   out_shardings=(whole, NamedSharding(mesh, P())))
    new, value = step({"w1": w1, "w2": w2}, x, y)
    return new["w1"], new["w2"], value
