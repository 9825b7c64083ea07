"""Which step of a launch and an answer costs what CPU, beside the floor, in-process (issue 23).

One Flask app (the factory, on a fresh SQLite file or PostgreSQL database), the bench's own
platform serving its JWKS on loopback, and ``--learners`` learners through the Flask test
client, each: OIDC login, signed launch, lesson page, one checkpoint answer. Then the floor
(``bench/_floor.py``: a bearer-token check and one INSERT) on the same database, through the same
test client, ``--learners`` x 4 requests. Each step's CPU time is this process's
(``time.process_time``, so other jobs on the machine do not inflate it; the id_token is signed
outside it), after one warm-up learner (course, lesson body, key set) and a warm-up of the
floor. No network, no gunicorn: what is left is the service's own work per request, which is
what the budget is about (``checkpoint_load.py`` reads the same ratio from the gunicorn workers
under load).

The ratios printed are the budget's (a launch over the floor's three requests, an answer over
the floor's one) without gunicorn and HTTP, which both sides pay alike: they read stricter than
the gate's, which is ``checkpoint_load.py``'s (``bench/_budget.py``), so this script reports and
does not fail on them. Appends one JSON line per database to bench/results/cpu_budget.jsonl.

    .venv/bin/python -P bench/cpu_budget.py [--db sqlite|postgres|both] [--learners 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]

from lti_service import create_app  # noqa: E402
from lti_service.core.db import make_engine, upgrade  # noqa: E402
from lti_service.core.extensions import state  # noqa: E402
from lti_service.core.tokens import Launch, seal  # noqa: E402
from lti_service.lti.service.platforms import add_platform  # noqa: E402

sys.path.append(str(BENCH))
import _budget  # noqa: E402
import _floor  # noqa: E402
import _results  # noqa: E402
from _platform import BenchPlatform  # noqa: E402
from _server import fresh_database  # noqa: E402
from profile_paths import CONTENT_ID, LINK_ID, platform_thread  # noqa: E402

JSONL = _results.RESULTS / "cpu_budget.jsonl"
STEPS = ("login", "launch", "page", "answer")
LAUNCH_BUDGET = _budget.CPU_LAUNCH_OVER_FLOOR
ANSWER_BUDGET = _budget.CPU_ANSWER_OVER_FLOOR
SECRET = "cpu-budget"


def _cpu(call: Any, into: dict[str, float], step: str) -> Any:
    began = time.process_time()
    try:
        return call()
    finally:
        into[step] += time.process_time() - began


def one_learner(client: Any, lms: BenchPlatform, sub: str, cpu: dict[str, float]) -> None:
    """Login, launch, page, answer for ``sub``; each step's CPU seconds added to ``cpu``."""
    login = _cpu(lambda: client.get("/lti/login", query_string={
        "iss": lms.issuer, "login_hint": sub, "target_link_uri": "http://localhost/lti/launch",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id}), cpu, "login")
    assert login.status_code == 302, login.get_data(as_text=True)[:300]
    query = parse_qs(urlsplit(login.headers["Location"]).query)
    token = lms.id_token(sub=sub, nonce=query["nonce"][0], link_id=LINK_ID,
                         content_id=CONTENT_ID)  # the LMS's work: not counted
    launched = _cpu(lambda: client.post("/lti/launch", data={
        "id_token": token, "state": query["state"][0]}), cpu, "launch")
    assert launched.status_code in (200, 302), launched.get_data(as_text=True)[:300]
    page_url = launched.headers.get("Location")
    if page_url:  # a redirect to the lesson page: its own request
        page = _cpu(lambda: client.get(page_url), cpu, "page")
        assert page.status_code == 200
    parts = urlsplit(page_url or "")
    placement = parts.path.split("/")[2]
    lt = parse_qs(parts.query)["lt"][0]
    answer = _cpu(lambda: client.post(
        f"/api/placements/{placement}/checkpoint-answers", json={"choice": "a"},
        headers={"X-Pathways-Launch": lt}), cpu, "answer")
    assert answer.status_code == 201, answer.get_data(as_text=True)[:300]


