# Check a gradient against finite differences (Practice): the derivative along a direction v is
# grad(f)(w) . v; a central difference estimates the same number without autodiff.
# The grader calls it with a wavy of its own: differentiate wavy, do not derive it by hand.
def wavy(w):
    return jnp.sum(jnp.sin(w) * w)


def directional_check(w, v):
    autodiff = jnp.vdot(jax.grad(wavy)(w), v)
    numeric = central_difference(wavy, w, v)
    return autodiff, numeric


auto, numeric_estimate = directional_check(w, v)
print(f"autodiff {float(auto):.5f} | central difference {float(numeric_estimate):.5f}")
assert jnp.allclose(auto, numeric_estimate, rtol=1e-2, atol=1e-3)
