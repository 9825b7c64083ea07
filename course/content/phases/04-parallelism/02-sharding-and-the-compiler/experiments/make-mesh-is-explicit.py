# Experiment — jax.make_mesh makes Explicit axes in this JAX: the layout is part of the type,
# and an operation whose output layout is ambiguous is refused instead of left to the
# partitioner. Mesh(...) as in this lesson makes Auto axes, which the compiler decides.
explicit = jax.make_mesh((8,), ("data",))
print("jax.make_mesh axis types:", explicit.axis_types, "| Mesh(...):", mesh.axis_types)
xe = jax.device_put(np.asarray(x), NamedSharding(explicit, P(None, "data")))
we = jax.device_put(np.asarray(w), NamedSharding(explicit, P("data", None)))
try:
    jax.jit(lambda x, w: x @ w)(xe, we)
    refused = ""
except Exception as err:  # noqa: BLE001 - its type is the point
    refused = type(err).__name__
print("explicit axes, contraction split, no out_sharding:", refused)
auto = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
print("make_mesh(..., axis_types=(AxisType.Auto,)):", auto.axis_types)
assert refused == "ShardingTypeError"
