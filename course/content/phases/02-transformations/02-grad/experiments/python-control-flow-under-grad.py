# Experiment — grad does not stage the function like jit. Without jit, jax.grad runs f on the
# concrete input (wrapped in a tracer that carries its value), so Python if and while can read
# the value and pick the path; grad differentiates the path that ran. jit is what records a
# program without values, and under jit the same if raises TracerBoolConversionError.
def piecewise(x):
    if x > 0:  # a Python decision on the value
        return x**2
    return -x


def double_until_big(x):
    while x < 10.0:  # a data-dependent Python loop: 3 -> 6 -> 12, two doublings
        x = 2.0 * x
    return x


slopes = {"piecewise at 3": jax.grad(piecewise)(3.0), "piecewise at -3": jax.grad(piecewise)(-3.0),
          "doubling from 3": jax.grad(double_until_big)(3.0)}
print("grad without jit:", {k: float(v) for k, v in slopes.items()})
assert slopes == {"piecewise at 3": 6.0, "piecewise at -3": -1.0, "doubling from 3": 4.0}
try:
    jax.jit(jax.grad(piecewise))(3.0)
    raise AssertionError("under jit the Python if meets a value-less tracer")
except jax.errors.TracerBoolConversionError as err:
    print("jit(grad(piecewise)):", type(err).__name__)
