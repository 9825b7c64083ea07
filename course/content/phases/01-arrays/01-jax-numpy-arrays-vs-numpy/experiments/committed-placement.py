# Experiment — Compare implicit and explicit placement: jax.device_put without a device leaves
# the array uncommitted (JAX may move it); naming a device commits it there.
import os
import subprocess
import sys

implicit = jax.device_put(host)
explicit = jax.device_put(host, jax.devices("cpu")[0])
print("implicit:", implicit.devices(), "committed:", implicit.committed)
print("explicit:", explicit.devices(), "committed:", explicit.committed)
print("default backend:", jax.default_backend(), "| devices:", jax.device_count())
assert not implicit.committed and explicit.committed
assert implicit.devices() == explicit.devices() == {jax.devices()[0]}
assert jnp.array_equal(implicit, explicit)

# On one device both spellings land in the same place. A child process with two forced CPU
# devices (the flag must be set before JAX starts, hence a fresh interpreter) shows the
# difference commitment makes.
TWO_DEVICES = """
import jax, numpy as np
a = jax.device_put(np.ones(3), jax.devices()[0])
b = jax.device_put(np.ones(3), jax.devices()[1])
try:
    a + b
except ValueError as err:
    print("committed to different devices:", str(err).split(".")[0])
print("uncommitted + committed runs on:", (jax.device_put(np.ones(3)) + b).devices())
"""
env = {**os.environ, "JAX_PLATFORMS": "cpu",
       "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
child = subprocess.run([sys.executable, "-c", TWO_DEVICES], env=env, capture_output=True,
                       text=True, timeout=120, check=True)
print(child.stdout, end="")
assert "Received incompatible devices" in child.stdout
assert "{CpuDevice(id=1)}" in child.stdout
