# Experiment — A loop bound that is traced makes fori_loop a while_loop: under jit the bound n
# has no value, so the trip count is unknown and reverse mode fails with the same ValueError.
# Make n static and it is a scan again, which grad can run backwards.
def power_by_loop(a, n):
    return lax.fori_loop(0, n, lambda i, y: y * a, 1.0)


try:
    jax.jit(jax.grad(power_by_loop))(2.0, 3)
    raise AssertionError("grad through a fori_loop with a traced bound should fail")
except ValueError as err:
    print("traced n:", type(err).__name__, "-", str(err).splitlines()[0][:61])
static_n = jax.jit(jax.grad(power_by_loop), static_argnums=1)
with_static = jax.make_jaxpr(power_by_loop, static_argnums=1)(2.0, 3).eqns
with_traced = jax.make_jaxpr(power_by_loop)(2.0, 3).eqns
print("static n: d(a^3)/da at 2 =", static_n(2.0, 3), "| loop primitive with n static:",
      [eqn.primitive.name for eqn in with_static], "| traced:",
      [eqn.primitive.name for eqn in with_traced])
assert static_n(2.0, 3) == 12.0
assert [eqn.primitive.name for eqn in with_traced] == ["while"]
