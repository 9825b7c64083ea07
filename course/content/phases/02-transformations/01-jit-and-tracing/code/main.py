# jax.jit and tracing: jit runs your Python once per input signature with tracers (abstract
# shapes and dtypes), records the operations as a jaxpr, compiles it, and reuses it. Values that
# decide shapes or Python control flow must be static; everything else stays traced.
# region step-1
import jax
import jax.numpy as jnp


def scaled_sum(x, w):
    return jnp.sum(jnp.sin(x) * w)


x = jnp.arange(4.0)
program = jax.make_jaxpr(scaled_sum)(x, 2.0)
print("jaxpr inputs:", [str(v.aval) for v in program.jaxpr.invars],
      "-> outputs:", [str(v.aval) for v in program.jaxpr.outvars])
print("jaxpr primitives:", [eqn.primitive.name for eqn in program.jaxpr.eqns])

seen = []


@jax.jit
def traced_scaled_sum(x, w):
    seen.append((type(x).__name__, str(x.aval)))  # runs while tracing: x is a tracer
    return scaled_sum(x, w)


result = traced_scaled_sum(x, 2.0)
print("inside jit x was:", seen[0], "| result:", result)
assert isinstance(result, jax.Array) and not isinstance(result, jax.core.Tracer)
assert jnp.allclose(result, scaled_sum(x, 2.0))
# endregion

# region step-2
signatures = []


@jax.jit
def centred(v):
    signatures.append(f"{v.dtype}{list(v.shape)}")  # once per trace
    return v - v.mean()


centred(jnp.arange(4.0))
centred(jnp.arange(4.0) + 10.0)  # new values, same signature: no retrace
centred(jnp.arange(5.0))  # new shape: retrace
centred(jnp.arange(4.0, dtype=jnp.bfloat16))  # new dtype: retrace
centred(jnp.arange(4.0))  # already compiled: no retrace
print("5 calls, traces:", len(signatures), signatures)
assert signatures == ["float32[4]", "float32[5]", "bfloat16[4]"]
# endregion

# region step-3
import functools


def first_sum(v, n):
    return jnp.sum(v[:n])  # n decides a shape: it must be a concrete Python int


try:
    jax.jit(first_sum)(x, 2)
    raise AssertionError("a traced n cannot set a slice's length")
except IndexError as err:
    print("traced n:", type(err).__name__, "-", str(err).splitlines()[0][:40])

n_traces = []


def counted_first_sum(v, n):
    n_traces.append(n)  # a static argument arrives as its Python value
    return first_sum(v, n)


by_position = jax.jit(counted_first_sum, static_argnums=1)


@functools.partial(jax.jit, static_argnames="n")  # the decorator form of the same thing
def by_name(v, n):
    return first_sum(v, n)


sums = [by_position(x, 2), by_position(x, 2), by_position(x, 3), by_name(x, n=3)]
print("static n:", [float(s) for s in sums], "| traces for n = 2, 2, 3:", n_traces)
assert n_traces == [2, 3]  # each new static value is a new signature
try:
    by_position(x, jnp.array(2))
    raise AssertionError("a static argument must be hashable")
except ValueError as err:
    print("array as static:", type(err).__name__, "-", str(err).splitlines()[0][:45])
# endregion

# region step-4
import time


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args).block_until_ready()  # stop the clock when the work is done, not queued
    return out, time.perf_counter() - start


def energy(v):
    return jnp.sum(jnp.tanh(v) ** 2)


big = jnp.linspace(-3.0, 3.0, 200_000)
jitted_energy = jax.jit(energy)
first_out, first_seconds = timed(jitted_energy, big)  # trace + compile + run
later_out, later_seconds = timed(jitted_energy, big)  # cached program: run only
traced = jax.jit(energy).trace(big)  # tracing alone: a Traced, holding the jaxpr
lowered = traced.lower()  # lowering: the jaxpr becomes an XLA (StableHLO) module
compiled = lowered.compile()  # compiling: XLA makes machine code
# jax.jit(energy).lower(big) is the first two stages at once: it traces *and* lowers.
print("stages:", type(traced).__name__, "->", type(lowered).__name__, "->",
      type(compiled).__name__, "| jaxpr primitives:",
      [eqn.primitive.name for eqn in traced.jaxpr.eqns])
print("all three agree:", bool(jnp.allclose(compiled(big), later_out)
                               and jnp.allclose(first_out, later_out)))
assert jnp.allclose(jax.jit(energy).lower(big).compile()(big), later_out)
print("timings recorded (see the figure):", first_seconds >= 0.0 and later_seconds >= 0.0)
# endregion
print("PASS: transforms-01")
