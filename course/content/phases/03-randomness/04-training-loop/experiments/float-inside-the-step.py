# Experiment — a metric converted with float() inside the jitted step breaks it: under jit the
# loss is a tracer with no value yet. Return it as an array and convert outside, when you log.
@jax.jit
def logging_step(params, x, y):
    value = loss(params, x, y)
    print("loss", float(value))  # a tracer has no value to print
    return value


try:
    logging_step(params, train_x[:BATCH], train_y[:BATCH])
    raise AssertionError("float() of a tracer should fail")
except jax.errors.ConcretizationTypeError:
    print("float() inside jit: ConcretizationTypeError")
value = jax.jit(loss)(params, train_x[:BATCH], train_y[:BATCH])
print("returned as an array and converted outside:", round(float(value), 4))
