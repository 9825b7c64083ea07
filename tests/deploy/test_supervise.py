"""stack.sh's restart loop: a part that dies is started again with a line saying so; a
configuration error (exit 78) is not restarted; stopping the part stops the loop."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

SUPERVISE = Path(__file__).resolve().parents[2] / "deploy" / "local" / "supervise.sh"


def _run(program: str) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", "-c", f'source "{SUPERVISE}"; supervise part {program}'],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_part_that_dies_is_restarted_with_a_visible_line(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = _run(f"sh -c 'echo run >> {runs}; exit 3'")
    time.sleep(2.6)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    assert runs.read_text().count("run") >= 2
    assert "stack: part exited (code 3); restarting it in 1s" in out
    assert proc.returncode == 0


def test_a_configuration_error_is_not_restarted() -> None:
    proc = _run("sh -c 'exit 78'")
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 78
    assert "configuration error (exit 78); not restarting it" in out
