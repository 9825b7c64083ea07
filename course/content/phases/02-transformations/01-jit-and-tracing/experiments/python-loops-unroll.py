# Experiment — A Python loop is unrolled while tracing: jit records the operations the loop
# performed, so the jaxpr grows with the (static) number of iterations. Lesson 04 replaces such
# loops with lax.fori_loop and lax.scan, whose program size does not grow.
def repeat_tanh(v, steps):
    for _ in range(steps):
        v = jnp.tanh(v)
    return v


lengths = {steps: len(jax.make_jaxpr(repeat_tanh, static_argnums=1)(x, steps).jaxpr.eqns)
           for steps in (1, 5, 20)}
print("equations in the jaxpr for 1, 5, 20 iterations:", lengths)
assert lengths == {1: 1, 5: 5, 20: 20}
