"""Partition facts from the sandbox are bounded and typed; the rules read them, not names."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from course.checks import HARNESS_PATH
from course.checks.facts import FactsError, call_facts
from course.checks.partition import _normal, _show


def test_shardings_and_collectives_parse_and_bad_ones_are_refused() -> None:
    facts = call_facts({"shardings": [{"axes": "data;;model+x", "devices": 8,
                                       "replicated": False}, None],
                        "partition": {"collectives": {"all-reduce": 2}, "devices": 8}})
    first = facts.shardings[0]
    assert first.axes == (("data",), None, ("model", "x")) and first.devices == 8
    assert facts.partition.collectives == {"all-reduce": 2} and facts.partition.devices == 8
    for bad in ({"shardings": [{"axes": "d", "devices": 8}]},  # no replicated flag
                {"shardings": [{"axes": 7, "devices": 8, "replicated": True}]},
                {"shardings": [{"axes": ";".join("a" * 17), "devices": 1, "replicated": True}]},
                {"partition": {"collectives": {"rm -rf": 1}, "devices": 8}},
                {"partition": {"collectives": {"all-reduce": -1}, "devices": 8}}):
        with pytest.raises(FactsError):
            call_facts(bad)


def test_specs_compare_as_layouts() -> None:
    assert _normal(("data", None)) == _normal(("data",)) == (("data",),)
    assert _normal(()) == () and _normal(None) is None
    assert _show(_normal((None, "model"))) == "P(None, 'model')"


def test_the_harness_counts_a_tuple_all_reduce_once(tmp_path) -> None:  # noqa: ANN001
    """XLA combines gradients into one tuple all-reduce, ``(f32[..], f32[]) all-reduce(...)``;
    its operands named ``%all-reduce.3`` are not counted again."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys\nsys.path.insert(0, sys.argv[1])\nimport harness, jax, jax.numpy as jnp\n"
        "import numpy as np\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
        "mesh = Mesh(np.array(jax.devices()), ('data',))\n"
        "rows = NamedSharding(mesh, P('data'))\n"
        "def step(w, b, x):\n"
        "    x = jax.lax.with_sharding_constraint(x, rows)\n"
        "    return jax.grad(lambda p: jnp.sum((x @ p[0] + p[1]) ** 2))((w, b))\n"
        "tools = harness.call_tools()\n"
        "facts = tools['facts'].partition_facts(step, [jnp.ones(3), jnp.float32(0),"
        " jnp.ones((16, 3))], tools)\n"
        "print(facts['collectives']['all-reduce'], facts['devices'])\n")
    env = {**os.environ, "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    out = subprocess.run([sys.executable, str(script), str(HARNESS_PATH.parent)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    count, devices = out.stdout.split()
    assert devices == "8" and int(count) == 1
