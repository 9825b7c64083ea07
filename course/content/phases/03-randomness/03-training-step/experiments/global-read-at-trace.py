# Experiment — a step that reads a global is not a pure function, and jit shows it: the global's
# value is read once, while tracing, and baked into the compiled program. Changing it later
# changes nothing until something forces a new trace. Pass it as an argument instead.
learning_rate = 0.1


@jax.jit
def impure_step(params, batch):
    grads = jax.grad(loss)(params, batch)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads)


first = impure_step(params, batch)
learning_rate = 0.0  # should freeze the parameters ...
second = impure_step(params, batch)
print("after setting the global to 0, the compiled step still moves w:",
      bool(jnp.array_equal(first[0]["w"], second[0]["w"])))
assert jnp.array_equal(first[0]["w"], second[0]["w"])  # ... but 0.1 is baked in
