"""pathways.secret_file: a generated secret appears whole or not at all, and the first wins."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

from pathways.secret_file import create_once


def test_the_file_is_not_there_until_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "var" / "grading_key"

    def make() -> str:
        assert not path.exists(), "a reader here would see an empty key"
        return "k" * 64

    create_once(path, make)
    assert path.read_text() == "k" * 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["grading_key"]  # no temporary left


def test_an_existing_secret_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "secret_key"
    path.write_text("first")
    create_once(path, lambda: "second")
    assert path.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]


RACER = """
import sys
from pathlib import Path
from pathways.secret_file import create_once
path = Path(sys.argv[1])
create_once(path, lambda: sys.argv[2])
print(path.read_text())
"""


def test_processes_starting_together_all_read_the_one_that_won(tmp_path: Path) -> None:
    # Processes of their own (not forks of this one, which may hold JAX's threads).
    path = tmp_path / "grading_key"
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(path), f"secret-{n}" * 8],
                               stdout=subprocess.PIPE, text=True) for n in range(8)]
    seen = {racer.communicate(timeout=60)[0].strip() for racer in racers}
    assert seen == {path.read_text()} and path.read_text().startswith("secret-")
    assert [p.name for p in tmp_path.iterdir()] == ["grading_key"]
