"""Masked batch moments: reference implementation (instructor reference execution only).

A padded batch stores sequences of different lengths in one fixed-shape array ``values`` of
shape (batch, length); ``mask`` has the same shape and is 1 where an entry is real, 0 where it
is padding. Every statistic must count only the real entries: padding is storage, not data.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp


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
    """Population variance (ddof=0) over real entries; NaN where a row has none."""
    count = masked_count(mask, axis=axis)
    mean = masked_mean(values, mask, axis=axis)
    centred = jnp.where(mask > 0, values - jnp.expand_dims(mean, axis), 0.0)
    total = jnp.sum(centred * centred, axis=axis)
    return jnp.where(count > 0, total / jnp.maximum(count, 1.0), jnp.nan)
