# Check a gradient against finite differences (Practice): the derivative along a direction v is
# grad(f)(w) . v; a central difference estimates the same number without autodiff.
def directional_check(w, v):
    def f(w):
        return {{a}} * jnp.sum(jnp.sin(w) * w)

    autodiff = jnp.vdot(jax.grad(f)(w), v)
    numeric = central_difference(f, w, v)
    return autodiff, numeric


auto, numeric_estimate = directional_check(w, v)
print(f"autodiff {float(auto):.5f} | central difference {float(numeric_estimate):.5f}")
assert jnp.allclose(auto, numeric_estimate, rtol=1e-2, atol=1e-3)
