# Experiment — Gradients of an elementwise function: grad needs a scalar, and for an elementwise
# f the gradient of sum(f(v)) is f' at every element: the diagonal of the Jacobian jax.jacrev
# builds in full.
v_in = jnp.array([-1.0, 0.0, 0.5, 2.0])
elementwise = jax.grad(lambda v: jnp.sum(jnp.tanh(v)))(v_in)
jacobian = jax.jacrev(jnp.tanh)(v_in)
print("grad of sum(tanh(v)):", elementwise)
print("jacobian shape:", jacobian.shape, "| its diagonal equals it:",
      bool(jnp.allclose(jnp.diag(jacobian), elementwise)))
assert jnp.allclose(elementwise, 1.0 - jnp.tanh(v_in) ** 2)
assert jnp.allclose(jacobian, jnp.diag(elementwise))
