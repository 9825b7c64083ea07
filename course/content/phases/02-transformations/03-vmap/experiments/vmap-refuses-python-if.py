# Experiment — vmap traces the function for one example with a batch tracer, so a Python if on
# a per-example value has no single True or False to take, and vmap raises the same
# TracerBoolConversionError as jit. A branch on each example's value is jnp.where (or lax.cond,
# which vmap turns into a select). Without vmap (or jit) the if runs on a concrete number.
def loss_or_zero_if(w, xi, yi):
    if jnp.dot(xi, w) > yi:  # a decision on this example's prediction
        return (jnp.dot(xi, w) - yi) ** 2
    return 0.0 * yi


def loss_or_zero_where(w, xi, yi):
    return jnp.where(jnp.dot(xi, w) > yi, (jnp.dot(xi, w) - yi) ** 2, 0.0)


xs_if, ys_if = jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([-1.0, 5.0])
print("one example, no vmap:", loss_or_zero_if(w, xs_if[0], ys_if[0]))
try:
    jax.vmap(loss_or_zero_if, in_axes=(None, 0, 0))(w, xs_if, ys_if)
    raise AssertionError("a Python if on per-example values should fail under vmap")
except jax.errors.TracerBoolConversionError as err:
    print("Python if under vmap:", type(err).__name__)
batched_where = jax.vmap(loss_or_zero_where, in_axes=(None, 0, 0))(w, xs_if, ys_if)
print("jnp.where under vmap:", batched_where)
assert jnp.allclose(batched_where, jnp.array([1.0, 0.0]))  # 0.0 - (-1) = 1 > 0; 0.5 < 5
