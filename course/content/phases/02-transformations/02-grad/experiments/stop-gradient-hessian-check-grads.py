# Experiment — three tools around grad. lax.stop_gradient passes a value through and blocks its
# derivative; jax.hessian is the matrix of second derivatives (jacfwd of jacrev); and
# jax.test_util.check_grads compares JAX's derivatives of f with finite differences, to the
# order you ask, and raises when they disagree.
from jax.test_util import check_grads

blocked = jax.grad(lambda x: x * jax.lax.stop_gradient(x))(3.0)  # d/dx of x * c, c = 3
print("grad of x * stop_gradient(x) at 3:", blocked, "(x * x would give 6.0)")
assert blocked == 3.0

hess = jax.hessian(lambda w: jnp.sum(w**3))(jnp.array([1.0, 2.0]))
print("hessian of sum(w^3) at [1, 2]:", hess.tolist())
assert jnp.allclose(hess, jnp.diag(jnp.array([6.0, 12.0])))  # diag(6 w)

check_grads(lambda w: mse(w, x, y)[0], (w,), order=2, modes=["fwd", "rev"])  # silent: agree


@jax.custom_jvp
def wrong_sin(x):
    return jnp.sin(x)


@wrong_sin.defjvp
def wrong_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), jnp.sin(x) * t  # a deliberate mistake: the derivative of sin is cos


try:
    check_grads(wrong_sin, (1.0,), order=1, modes=["fwd"])
    raise AssertionError("check_grads should catch a wrong derivative")
except AssertionError as err:
    assert "should catch" not in str(err)
    print("check_grads on a wrong derivative: AssertionError")
