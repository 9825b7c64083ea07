# Experiment — the cache belongs to one jitted function object. jax.jit(lambda ...) written
# inside a loop makes a new function every iteration, so every call traces and compiles again;
# jax_log_compiles logs each compilation and jax_explain_cache_misses says why it missed.
import logging

messages = []


class Keep(logging.Handler):
    def emit(self, record):
        messages.append(record.getMessage())


jax_logger = logging.getLogger("jax")
keep = Keep()
jax_logger.addHandler(keep)
body_traces = []


def add_one(v):
    body_traces.append(1)  # once per trace
    return v + 1.0


with jax.log_compiles(True), jax.explain_cache_misses(True):
    for _ in range(3):
        jax.jit(lambda v: add_one(v))(x)  # a new lambda, so a new cache, every iteration
    in_loop = len(body_traces)
    reused = jax.jit(add_one)  # one function object, built once
    for _ in range(3):
        reused(x)
jax_logger.removeHandler(keep)
compiles = [m for m in messages if m.startswith("Compiling jit(")]
print("traces: jit(lambda) in a loop", in_loop, "| one jitted function called 3 times",
      len(body_traces) - in_loop)
print("jax_log_compiles:", len(compiles), "compilations, e.g.", compiles[0].split(" with ")[0])
why = next(m for m in messages if "TRACING CACHE MISS" in m and "same line" in m)
print("jax_explain_cache_misses:", " ".join(line.strip() for line in why.splitlines()[3:5]))
assert in_loop == 3 and len(body_traces) == 4
assert [m.split(" with ")[0] for m in compiles] == ["Compiling jit(<lambda>)"] * 3 + [
    "Compiling jit(add_one)"]
