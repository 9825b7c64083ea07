"""Masked batch moments: your implementation (the learner's workspace).

A padded batch stores sequences of different lengths in one fixed-shape array ``values`` of
shape (batch, length); ``mask`` has the same shape and is 1 where an entry is real, 0 where it
is padding. Every statistic must count only the real entries: padding is storage, not data.

Fill in the three TODOs, then run, from the folder that holds projects/:
    python projects/arrays-audit/run.py --implementation starter --stage 1
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
    raise NotImplementedError(
        "TODO 1 (masked_count in starter/model.py): return the number of real entries along "
        "`axis`, i.e. sum the mask with jnp.sum(mask, axis=axis). "
        "Shape (batch, length) -> (batch,)."
    )


def masked_mean(values: jnp.ndarray, mask: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """Mean over real entries; NaN where a row has none (an empty row has no mean, not 0)."""
    raise NotImplementedError(
        "TODO 2 (masked_mean in starter/model.py): sum only the real entries "
        "(jnp.where(mask > 0, values, 0.0)) along `axis` and divide by masked_count(mask, axis); "
        "return jnp.nan where the count is 0 (use jnp.where, not a Python if)."
    )


def masked_variance(values: jnp.ndarray, mask: jnp.ndarray, axis: int = -1) -> jnp.ndarray:
    """Population variance (ddof=0) over real entries; NaN where a row has none."""
    raise NotImplementedError(
        "TODO 3 (masked_variance in starter/model.py): subtract masked_mean (keep its axis with "
        "jnp.expand_dims), zero the padded positions, sum the squares along `axis` and divide by "
        "masked_count; return jnp.nan where the count is 0."
    )
