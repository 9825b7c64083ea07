"""bench/_budget.py: the CPU budget fails a run when a ratio to the floor is missed (issue 23);
latency and throughput targets are reported and fail only when asked. Pure: lines in, verdicts
out, so these run without a server."""

from __future__ import annotations

import sys

from bench_helpers import ROOT

sys.path.append(str(ROOT / "bench"))
import _budget  # noqa: E402


def _line(launch_ms: float, answer_ms: float, *, learners: int = 200, window: float = 0.0,
          p95: float = 100.0, p99: float = 200.0, per_s: float = 400.0) -> dict:
    floor = {"launch": {"cpu_ms_per_request": 1.5, "p95_ms": 30.0, "p99_ms": 40.0},
             "answer": {"cpu_ms_per_request": 1.2, "per_s": 500.0}}
    row = {"learners": learners, "ramp_s": 5.0, "window_s": window, "floor": floor,
           "cpu_ms_per_launch": launch_ms, "cpu_ms_per_answer": answer_ms,
           "launch": {"p95_ms": p95, "p99_ms": p99}, "answers_per_s": per_s,
           "over_floor": {"answer_throughput": round(500.0 / per_s, 2)}}
    row["cpu_over_floor"] = _budget.cpu_over_floor(row)
    row["targets"] = _budget.targets(row)
    return row


def test_a_launch_over_four_floor_launches_fails_the_run() -> None:
    assert _budget.missed(_line(17.9, 2.3)) == []  # 17.9 / (3 x 1.5) = 3.98
    assert _budget.missed(_line(18.1, 2.3)) == ["cpu per launch / floor's 3 requests"]


def test_an_answer_over_two_floor_requests_fails_the_run() -> None:
    assert _budget.missed(_line(10.0, 2.4)) == []
    assert _budget.missed(_line(10.0, 2.5)) == ["cpu per answer / floor's request"]


def test_latency_and_throughput_are_reported_and_gate_only_when_asked() -> None:
    slow = _line(10.0, 2.0, p95=900.0, p99=1500.0, per_s=120.0)
    assert _budget.missed(slow) == []
    assert _budget.missed(slow, gate_latency=True) == [
        "launch p95 ms", "launch p99 ms", "answers per s", "floor's answers per s / ours"]
    assert "launch p95 ms: 900.0 <= 250 (floor 30.0): missed (reported, not gated)" \
        in _budget.show(slow)


def test_a_tiny_run_reports_its_ratios_without_gating() -> None:
    tiny = _line(90.0, 9.0, learners=5, window=0.5)
    assert _budget.missed(tiny) == []
    assert [t["met"] for t in tiny["targets"] if t["target"].startswith("cpu")] == [False, False]