def floor_cpu(url: str, requests: int) -> float:
    """CPU seconds per floor request, through the same test client on the same database."""
    _floor.prepare(url)
    engine = make_engine(url)
    try:
        client = _floor.create_app(engine, SECRET).test_client()
        headers = {"Authorization": "Bearer " + seal(Launch(
            user_id=1, placement_id=1, context_pk=1, is_instructor=False,
            launch_id="floor"), SECRET)}
        spent = {"floor": 0.0}
        for i in range(requests + 20):
            if i == 20:  # warm-up done
                spent["floor"] = 0.0
            r = _cpu(lambda: client.post("/floor", json={"choice": "a"}, headers=headers),
                     spent, "floor")
            assert r.status_code == 201, r.get_data(as_text=True)[:300]
        return spent["floor"] / requests
    finally:
        engine.dispose()


def run(kind: str, learners: int) -> dict[str, Any]:
    load_before = _results.loadavg()
    with tempfile.TemporaryDirectory(prefix="pw-cpu-") as tmp_name, \
            fresh_database(kind, Path(tmp_name)) as url, platform_thread() as lms:
        upgrade(url)
        app = create_app({"database_url": url, "var_dir": Path(tmp_name) / "var",
                          "secret_key": SECRET, "tool_base_url": "http://localhost",
                          "outbound_allow_private": True})
        with state(app).sessions() as session:
            add_platform(session, **lms.registration())
            session.commit()
        one_learner(app.test_client(), lms, "warm-0", dict.fromkeys(STEPS, 0.0))
        cpu = dict.fromkeys(STEPS, 0.0)
        for i in range(learners):
            one_learner(app.test_client(), lms, f"learner-{i}", cpu)
        state(app).engine.dispose()
        floor = floor_cpu(url, learners * 4)
    per = {step: round(1000 * cpu[step] / learners, 3) for step in STEPS}
    launch = per["login"] + per["launch"] + per["page"]
    floor_ms = 1000 * floor
    row = {
        "bench": "cpu_budget", "db": kind, "learners": learners,
        "cpu_ms_per_step": per,
        "cpu_ms_per_launch": round(launch, 3), "cpu_ms_per_answer": per["answer"],
        "floor_cpu_ms_per_request": round(floor_ms, 3),
        "launch_over_floor": round(launch / (3 * floor_ms), 2),
        "answer_over_floor": round(per["answer"] / floor_ms, 2),
        "budget": {"launch_over_floor": LAUNCH_BUDGET, "answer_over_floor": ANSWER_BUDGET},
        "loadavg_before": load_before, "loadavg_after": _results.loadavg(),
        **_results.environment(),
    }
    row["met"] = (row["launch_over_floor"] <= LAUNCH_BUDGET
                  and row["answer_over_floor"] <= ANSWER_BUDGET)
    return row


def show(row: dict[str, Any]) -> str:
    per = row["cpu_ms_per_step"]
    verdict = "within" if row["met"] else "over"
    return (f"{row['db']:8} {row['learners']} learners, in-process CPU ms per request: "
            f"login {per['login']}, id_token {per['launch']}, page {per['page']}, answer "
            f"{per['answer']}; floor {row['floor_cpu_ms_per_request']}\n"
            f"{'':8} launch {row['cpu_ms_per_launch']} ms = x{row['launch_over_floor']} the "
            f"floor's three (budget x{LAUNCH_BUDGET}); answer x{row['answer_over_floor']} the "
            f"floor's one (budget x{ANSWER_BUDGET}): {verdict} (in-process: read, not gated); load "
            f"{row['loadavg_before'][0]}->{row['loadavg_after'][0]}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    p.add_argument("--learners", type=int, default=200)
    p.add_argument("--results", type=Path, default=JSONL)
    args = p.parse_args(argv)
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    for kind in kinds:
        row = run(kind, max(1, args.learners))
        _results.append(args.results, row)
        print(show(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
