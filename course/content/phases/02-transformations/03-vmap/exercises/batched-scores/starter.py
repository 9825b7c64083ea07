# Batch a per-example function (Exercise): write the score of one example, then let vmap map it
# over the rows of xs while w stays shared (in_axes=None).
def scores(w, xs):
    def score_one(w, x):
        return jnp.tanh({{k}} * jnp.dot(w, x))

    return jnp.zeros(xs.shape[0])  # TODO: map score_one over the rows of xs with jax.vmap


batch_scores = scores(w, x)
print("scores:", batch_scores, "| shape:", batch_scores.shape)
