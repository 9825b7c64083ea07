# jax.grad: differentiate a Python function of arrays. grad(f) is a new function that returns
# df/dx for a scalar-valued f; value_and_grad, has_aux and argnums cover what training needs, and
# gradients of a pytree of parameters have the parameters' structure.
# region step-1
import jax
import jax.numpy as jnp


def cubic(x):
    return x**3 + 2.0 * x


d_cubic = jax.grad(cubic)  # x -> 3x^2 + 2
dd_cubic = jax.grad(d_cubic)  # x -> 6x
print("cubic(2) =", cubic(2.0), "| grad:", d_cubic(2.0), "| second derivative:", dd_cubic(2.0))
assert d_cubic(2.0) == 14.0 and dd_cubic(2.0) == 12.0
# endregion

# region step-2
x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = jnp.array([1.0, 2.0, 3.0])
w = jnp.array([0.5, -0.25])


def mse(w, x, y):
    preds = x @ w
    return jnp.mean((preds - y) ** 2), preds  # the loss first, anything else as aux


(loss, preds), g_w = jax.value_and_grad(mse, has_aux=True)(w, x, y)
by_hand = 2.0 * x.T @ (preds - y) / y.shape[0]  # d/dw mean((xw - y)^2)
print("loss:", loss, "| preds (aux):", preds, "| grad w:", g_w)
assert jnp.allclose(g_w, by_hand)
# endregion

# region step-3
params = {"w": w, "b": jnp.array(0.1)}


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


grads = jax.grad(loss_fn)(params, x, y)
print("grads has the params' structure:", jax.tree.structure(grads) == jax.tree.structure(params),
      {k: v.shape for k, v in grads.items()})
g_params, g_x = jax.grad(loss_fn, argnums=(0, 1))(params, x, y)
print("argnums=(0, 1): grads for params and for x, x's of shape", g_x.shape)
new_params = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
print("one step, lr 0.01: loss", loss_fn(params, x, y), "->", loss_fn(new_params, x, y))
assert loss_fn(new_params, x, y) < loss_fn(params, x, y)
# endregion

# region step-4
def central_difference(f, x, v, h=1e-3):
    return (f(x + h * v) - f(x - h * v)) / (2.0 * h)


v = jnp.array([1.0, -1.0])  # a direction in w-space
autodiff = jnp.vdot(jax.grad(lambda w: mse(w, x, y)[0])(w), v)
numeric = central_difference(lambda w: mse(w, x, y)[0], w, v)
print(f"directional derivative: autodiff {float(autodiff):.4f} | central difference "
      f"{float(numeric):.4f}")
assert jnp.allclose(autodiff, numeric, rtol=1e-2)
try:
    jax.grad(lambda w: x @ w)(w)  # a vector output has no single gradient
    raise AssertionError("grad of a vector output should fail")
except TypeError as err:
    print("grad of a vector output:", type(err).__name__, "-", str(err).splitlines()[0][:50])
# endregion
print("PASS: transforms-02")
