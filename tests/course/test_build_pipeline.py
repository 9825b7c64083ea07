"""The build pipeline: stale targets are made concurrently, written and reported in order; a
failed target stops the build and what was made before it stays reusable."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from course.build.pipeline import Target, run_targets


def _target(name: str, make) -> Target:  # type: ignore[no-untyped-def]
    return Target(name, (f"input of {name}",), make)


def test_two_jobs_make_two_targets_at_once_and_report_in_order(tmp_path: Path) -> None:
    both_running = threading.Barrier(2, timeout=10)  # broken unless two makes overlap

    def slow(text: str):  # type: ignore[no-untyped-def]
        def make() -> bytes:
            both_running.wait()
            return text.encode()
        return make

    lines: list[str] = []
    report = run_targets([_target("a.txt", slow("A")), _target("b/b.txt", slow("B")),
                          _target("c.txt", lambda: b"C")], tmp_path, lines.append, jobs=2)
    assert report.built == ["a.txt", "b/b.txt", "c.txt"]
    assert [line.split()[1] for line in lines] == ["built"] * 3
    assert [line.split()[0] for line in lines] == ["[1/3]", "[2/3]", "[3/3]"]
    assert (tmp_path / "b" / "b.txt").read_text() == "B"
    again = run_targets([_target("a.txt", slow("A")), _target("b/b.txt", slow("B")),
                         _target("c.txt", lambda: b"C")], tmp_path, jobs=2)
    assert again.built == [] and again.reused == ["a.txt", "b/b.txt", "c.txt"]


def test_one_job_makes_one_target_at_a_time(tmp_path: Path) -> None:
    running: list[str] = []
    overlaps: list[list[str]] = []

    def make(name: str):  # type: ignore[no-untyped-def]
        def inner() -> bytes:
            running.append(name)
            overlaps.append(list(running))
            threading.Event().wait(0.05)
            running.remove(name)
            return name.encode()
        return inner

    run_targets([_target(n, make(n)) for n in ("a", "b", "c")], tmp_path, jobs=1)
    assert overlaps == [["a"], ["b"], ["c"]]


def test_a_failed_target_stops_the_build_and_keeps_what_was_made(tmp_path: Path) -> None:
    made: list[str] = []

    def ok(name: str):  # type: ignore[no-untyped-def]
        def inner() -> bytes:
            made.append(name)
            return name.encode()
        return inner

    def broken() -> bytes:
        raise RuntimeError("notebook failed")

    targets = [_target("a", ok("a")), _target("b", broken), *(
        _target(f"later-{i}", ok(f"later-{i}")) for i in range(20))]
    with pytest.raises(RuntimeError, match="notebook failed"):
        run_targets(targets, tmp_path, jobs=2)
    assert (tmp_path / "a").read_bytes() == b"a" and not (tmp_path / "b").exists()
    assert not any((tmp_path / f"later-{i}").exists() for i in range(20))
    rerun = run_targets([_target("a", ok("a")), _target("b", lambda: b"b")], tmp_path, jobs=2)
    assert rerun.reused == ["a"] and rerun.built == ["b"]
