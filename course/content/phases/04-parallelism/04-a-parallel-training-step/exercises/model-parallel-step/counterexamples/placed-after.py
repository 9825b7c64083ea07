# max-score: 9
# why: steps on one device, then places the results in the asked layout: no collective ran
def model_parallel_step(w1, w2, x, y):
    new, value = jax.jit(lambda p, x, y: sgd_step(p, x, y, lr={{lr}}))({"w1": w1, "w2": w2}, x, y)
    return (jax.device_put(new["w1"], NamedSharding(mesh, P(None, "model"))),
            jax.device_put(new["w2"], NamedSharding(mesh, P("model", None))), value)
