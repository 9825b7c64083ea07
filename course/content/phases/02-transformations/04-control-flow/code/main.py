# Control flow under jit: while tracing, a value is a tracer with a shape and a dtype but no
# value, so Python `if` and `while` cannot decide on it. jnp.where and lax.cond choose inside the
# compiled program; lax.fori_loop, lax.scan and lax.while_loop keep a loop in it as one body.
# region step-1
import jax
import jax.numpy as jnp
from jax import lax


def relu_with_if(x):
    if x > 0:  # Python needs True or False here; under jit, x > 0 is a tracer
        return x
    return 0.0 * x


print("Python if, no jit, at 2.0:", relu_with_if(2.0))
try:
    jax.jit(relu_with_if)(2.0)
    raise AssertionError("a Python if on a traced value should fail")
except jax.errors.TracerBoolConversionError as err:
    print("Python if under jit:", type(err).__name__, "-", str(err).splitlines()[0][:44])
assert issubclass(jax.errors.TracerBoolConversionError, TypeError)  # a TypeError, specialised


@jax.jit
def relu_where(x):
    return jnp.where(x > 0, x, 0.0)  # both sides are computed, then chosen element by element


x = jnp.array([-2.0, -0.5, 0.0, 1.5, 3.0])
print("jnp.where under jit:", relu_where(x))
assert jnp.array_equal(relu_where(x), jnp.maximum(x, 0.0))
# endregion

# region step-2
@jax.jit
def clipped_step(g, lr):
    norm = jnp.linalg.norm(g)
    # one scalar predicate picks one of two functions; both must return the same shape and dtype
    return lax.cond(norm > 1.0, lambda g: lr * g / norm, lambda g: lr * g, g)


small, large = jnp.array([0.3, -0.4]), jnp.array([3.0, -4.0])
print("lax.cond clips the step: small", clipped_step(small, 0.1), "| large",
      clipped_step(large, 0.1))
assert jnp.allclose(clipped_step(small, 0.1), 0.1 * small)
assert jnp.allclose(clipped_step(large, 0.1), jnp.array([0.06, -0.08]))
# endregion

# region step-3
def repeat_tanh_python(v, steps):
    for _ in range(steps):  # unrolled while tracing: one tanh per iteration in the program
        v = jnp.tanh(v)
    return v


def repeat_tanh_fori(v, steps):
    return lax.fori_loop(0, steps, lambda i, v: jnp.tanh(v), v)  # body(i, carry) -> carry


v = jnp.array([0.5, 1.0, 2.0])
unrolled = jax.make_jaxpr(repeat_tanh_python, static_argnums=1)(v, 20).jaxpr
looped = jax.make_jaxpr(repeat_tanh_fori, static_argnums=1)(v, 20).jaxpr
print("jaxpr equations for 20 iterations: Python loop", len(unrolled.eqns), "| fori_loop",
      len(looped.eqns), [eqn.primitive.name for eqn in looped.eqns])
assert len(unrolled.eqns) == 20 and len(looped.eqns) == 1
assert jnp.allclose(repeat_tanh_python(v, 20), repeat_tanh_fori(v, 20))
# endregion

# region step-4
def ema_step(s, x_t, beta=0.8):
    s = beta * s + (1.0 - beta) * x_t  # the new state is a new value, as x.at[i].set(...) was
    return s, s  # (carry to the next step, output of this step)


signal = jnp.array([1.0, 3.0, 2.0, 6.0, 4.0, 5.0])
final, smoothed = lax.scan(ema_step, signal[0], signal)
print("lax.scan EMA:", smoothed, "| final carry:", final)

state, by_hand = signal[0], jnp.zeros_like(signal)  # the same recurrence with a Python loop
for t in range(signal.shape[0]):
    state, out = ema_step(state, signal[t])
    by_hand = by_hand.at[t].set(out)  # Phase 01's functional update, one per step
assert jnp.allclose(smoothed, by_hand) and final == smoothed[-1]
# endregion

# region step-5
def sqrt_until_close(a):
    # Newton's method for y * y = a, run until close: the trip count depends on a's value
    return lax.while_loop(lambda y: jnp.abs(y * y - a) > 1e-6 * a, lambda y: 0.5 * (y + a / y), a)


def sqrt_fixed_steps(a):
    return lax.fori_loop(0, 12, lambda i, y: 0.5 * (y + a / y), a)  # concrete bounds: a scan


print("while_loop sqrt(2):", sqrt_until_close(2.0), "| fori_loop sqrt(2):", sqrt_fixed_steps(2.0))
try:
    jax.grad(sqrt_until_close)(2.0)
    raise AssertionError("reverse mode through a while_loop should fail")
except ValueError as err:
    print("grad through while_loop:", type(err).__name__, "-", str(err).splitlines()[0][:61])
_, forward_slope = jax.jvp(sqrt_until_close, (2.0,), (1.0,))  # forward mode runs through it
slope = jax.grad(sqrt_fixed_steps)(2.0)
print("d sqrt(a)/da at 2: grad of the fori_loop", slope, "| jvp of the while_loop",
      forward_slope, "| exact", 0.5 / jnp.sqrt(2.0))
assert jnp.allclose(slope, 0.5 / jnp.sqrt(2.0))
assert jnp.allclose(forward_slope, slope, rtol=1e-4)
# jvp differentiates the steps that ran. At a = 1 the start y = a already passes the test, the
# loop runs zero steps, and the slope is d(y0)/da = 1, not d sqrt(a)/da = 0.5.
root_at_one, slope_at_one = jax.jvp(sqrt_until_close, (1.0,), (1.0,))
print("a = 1: while_loop", root_at_one, "after zero steps | its jvp", slope_at_one,
      "| exact slope", 0.5, "| grad of the fori_loop", jax.grad(sqrt_fixed_steps)(1.0))
assert root_at_one == 1.0 and slope_at_one == 1.0
assert jnp.allclose(jax.grad(sqrt_fixed_steps)(1.0), 0.5)
# endregion
print("PASS: transforms-04")
