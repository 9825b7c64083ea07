# Check a gradient against finite differences (Practice): the derivative along a direction v is
# grad(f)(w) . v; a central difference estimates the same number without autodiff.
def directional_check(w, v):
    def f(w):
        return {{a}} * jnp.sum(jnp.sin(w) * w)

    autodiff = jnp.float32(0.0)  # TODO: the dot product of jax.grad(f)(w) with v
    numeric = jnp.float32(0.0)  # TODO: central_difference(f, w, v) from step 4
    return autodiff, numeric


auto, numeric_estimate = directional_check(w, v)
print(f"autodiff {float(auto):.5f} | central difference {float(numeric_estimate):.5f}")
