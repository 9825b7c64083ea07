# Experiment — donate_argnums lets the compiled step reuse its input buffers for its outputs,
# so the parameters and optimizer state need not exist twice in memory. The price: the arrays
# you passed are deleted, and using them raises.
@partial(jax.jit, donate_argnums=0)
def scale(v):
    return 2.0 * v


v = jnp.ones(1000)
out = scale(v)
print("after a donating call, the input is deleted:", v.is_deleted())
try:
    v + 1.0
    raise AssertionError("a deleted array should not be usable")
except RuntimeError as err:
    print("using it raises RuntimeError:", str(err).splitlines()[0][:40])
kept = jnp.ones(1000)
jax.jit(lambda v: 2.0 * v)(kept)
assert not kept.is_deleted()  # without donation the input stays
