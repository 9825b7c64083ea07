"""Logical devices an exercise runs on: one place for the count's bounds and the XLA flag.

XLA's CPU client makes ``--xla_force_host_platform_device_count=N`` devices when its backend
starts, reading ``XLA_FLAGS`` then (not when JAX is imported). So the flag can be set in the
environment of a run forked from a parent that imported JAX without starting a backend (the
grader's warm zygote, ``course check``'s fork server), as well as for a cold process. The
devices share the host's cores: they let partitioning be written, run and checked anywhere, and
say nothing about an accelerator's speed.
"""

from __future__ import annotations

MAX_DEVICES = 8
"""The most logical devices an exercise may ask for (the course's meshes are at most 8)."""
FLAG = "--xla_force_host_platform_device_count"


def device_env(devices: int) -> dict[str, str]:
    """The environment variables a run with ``devices`` logical CPU devices needs ({} for 1)."""
    if not isinstance(devices, int) or isinstance(devices, bool) \
            or not 1 <= devices <= MAX_DEVICES:
        raise ValueError(f"devices must be an integer from 1 to {MAX_DEVICES}, got {devices!r}")
    return {} if devices == 1 else {"XLA_FLAGS": f"{FLAG}={devices}"}
