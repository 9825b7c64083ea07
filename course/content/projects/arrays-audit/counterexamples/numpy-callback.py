# max-score: 9
# why: masked_variance in NumPy behind jax.pure_callback: under jit it runs on the host, not compiled
"""Masked batch moments: reference implementation (instructor reference execution only).

A padded batch stores sequences of different lengths in one fixed-shape array ``values`` of
shape (batch, length); ``mask`` has the same shape and is 1 where an entry is real, 0 where it
is padding. Every statistic must count only the real entries: padding is storage, not data.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np


def pad_batch(
    sequences: Sequence[Sequence[float]], length: int, pad_value: float = 0.0
) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Pad variable-length sequences into ``(values, mask)`` of shape (len(sequences), length).

    Given (not a TODO): the audit changes ``length`` and ``pad_value`` to diagnose code that
    lets padding leak into a statistic.
    """
    longest = max((len(s) for s in sequences), default=0)
    if length < longest:
        raise ValueError(f"length={length} is shorter than the longest sequence ({longest})")
    rows = [list(s) + [pad_value] * (length - len(s)) for s in sequences]
    flags = [[1.0] * len(s) + [0.0] * (length - len(s)) for s in sequences]
    return jnp.array(rows, dtype=jnp.float32), jnp.array(flags, dtype=jnp.float32)


def naive_mean(values: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """The padding-sensitive baseline: divides by the padded length. Kept to diagnose it."""
    return jnp.mean(values, axis=axis)


def masked_count(mask: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """Number of real entries along ``axis``: the only correct denominator."""
    return jnp.sum(mask, axis=axis)


def masked_mean(values: jnp.ndarray, mask: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """Mean over real entries; NaN where a row has none (an empty row has no mean, not 0)."""
    count = masked_count(mask, axis=axis)
    total = jnp.sum(jnp.where(mask > 0, values, 0.0), axis=axis)
    return jnp.where(count > 0, total / jnp.maximum(count, 1.0), jnp.nan)


def masked_variance(values: jnp.ndarray, mask: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """NumPy on the host behind jax.pure_callback: jit "works", nothing is compiled."""
    def on_host(values, mask):
        values, mask = np.asarray(values), np.asarray(mask)
        count = mask.sum(axis=axis)
        mean = (values * mask).sum(axis=axis) / np.maximum(count, 1.0)
        centred = (values - np.expand_dims(mean, axis)) * mask
        out = (centred * centred).sum(axis=axis) / np.maximum(count, 1.0)
        return np.where(count > 0, out, np.nan).astype(np.float32)

    shape = jax.ShapeDtypeStruct(values.shape[:-1], jnp.float32)
    return jax.pure_callback(on_host, shape, values, mask)
