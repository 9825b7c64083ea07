"""The exercise-check API: harness.py runs for real, read_values refuses garbage, run_checks."""

from __future__ import annotations

import ast
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from course.checks import (
    HARNESS_FILES,
    CapturedValues,
    ChecksError,
    ValuesError,
    load_suite,
    read_values,
    run_checks,
)

CHECKS = '''
from course.checks import Values, check

NAMES = ("masked", "x")


@check("masked holds [1, 2, 0, 0]", points=2)
def masked_values(v: Values) -> None:
    v.expect_close("masked", [1.0, 2.0, 0.0, 0.0])


@check("x is unchanged", points=1, visible=False)
def x_unchanged(v: Values) -> None:
    v.expect_equal("x", [1.0, 2.0, 3.0, 4.0])


@check("masked is float64", points=1)
def dtype(v: Values) -> None:
    v.expect_dtype("masked", "float64")
'''


def harness(tmp_path: Path, program: str, names: str = "masked,x",
            via_fd: bool = False) -> tuple[subprocess.CompletedProcess, bytes]:
    """Run harness.py as the grader does, copied with its siblings alone into an empty
    folder."""
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir(exist_ok=True)
    for path in HARNESS_FILES:
        (sandbox / path.name).write_bytes(path.read_bytes())
    (sandbox / "main.py").write_text(program)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
    if via_fd:
        read_end, write_end = os.pipe()
        proc = subprocess.Popen(
            [sys.executable, "-I", "harness.py", "--names", names, "--fd", str(write_end),
             "main.py"], cwd=sandbox, env=env, pass_fds=(write_end,), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            payload = reader.read()
        stdout, stderr = proc.communicate(timeout=60)
        return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), payload
    done = subprocess.run([sys.executable, "-I", "harness.py", "--names", names, "--out",
                           "values.bin", "main.py"], cwd=sandbox, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    return done, (sandbox / "values.bin").read_bytes()


@pytest.fixture
def checks_path(tmp_path: Path) -> Path:
    path = tmp_path / "checks.py"
    path.write_text(CHECKS)
    return path


def _imports(nodes) -> set[str]:  # noqa: ANN001
    names = {alias.name.split(".")[0] for node in nodes
             if isinstance(node, ast.Import) for alias in node.names}
    return names | {node.module.split(".")[0] for node in nodes
                    if isinstance(node, ast.ImportFrom) and node.module}


def test_harness_imports_only_stdlib_and_numpy():
    """jax only lazily, to call a function exercise's function (the program imported it)."""
    for path in HARNESS_FILES:
        tree = ast.parse(path.read_text())
        assert _imports(tree.body) - {"__future__"} <= set(sys.stdlib_module_names), path
        assert _imports(ast.walk(tree)) - {"__future__", "numpy", "jax"} <= set(
            sys.stdlib_module_names), path


def test_correct_program_gets_full_marks(tmp_path: Path, checks_path: Path):
    program = ("import numpy as np\nx = np.array([1., 2., 3., 4.])\nmasked = x.copy()\n"
               "masked[2:] = 0.\nprint('done')\n")
    done, payload = harness(tmp_path, program, via_fd=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    captured = read_values(payload)
    assert captured.completed and captured.error is None
    outcomes = run_checks(checks_path, captured)
    assert [(o.status, o.points, o.max_points) for o in outcomes] == [
        ("passed", 2.0, 2.0), ("passed", 1.0, 1.0), ("passed", 1.0, 1.0)]
    assert [o.visible for o in outcomes] == [True, False, True]


def test_program_that_raises_keeps_values_and_reports_its_line(tmp_path: Path,
                                                               checks_path: Path):
    program = ("import numpy as np\nx = np.array([1., 2., 3., 4.])\n"
               "def helper(a):\n    return a.reshape(3)\n"
               "masked = helper(x)  # stops here\n")
    done, payload = harness(tmp_path, program)
    assert done.returncode == 1
    captured = read_values(payload)
    assert not captured.completed
    assert captured.error.type == "ValueError"
    assert captured.error.line == 4  # the learner's innermost frame, not numpy's
    assert captured.error.text == "return a.reshape(3)"
    assert 'File "main.py", line 5' in done.stderr and "harness.py" not in done.stderr
    outcomes = run_checks(checks_path, captured)
    masked = outcomes[0]
    assert masked.status == "failed" and masked.points == 0
    assert "`masked` is not defined" in masked.feedback
    assert "stopped at line 4" in masked.feedback and "ValueError" in masked.feedback
    assert outcomes[1].status == "passed"  # x was defined before the error


def test_syntax_error_is_reported_with_its_line(tmp_path: Path):
    done, payload = harness(tmp_path, "x = 1\nmasked = (\n")
    captured = read_values(payload)
    assert captured.error.type == "SyntaxError" and captured.error.line == 2
    assert captured.values["x"].kind == "missing"


def test_wrong_values_give_feedback(tmp_path: Path, checks_path: Path):
    program = ("import numpy as np\nx = np.array([1., 2., 3., 4.])\n"
               "masked = np.array([1., 2., 3.], dtype=np.float32)\n")
    _, payload = harness(tmp_path, program)
    outcomes = run_checks(checks_path, read_values(payload))
    assert outcomes[0].feedback == "`masked` has shape (3,), expected (4,)"
    assert outcomes[2].feedback == "`masked` has dtype float32, expected float64"


def test_unsupported_value_is_named(tmp_path: Path, checks_path: Path):
    _, payload = harness(tmp_path, "x = [1., 2., 3., 4.]\nmasked = {'a': 1}\n")
    captured = read_values(payload)
    assert captured.values["masked"].kind == "unsupported"
    outcomes = run_checks(checks_path, captured)
    assert "`masked` is a dict" in outcomes[0].feedback
    assert outcomes[1].status == "passed"  # a list of floats is read as an array


def test_program_exiting_zero_counts_as_completed(tmp_path: Path):
    done, payload = harness(tmp_path, "import sys\nx = 1\nsys.exit(0)\n", names="x")
    captured = read_values(payload)
    assert done.returncode == 0 and captured.completed
    assert captured.values["x"].value == 1


def test_broken_check_is_an_error_not_a_crash(tmp_path: Path):
    path = tmp_path / "checks.py"
    path.write_text(CHECKS + '\n\n@check("broken")\ndef broken(v):\n    raise KeyError("k")\n')
    captured = CapturedValues(True, None, {})
    outcomes = run_checks(path, captured)
    assert outcomes[-1].status == "error" and "KeyError" in outcomes[-1].feedback
    assert outcomes[0].status == "failed"


def test_checks_file_without_checks_is_refused(tmp_path: Path):
    path = tmp_path / "checks.py"
    path.write_text('NAMES = ("x",)\n')
    with pytest.raises(ChecksError, match="no @check functions"):
        load_suite(path)
    path.write_text("import nonexistent_module_xyz\n")
    with pytest.raises(ChecksError, match="ModuleNotFoundError"):
        load_suite(path)


def test_suite_reports_names_and_points(checks_path: Path):
    suite = load_suite(checks_path)
    assert suite.names == ("masked", "x") and suite.max_points == 4.0


def report(header: dict, body: bytes = b"") -> bytes:
    raw = json.dumps(header).encode()
    return b"PWV1\n" + struct.pack(">Q", len(raw)) + raw + body


GARBAGE = {
    "empty": b"",
    "random bytes": os.urandom(64),
    "truncated header": b"PWV1\n" + struct.pack(">Q", 1000) + b"{}",
    "header not json": b"PWV1\n" + struct.pack(">Q", 3) + b"abc",
    "wrong version": report({"version": 2, "completed": True, "names": {}}),
    "array outside the body": report({"version": 1, "completed": True, "error": None,
                                      "names": {"x": {"kind": "array", "offset": 0,
                                                      "length": 99}}}),
    "array not npy": report({"version": 1, "completed": True, "error": None,
                             "names": {"x": {"kind": "array", "offset": 0, "length": 4}}},
                            b"junk"),
    "unknown kind": report({"version": 1, "completed": True, "error": None,
                            "names": {"x": {"kind": "pickle"}}}),
    "completed not bool": report({"version": 1, "completed": "yes", "names": {}}),
    "scalar object": report({"version": 1, "completed": True, "error": None,
                             "names": {"x": {"kind": "scalar", "value": {"a": 1}}}}),
}


@pytest.mark.parametrize("payload", list(GARBAGE.values()), ids=list(GARBAGE))
def test_garbage_payloads_raise_a_clear_error(payload: bytes):
    with pytest.raises(ValuesError, match="the grading report is unusable"):
        read_values(payload)


def test_pickled_arrays_are_refused():
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    blob = buffer.getvalue()
    payload = report({"version": 1, "completed": True, "error": None,
                      "names": {"x": {"kind": "array", "offset": 0, "length": len(blob)}}}, blob)
    with pytest.raises(ValuesError, match="not a valid .npy blob"):
        read_values(payload)


def test_oversized_payload_is_refused():
    with pytest.raises(ValuesError, match="more than the 10 allowed"):
        read_values(b"PWV1\n" + b"0" * 20, max_bytes=10)
