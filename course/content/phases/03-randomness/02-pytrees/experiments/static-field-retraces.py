# Experiment — a registered dataclass's static field is part of the tree's structure, not a
# leaf: jit keys its cache on it, so a new value retraces, and a new array value does not.
traces = []


@jax.jit
def scaled(layer):
    traces.append(layer.name)  # runs only while tracing
    return jax.tree.map(lambda x: 3 * x, layer)


scaled(Layer(jnp.ones(2), jnp.zeros(())))
scaled(Layer(5.0 * jnp.ones(2), jnp.ones(())))  # new leaves, same structure: no trace
scaled(Layer(jnp.ones(2), jnp.zeros(()), name="head"))  # new static field: a new trace
print("traces:", traces)
assert traces == ["dense", "head"]
