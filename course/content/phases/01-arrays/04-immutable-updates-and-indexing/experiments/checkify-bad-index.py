# Experiment — Compiled code can report a bad index, with jax.experimental.checkify.
import jax
from jax.experimental import checkify


def read_at(v, i):
    return v[i]


checked = jax.jit(checkify.checkify(read_at, errors=checkify.index_checks))
error, value = checked(x, 10)
message = error.get()
assert message is not None and "index 10 is out of bounds" in message
ok_error, ok_value = checked(x, 2)
assert ok_error.get() is None and float(ok_value) == 3.
print("checkify under jit:", message.strip())
