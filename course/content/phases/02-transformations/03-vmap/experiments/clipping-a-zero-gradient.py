# Experiment — Clipping a zero gradient: min(1, c / norm) keeps it zero, because c / 0 is inf
# and min(1, inf) is 1, so the gradient is multiplied by 1. The same clipping written as
# g / norm * min(norm, c) divides the gradient by its norm first, 0 / 0, which is nan.
clip = 5.0
zero_and_long = jnp.array([[0.0, 0.0], [30.0, 40.0]])  # a perfect fit's gradient, and norm 50
norms = jnp.linalg.norm(zero_and_long, axis=1, keepdims=True)
factor_form = zero_and_long * jnp.minimum(1.0, clip / norms)
divided_form = zero_and_long / norms * jnp.minimum(norms, clip)
print("norms", norms.ravel(), "| min(1, c / norm) form:", factor_form.tolist(),
      "| g / norm * min(norm, c) form:", divided_form.tolist())
assert bool(jnp.isinf(clip / norms[0, 0])) and jnp.minimum(1.0, clip / norms[0, 0]) == 1.0
assert jnp.array_equal(factor_form, jnp.array([[0.0, 0.0], [3.0, 4.0]]))
assert bool(jnp.isnan(divided_form[0]).all())  # 0 / 0
assert jnp.allclose(divided_form[1], factor_form[1])  # the forms agree wherever norm > 0
