# Loss and gradient in one call (Exercise): value_and_grad returns f(w) and df/dw together,
# sharing the forward pass, which is what every training step needs.
def loss_and_grad(w, x, y):
    def loss(w):
        return {{c}} * jnp.mean((x @ w - y) ** 2)

    return jax.value_and_grad(loss)(w)


value, grad_w = loss_and_grad(w, x, y)
print("loss:", value, "| grad:", grad_w)
assert jnp.allclose(grad_w, {{c}} * 2.0 * x.T @ (x @ w - y) / y.shape[0], rtol=1e-5)
