"""Profile the launch and the answer in-process: SQL statements per request and cProfile's top
lines, without gunicorn or a network load generator in the way.

One Flask app (the factory, on a fresh SQLite file or PostgreSQL database), the bench's own
platform serving its JWKS on loopback, and ``--learners`` learners through the Flask test
client: OIDC login, signed launch, lesson page, one checkpoint answer. The first learner warms
the caches (course, lesson page, key set) and is not measured. Prints, per step, the SQL
statements per request and the mean milliseconds, then the top ``--top`` functions by
cumulative time for the launch (login + launch + page) and for the answer.

    .venv/bin/python -P bench/profile_paths.py [--db sqlite|postgres] [--learners 40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import pstats
import re
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]

from sqlalchemy import event  # noqa: E402

from lti_service import create_app  # noqa: E402
from lti_service.core.db import upgrade  # noqa: E402
from lti_service.core.extensions import state  # noqa: E402
from lti_service.lti.service.platforms import add_platform  # noqa: E402

sys.path.append(str(BENCH))
from _platform import BenchPlatform  # noqa: E402
from _server import fresh_database  # noqa: E402

CONTENT_ID = "arrays-04.checkpoint"
LINK_ID = "profile-link"
STEPS = ("login", "launch", "page", "answer")


class Counter:
    """SQL statements the app's engine executes, per step."""

    def __init__(self) -> None:
        self.step = ""
        self.counts: dict[str, int] = dict.fromkeys(STEPS, 0)
        self.last: dict[str, list[str]] = {name: [] for name in STEPS}

    def __call__(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if self.step:
            self.counts[self.step] += 1
            self.last[self.step].append(" ".join(statement.split())[:110])

    def begin(self, step: str) -> None:
        self.step = step
        self.last[step] = []


@contextlib.contextmanager
def platform_thread() -> Iterator[BenchPlatform]:
    """The bench platform's JWKS server on its own event loop thread."""
    loop = asyncio.new_event_loop()
    lms = loop.run_until_complete(BenchPlatform().start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield lms
    finally:
        asyncio.run_coroutine_threadsafe(lms.stop(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def one_learner(client: Any, lms: BenchPlatform, sub: str, counter: Counter,
                times: dict[str, float], profiles: dict[str, cProfile.Profile] | None) -> None:
    def step(name: str, call: Any) -> Any:
        counter.begin(name)
        prof = profiles["answer" if name == "answer" else "launch"] if profiles else None
        began = time.perf_counter()
        if prof:
            prof.enable()
        try:
            return call()
        finally:
            if prof:
                prof.disable()
            times[name] += time.perf_counter() - began
            counter.step = ""

    login = step("login", lambda: client.get("/lti/login", query_string={
        "iss": lms.issuer, "login_hint": sub, "target_link_uri": "http://localhost/lti/launch",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id}))
    assert login.status_code == 302, login.get_data(as_text=True)[:300]
    query = parse_qs(urlsplit(login.headers["Location"]).query)
    token = lms.id_token(sub=sub, nonce=query["nonce"][0], link_id=LINK_ID,
                         content_id=CONTENT_ID)
    launched = step("launch", lambda: client.post("/lti/launch", data={
        "id_token": token, "state": query["state"][0]}))
    assert launched.status_code == 302, launched.get_data(as_text=True)[:300]
    page_url = launched.headers["Location"]
    page = step("page", lambda: client.get(page_url))
    assert page.status_code == 200
    parts = urlsplit(page_url)
    placement = parts.path.split("/")[2]
    lt = parse_qs(parts.query)["lt"][0]
    answer = step("answer", lambda: client.post(
        f"/api/placements/{placement}/checkpoint-answers", json={"choice": "a"},
        headers={"X-Pathways-Launch": lt}))
    assert answer.status_code == 201, answer.get_data(as_text=True)[:300]


# Request plumbing every line would share (the test client, Flask's dispatch, this script).
PLUMBING = re.compile(r"\b(testing|test|app|proxy_fix|profile_paths|state_changes|deprecations)"
                      r"\.py:|sqlalchemy generated")


def top_lines(profile: cProfile.Profile, n: int, order: str = "cumulative") -> str:
    out = io.StringIO()
    pstats.Stats(profile, stream=out).strip_dirs().sort_stats(order).print_stats(n + 25)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    kept = [line for line in lines[start + 1:] if line.strip() and not PLUMBING.search(line)]
    return "\n".join([lines[start], *kept[:n]])


def run(kind: str, learners: int, top: int, show_sql: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="pw-profile-") as tmp_name, \
            fresh_database(kind, Path(tmp_name)) as url, platform_thread() as lms:
        upgrade(url)
        app = create_app({"database_url": url, "var_dir": Path(tmp_name) / "var",
                          "secret_key": "profile", "tool_base_url": "http://localhost",
                          "outbound_allow_private": True})
        with state(app).sessions() as session:
            add_platform(session, **lms.registration())
            session.commit()
        counter = Counter()
        event.listen(state(app).engine, "before_cursor_execute", counter)
        times = dict.fromkeys(STEPS, 0.0)
        one_learner(app.test_client(), lms, "warm-0", Counter(), dict(times), None)
        profiles = {"launch": cProfile.Profile(), "answer": cProfile.Profile()}
        for i in range(learners):
            one_learner(app.test_client(), lms, f"learner-{i}", counter, times, profiles)
        state(app).engine.dispose()
        fetches = lms.jwks_fetches
    report = [f"{kind}: {learners} learners, platform key set fetched {fetches} times"]
    for name in STEPS:
        report.append(f"  {name:7} {counter.counts[name] / learners:5.1f} SQL statements, "
                      f"{times[name] / learners * 1000:6.1f} ms per request (profiled)")
    if show_sql:
        for name in STEPS:
            report.append(f"\n{name}: the last learner's statements")
            report.extend("    " + sql for sql in counter.last[name])
    for name, prof in profiles.items():
        for order in ("cumulative", "tottime"):
            report.append(f"\n{name} (cProfile, by {order}, top {top}):\n"
                          f"{top_lines(prof, top, order)}")
    return "\n".join(report)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--learners", type=int, default=40)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--sql", action="store_true", help="list the last learner's statements")
    args = p.parse_args(argv)
    print(run(args.db, max(1, args.learners), args.top, args.sql))
    return 0


if __name__ == "__main__":
    sys.exit(main())
