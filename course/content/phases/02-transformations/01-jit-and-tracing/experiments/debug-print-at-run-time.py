# Experiment — print inside a jitted function runs while tracing, once, and shows a tracer;
# jax.debug.print is recorded in the program and prints the run-time values on every call.
import contextlib
import io

captured = io.StringIO()


@jax.jit
def noisy(v):
    print("print sees:", type(v).__name__)  # Python: runs once, at trace time
    jax.debug.print("debug.print sees: {}", v)  # part of the program: runs on every call
    return v * 2


with contextlib.redirect_stdout(captured):
    noisy(jnp.array([1.0, 2.0])).block_until_ready()
    noisy(jnp.array([3.0, 4.0])).block_until_ready()
    jax.effects_barrier()  # wait until every debug print has been emitted
lines = captured.getvalue().splitlines()
print("\n".join(lines))
assert len([line for line in lines if line.startswith("print sees:")]) == 1
assert "Tracer" in lines[0]
assert [line for line in lines if line.startswith("debug.print")] == [
    "debug.print sees: [1. 2.]", "debug.print sees: [3. 4.]"]
