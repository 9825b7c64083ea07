"""The lecture hall's simulated learners and the floor's clients, against a live server
(``checkpoint_load.py`` runs them): each learner launches (OIDC login, signed launch, lesson
page), waits until every learner has launched, then answers the checkpoint once."""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import _results
from _http import Client, HttpError
from _platform import BenchPlatform
from _server import BenchSetupError

from course import load_course
from lti_service.core.tokens import Launch, seal

LESSON = "arrays-04"
CONTENT_ID = LESSON + ".checkpoint"
LINK_ID = "bench-link-1"
LEARNER_PREFIX = "learner-"
WARMUP_PREFIX = "warmup-"


def checkpoint_choices() -> list[Any]:
    lesson = load_course().lesson(LESSON)
    if lesson is None:
        raise BenchSetupError(f"the packaged course has no lesson {LESSON}")
    return list(lesson.checkpoint.choices)


@dataclass
class Tally:
    """What happened to every learner, filled in as requests finish."""

    launch_s: list[float] = field(default_factory=list)
    answer_s: list[float] = field(default_factory=list)
    answer_times: list[tuple[float, float]] = field(default_factory=list)
    requests: int = 0
    answers_sent: int = 0
    answers_ok: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    phase_s: float = 0.0
    cpu_s: list[float] = field(default_factory=list)
    """The service's CPU seconds at the start, when all had launched, and at the end."""

    def error(self, step: str, detail: str) -> None:
        self.errors[step] = self.errors.get(step, 0) + 1
        if len(self.error_samples) < 5:
            self.error_samples.append(f"{step}: {detail[:300]}")


class StepFailed(Exception):
    pass


def _expect(step: str, response: Any, status: int) -> None:
    if response.status != status:
        raise StepFailed(f"{step}: HTTP {response.status}, expected {status}: "
                         f"{response.body[:200]!r}")


async def launch(client: Client, tool: str, lms: BenchPlatform, sub: str, tally: Tally,
                 *, instructor: bool = False) -> tuple[int, str]:
    """OIDC login, signed launch, lesson page; returns (placement id, launch token)."""
    login = await client.get(tool + "/lti/login", params={
        "iss": lms.issuer, "login_hint": sub, "target_link_uri": tool + "/lti/launch",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id})
    tally.requests += 1
    _expect("login", login, 302)
    query = parse_qs(urlsplit(login.header("location") or "").query)
    if "state" not in query or "nonce" not in query:
        raise StepFailed(f"login: redirect without state/nonce: {login.header('location')!r}")
    token = lms.id_token(sub=sub, nonce=query["nonce"][0], link_id=LINK_ID,
                         content_id=CONTENT_ID, instructor=instructor)
    posted = await client.post_form(tool + "/lti/launch",
                                    {"id_token": token, "state": query["state"][0]})
    tally.requests += 1
    _expect("launch", posted, 302)
    page_url = tool + (posted.header("location") or "").removeprefix(tool)
    parts = urlsplit(page_url)
    if not parts.path.startswith("/learn/") or "lt" not in parse_qs(parts.query):
        raise StepFailed(f"launch: redirected to {page_url!r}, not a lesson page")
    page = await client.get(page_url)
    tally.requests += 1
    _expect("lesson page", page, 200)
    return int(parts.path.split("/")[2]), parse_qs(parts.query)["lt"][0]


@dataclass
class Phases:
    """Answers start only when every learner has launched (the question is on their screens):
    the answer figures then measure the answer path, not a queue of lesson pages."""

    expected: int
    launched: int = 0
    answers_from: asyncio.Event = field(default_factory=asyncio.Event)
    t0: float = 0.0
    on_all_launched: Any = None

    def one_launched(self) -> None:
        self.launched += 1
        if self.launched >= self.expected and not self.answers_from.is_set():
            self.t0 = time.perf_counter()
            if self.on_all_launched is not None:
                self.on_all_launched()
            self.answers_from.set()


