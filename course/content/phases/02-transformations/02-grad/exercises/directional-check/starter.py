# Check a gradient against finite differences (Practice): the derivative along a direction v is
# grad(f)(w) . v; a central difference estimates the same number without autodiff.
# The grader calls it with a wavy of its own: differentiate wavy, do not derive it by hand.
def wavy(w):
    return jnp.sum(jnp.sin(w) * w)


def directional_check(w, v):
    autodiff = jnp.float32(0.0)  # TODO: the dot product of jax.grad(wavy)(w) with v
    numeric = jnp.float32(0.0)  # TODO: central_difference(wavy, w, v) from step 4
    return autodiff, numeric


auto, numeric_estimate = directional_check(w, v)
print(f"autodiff {float(auto):.5f} | central difference {float(numeric_estimate):.5f}")
