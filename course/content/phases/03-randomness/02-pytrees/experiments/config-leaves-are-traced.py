# Experiment — everything in a pytree argument of a jitted function is a leaf, and leaves are
# traced: an int "config" value inside params becomes a tracer, and a Python if on it fails.
# Keep configuration out of the tree (a static argument, or a dataclass meta field).
def forward(params, x):
    if params["layers"] > 1:  # a Python int in the tree ...
        x = x * 2
    return x @ params["w"]


tree = {"layers": 2, "w": jnp.ones(2)}
print("eager:", forward(tree, jnp.ones(2)))
try:
    jax.jit(forward)(tree, jnp.ones(2))
    raise AssertionError("a traced config value should fail the Python if")
except jax.errors.TracerBoolConversionError:
    print("under jit, the int leaf is a tracer: TracerBoolConversionError")
