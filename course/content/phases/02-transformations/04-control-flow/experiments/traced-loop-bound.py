# Experiment — fori_loop is a scan only when its bounds are concrete while it is traced. Under
# jit an argument n has no value, and neither has jnp.int32(3) made inside the jitted function
# (it is computed by the program): the trip count is unknown, the loop is a while, and reverse
# mode fails with the same ValueError. Python ints (or a static n) keep it a scan.
def power_by_loop(a, n):
    return lax.fori_loop(0, n, lambda i, y: y * a, 1.0)


def cube_by_jnp_bound(a):
    return lax.fori_loop(0, jnp.int32(3), lambda i, y: y * a, 1.0)  # a bound made in the body


def primitives(fn, *args, **kwargs):
    return [eqn.primitive.name for eqn in jax.make_jaxpr(fn, **kwargs)(*args).eqns]


try:
    jax.jit(jax.grad(power_by_loop))(2.0, 3)
    raise AssertionError("grad through a fori_loop with a traced bound should fail")
except ValueError as err:
    print("traced n:", type(err).__name__, "-", str(err).splitlines()[0][:61])
try:
    jax.jit(jax.grad(cube_by_jnp_bound))(2.0)
    raise AssertionError("a jnp.int32 bound made under jit is traced too")
except ValueError as err:
    print("jnp.int32(3) made under jit:", type(err).__name__)
static_n = jax.jit(jax.grad(power_by_loop), static_argnums=1)
loops = {"n static": primitives(power_by_loop, 2.0, 3, static_argnums=1),
         "n traced": primitives(power_by_loop, 2.0, 3),
         "jnp.int32(3) inside": primitives(cube_by_jnp_bound, 2.0)}
print("static n: d(a^3)/da at 2 =", static_n(2.0, 3), "| loop primitives:", loops)
assert static_n(2.0, 3) == 12.0
assert loops == {"n static": ["scan"], "n traced": ["while"], "jnp.int32(3) inside": ["while"]}
# Without jit, grad runs the function on concrete values: jnp.int32(3) is a number, the loop
# is a scan again, and reverse mode works.
assert jax.grad(cube_by_jnp_bound)(2.0) == 12.0
