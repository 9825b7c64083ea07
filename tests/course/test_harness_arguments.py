"""The harness's arguments: the same arrays ``jnp.asarray`` (and ``.astype``) made, bit for
bit, without compiling a computation for every new shape (issue 23: the graded run's compiles
are the learner's own)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from course.checks import harness_calls as hc

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "float32",
          "float64", "complex64")


def _call(*values: object, cast: str | None = None) -> dict:
    return {"args": [{"kind": "array", "value": v, "cast": cast} for v in values]}


def _old(value: np.ndarray, cast: str | None = None) -> jax.Array:
    """What the harness did before: the reference every argument must equal."""
    with np.errstate(all="ignore"):  # float64 past float32's range: inf, as before
        array = jnp.asarray(value)
    return array.astype(cast) if cast else array


def _same(new: jax.Array, old: jax.Array) -> None:
    assert new.dtype == old.dtype
    assert new.shape == old.shape
    assert new.weak_type == old.weak_type
    assert new.committed == old.committed
    assert new.sharding == old.sharding
    assert np.asarray(new).tobytes() == np.asarray(old).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_array_arrives_as_jnp_asarray_made_it(dtype: str) -> None:
    rng = np.random.default_rng(7)
    value = (rng.standard_normal((3, 5)) * 50).astype(dtype)
    (new,) = hc.arguments(_call(value))
    _same(new, _old(value))
    (scalar,) = hc.arguments(_call(np.asarray(value.flat[0])))
    _same(scalar, _old(np.asarray(value.flat[0])))


@pytest.mark.parametrize("source", ["float32", "float64"])
def test_a_bfloat16_cast_on_the_host_is_xlas_convert_bit_for_bit(source: str) -> None:
    """Every bit pattern class: random bits (NaNs, infinities, subnormals, ties) and values
    that round to the far side of bfloat16's range."""
    rng = np.random.default_rng(11)
    width = np.dtype(source).itemsize * 8
    bits = rng.integers(0, 2**width - 1, size=200_000, dtype=np.uint64 if width == 64
                        else np.uint32, endpoint=True)
    value = bits.astype(np.uint64 if width == 64 else np.uint32).view(source)
    extremes = np.array([3.4e38, -3.4e38, 1e-45, -0.0, np.inf, -np.inf, np.nan, 1.00390625,
                         1.01171875, 65504.0], dtype=source)
    for sample in (value, extremes):
        (new,) = hc.arguments(_call(sample, cast="bfloat16"))
        old = _old(sample, "bfloat16")
        assert new.dtype == old.dtype == jnp.bfloat16
        assert new.committed == old.committed and new.sharding == old.sharding
        assert np.array_equal(np.asarray(new).view(np.uint16), np.asarray(old).view(np.uint16))


@pytest.mark.parametrize(("dtype", "cast"), [("float32", "float16"), ("float32", "int32"),
                                             ("int32", "float32"), ("int32", "bfloat16"),
                                             ("float64", "float32"), ("float16", "bfloat16")])
def test_other_casts_are_the_devices(dtype: str, cast: str) -> None:
    value = (np.random.default_rng(3).standard_normal(64) * 300).astype(dtype)
    (new,) = hc.arguments(_call(value, cast=cast))
    _same(new, _old(value, cast))


def test_scalars_pass_through() -> None:
    call = {"args": [{"kind": "scalar", "value": 3, "type": "int"},
                     {"kind": "scalar", "value": 0.5, "type": "float"}]}
    assert hc.arguments(call) == [3, 0.5]


def test_no_computation_is_compiled_for_a_new_shape() -> None:
    """``jnp.asarray`` compiled a convert for each new shape, ``.astype`` one per shape and
    cast; the graded run's hidden inputs come in several shapes each."""
    compiles: list[str] = []

    def listener(event: str, *_: object, **__: object) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        rng = np.random.default_rng(5)
        for n in (37, 41, 43):  # shapes no other test uses
            hc.arguments(_call(rng.standard_normal((n, 3)).astype("float32"),
                               rng.integers(0, 9, (n,)).astype("int32")))
            hc.arguments(_call(rng.standard_normal((n, 5)).astype("float32"), cast="bfloat16"))
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert compiles == []