async def learner(sub: str, tool: str, lms: BenchPlatform, tally: Tally, phases: Phases, *,
                  start_at: float, answer_offset: float | None, choices: list[str]) -> None:
    """Launch at ``start_at``; answer ``answer_offset`` s after everyone launched (None: don't)."""
    client = Client()
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    begun = time.perf_counter()
    try:
        placement_id, token = await launch(client, tool, lms, sub, tally)
    except (HttpError, StepFailed) as exc:
        tally.error("launch", str(exc))
        return
    finally:
        phases.one_launched()
    tally.launch_s.append(time.perf_counter() - begun)
    if answer_offset is None:
        return
    await phases.answers_from.wait()
    await asyncio.sleep(max(0.0, phases.t0 + answer_offset - time.perf_counter()))
    sent = time.perf_counter()
    tally.answers_sent += 1
    tally.requests += 1
    try:
        answer = await client.post_json(
            f"{tool}/api/placements/{placement_id}/checkpoint-answers",
            {"choice": random.choice(choices)}, headers={"X-Pathways-Launch": token})
        _expect("answer", answer, 201)
    except (HttpError, StepFailed) as exc:
        tally.error("answer", str(exc))
        return
    done = time.perf_counter()
    tally.answers_ok += 1
    tally.answer_s.append(done - sent)
    tally.answer_times.append((sent, done))


async def warm_up(tool: str, lms: BenchPlatform, workers: int, choices: list[str]) -> None:
    """The instructor opens the link first (as after deep linking: the placement and the
    context exist), then a few warm-up learners launch and answer, so every worker has loaded
    the course before the measured learners arrive: a lecture hall meets a running server."""
    scratch = Tally()
    await launch(Client(), tool, lms, "instructor-0", scratch, instructor=True)
    now = time.perf_counter()
    phases = Phases(3 * workers)
    await asyncio.gather(*(
        learner(f"{WARMUP_PREFIX}{i:03d}", tool, lms, scratch, phases, start_at=now,
                answer_offset=0.0, choices=choices)
        for i in range(phases.expected)))
    if scratch.errors:
        raise BenchSetupError(f"warm-up failed: {scratch.error_samples}")


async def drive(tool: str, lms: BenchPlatform, n: int, args: argparse.Namespace,
                cpu: Any = lambda: 0.0) -> Tally:
    ramp_s, window_s, max_s = args.ramp, args.window, args.max_seconds
    tally = Tally()
    choices = [c.key for c in checkpoint_choices()]
    await warm_up(tool, lms, args.workers, choices)
    now = time.perf_counter()
    tally.cpu_s.append(cpu())
    phases = Phases(n, on_all_launched=lambda: tally.cpu_s.append(cpu()))
    tasks = [
        asyncio.create_task(learner(
            f"{LEARNER_PREFIX}{i:05d}", tool, lms, tally, phases,
            start_at=now + random.uniform(0, ramp_s),
            answer_offset=None if args.launch_only
            else (random.uniform(0, window_s) if window_s else 0.0), choices=choices))
        for i in range(n)
    ]
    done, pending = await asyncio.wait(tasks, timeout=max_s)
    tally.phase_s = time.perf_counter() - now
    tally.cpu_s.append(cpu())
    for task in pending:
        task.cancel()
        tally.error("unfinished", f"stopped at --max-seconds {max_s}")
    if pending:
        await asyncio.wait(pending)
    return tally


async def floor_user(client: Client, url: str, token: str, start_at: float, requests: int,
                     took: list[float], ends: list[float], errors: list[str]) -> None:
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    sent = time.perf_counter()
    try:
        for _ in range(requests):
            answer = await client.post_json(url, {"choice": "a"},
                                            headers={"Authorization": "Bearer " + token})
            _expect("floor", answer, 201)
    except (HttpError, StepFailed) as exc:
        errors.append(str(exc))
        return
    took.append(time.perf_counter() - sent)
    ends.append(time.perf_counter())


async def drive_floor(server_url: str, secret: str, offsets: list[float],
                      requests: int, cpu: Any = lambda: 0.0) -> dict[str, Any]:
    """Learner i starts at ``offsets[i]`` and sends ``requests`` floor requests in turn."""
    tokens = [seal(Launch(user_id=i + 1, placement_id=1, context_pk=1, is_instructor=False,
                          launch_id=f"floor-{i}"), secret) for i in range(len(offsets))]
    took: list[float] = []
    ends: list[float] = []
    errors: list[str] = []
    cpu_before = cpu()
    now = time.perf_counter()
    await asyncio.gather(*(
        floor_user(Client(), server_url + "/floor", token, now + offset, requests, took, ends,
                   errors) for token, offset in zip(tokens, offsets, strict=True)))
    first = now + min(offsets, default=0.0)
    span = max(ends, default=first) - first
    return {"users": len(offsets), "requests_each": requests, "ok": len(took),
            "errors": len(errors), "error_samples": errors[:3],
            "per_s": round(len(took) * requests / span, 1) if span > 0 else None,
            "cpu_ms_per_request": round(1000 * (cpu() - cpu_before) / (len(took) * requests), 2)
            if took else None,
            **_results.percentiles_ms(took)}
