"""How a graded run's JAX compiles (course/checks/harness_jax.py), cold and warm.

The compile flags (``CPU_COMPILE_FLAGS``): every graded run starts its CPU backend with them, a
program's own ``XLA_FLAGS`` setdefault still decides its devices, and what it computes is what
a bare ``python main.py`` computes up to float32 rounding (XLA's classic emitters sum a dot and
approximate tanh a few ulps differently: the reference and the learner's code are graded under
the same flags, with the checks' tolerances). One MLIR context a thread: a run's lowerings share
their thread's context, where a bare run makes one per lowering."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from course.checks import HARNESS_PATH, read_values
from course.checks.harness_jax import CPU_COMPILE_FLAGS
from course.tools.execute import child_env

SETS_DEVICES = """import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # before JAX
import jax
devices = len(jax.devices())
flags = os.environ["XLA_FLAGS"]
"""
COMPUTES = """import jax
import jax.numpy as jnp
import numpy as np

x = jnp.linspace(-3.0, 3.0, 37, dtype=jnp.float32)
w = jnp.sin(jnp.arange(37 * 5, dtype=jnp.float32)).reshape(37, 5)


def loss(w, x):
    h = jnp.tanh(x @ w) * jnp.exp(-0.1 * jnp.abs(x @ w))
    return jnp.mean(jnp.log1p(h * h)) + jnp.sum(jax.nn.softmax(h)) * 1e-3


outs = [x @ w, jnp.tanh(x * 1.7 + 0.3), jax.jit(loss)(w, x), loss(w, x), jax.grad(loss)(w, x),
        jax.vmap(lambda r: jnp.cumsum(jnp.sqrt(jnp.abs(r))))(w),
        jax.random.normal(jax.random.key(3), (11,)).astype(jnp.bfloat16)]
print(repr([np.asarray(o, np.float64).round(12).tolist() for o in outs]))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in child_env().items() if k != "XLA_FLAGS"}  # a run's own, as graded


def _harness(tmp_path: Path, source: str, names: str, *, warm: bool = False) -> tuple[dict, str]:
    program = tmp_path / "main.py"
    program.write_text(source)
    out = tmp_path / "values.bin"
    args = [str(HARNESS_PATH), "--names", names, "--out", str(out), str(program)]
    if warm:  # as the grader's zygote and course check's fork server: JAX imported first
        command = [sys.executable, "-c", "import sys, runpy, jax, jax.numpy; sys.argv = "
                   f"{args!r}; runpy.run_path(sys.argv[0], run_name='__main__')"]
    else:
        command = [sys.executable, *args]
    done = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    captured = read_values(out.read_bytes())
    return {name: value.value for name, value in captured.values.items()}, done.stdout


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_run_starts_its_cpu_backend_with_the_flags_and_its_own_devices(
        tmp_path: Path, warm: bool) -> None:
    values, _ = _harness(tmp_path, SETS_DEVICES, "devices,flags", warm=warm)
    assert values["devices"] == 8  # the program's setdefault took effect: XLA_FLAGS was unset
    assert values["flags"] == ("--xla_force_host_platform_device_count=8 "
                               f"{CPU_COMPILE_FLAGS}")


def test_without_flags_of_its_own_a_run_gets_only_the_compile_flags(tmp_path: Path) -> None:
    values, _ = _harness(tmp_path, "import os\nimport jax\n\ndevices = len(jax.devices())\n"
                         "flags = os.environ['XLA_FLAGS']\n", "devices,flags")
    assert values == {"devices": 1, "flags": CPU_COMPILE_FLAGS}


def _bare(folder: Path, source: str) -> str:
    """What a bare ``python main.py`` of ``source`` prints: JAX as a learner runs it."""
    (folder / "main.py").write_text(source)
    bare = subprocess.run([sys.executable, "main.py"], cwd=folder, env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert bare.returncode == 0, bare.stderr[-3000:]
    return bare.stdout


@pytest.fixture(scope="module")
def bare_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What a bare ``python main.py`` of COMPUTES prints (JAX's default flags)."""
    return _bare(tmp_path_factory.mktemp("bare"), COMPUTES)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_what_a_run_computes_is_what_a_bare_run_computes_up_to_rounding(
        tmp_path: Path, bare_output: str, warm: bool) -> None:
    _, graded = _harness(tmp_path, COMPUTES, "", warm=warm)
    ours, theirs = ast.literal_eval(graded), ast.literal_eval(bare_output)
    assert len(ours) == len(theirs) == 7
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=1e-7)


LOWERS = """import threading

import jax
import jax.numpy as jnp


def lowered_in(n):
    return jax.jit(lambda x: x * n).lower(jnp.ones(n)).compiler_ir().context


first, second = lowered_in(2), lowered_in(3)
elsewhere = []
thread = threading.Thread(target=lambda: elsewhere.extend([lowered_in(4), lowered_in(5)]))
thread.start()
thread.join()
shared = first is second
per_thread = elsewhere[0] is elsewhere[1] and elsewhere[0] is not first
total = float(jnp.sin(jnp.arange(4.0)).sum() + jax.jit(jnp.cos)(jnp.arange(3.0)).sum())
print(shared, per_thread, round(total, 5))
"""


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_runs_lowerings_share_one_mlir_context_a_thread(tmp_path: Path, warm: bool) -> None:
    values, _ = _harness(tmp_path, LOWERS, "shared,per_thread,total", warm=warm)
    assert values == {"shared": True, "per_thread": True, "total": pytest.approx(3.01604, abs=1e-5)}


def test_a_bare_run_makes_a_context_a_lowering(tmp_path: Path) -> None:
    """What the harness changes: JAX alone lowers each jaxpr in a fresh context."""
    assert _bare(tmp_path, LOWERS).split() == ["False", "False", "3.01604"]
