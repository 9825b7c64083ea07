"""A correct answer that also makes 300k empty files (more than the 262144 inodes the warm
tmpfs once allowed; the cold one had the kernel's default): graded alike cold and warm."""
import os

import jax.numpy as jnp

for i in range(300_000):
    os.close(os.open(f"/tmp/inode-{i}", os.O_CREAT | os.O_WRONLY, 0o600))
x = jnp.array([1.0, 2.0, 3.0, 4.0])
masked = x.at[2:].set(0.0)
# counted by name: /tmp may also hold the mount point of a venv that lives under /tmp
print("masked:", masked, "files:", sum(n.startswith("inode-") for n in os.listdir("/tmp")))
