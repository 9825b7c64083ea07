# Experiment — Out of bounds, reads and writes have different defaults, and neither raises.
# x = [1., 2., 3., 4.] has valid indices 0..3; index 10 is out of bounds.
import jax

scatter = str(jax.make_jaxpr(lambda v: v.at[10].set(99.))(x))
assert "mode=GatherScatterMode.FILL_OR_DROP" in scatter  # an update's policy: drop the write
gather = str(jax.make_jaxpr(lambda v, i: v[i])(x, jnp.array([10])))
assert "mode=GatherScatterMode.PROMISE_IN_BOUNDS" in gather  # a read's default: a promise
read = x[10]                       # what happens: the read index is clamped to 3
assert float(read) == 4.
assert float(x.at[10].get()) == 4.  # the same default through .at[...].get()
written = x.at[10].set(99.)        # the write is dropped, as FILL_OR_DROP says
assert jnp.array_equal(written, x)
assert jnp.array_equal(x.at[10].add(1.), x)
print("scatter mode: FILL_OR_DROP | gather mode: PROMISE_IN_BOUNDS | x[10] ->", read,
      "| x.at[10].set(99.) ->", written)
