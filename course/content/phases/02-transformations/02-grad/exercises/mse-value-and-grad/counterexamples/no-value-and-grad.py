# max-score: 8
# why: the loss and jax.grad in two passes instead of value_and_grad's one
def loss_and_grad(w, x, y):
    def loss(w):
        return {{c}} * jnp.mean((x @ w - y) ** 2)

    return loss(w), jax.grad(loss)(w)
