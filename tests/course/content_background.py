"""`course check`'s items for test_content_runs, run in the background for the whole session.

They are the suite's largest CPU cost and need nothing but CPU, while many other tests mostly
wait (on servers, browsers, leases). So the selected items start as soon as collection ends,
scheduled SCHED_IDLE (they run on CPU time the other tests leave; Linux gives such a task a
share of about 3/1024 against a normal one), and their tests run last and collect the results.
Their programs are forked from a server of their own, with the environment as it was at the
start: other tests' monkeypatching never reaches them. They share one JAX compilation cache,
as `course check` does (course.tools.execute.compile_cache): about half their CPU time. A
cached first call is about as fast as a later one, and an idle-class run's speed swings with
the other tests' load; the checks of calls on pending inputs hold anyway, because the harness
reports each call's own wait, read beside the call (transforms-01 first-vs-later failed once
when the wait was timed apart from the call, 2026-12-04).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack

from course.tools import forkserver
from course.tools.checking import Item, ItemResult, run_item
from course.tools.execute import DEFAULT_TIMEOUT_S, child_env, compile_cache

TEST_NAME = "test_item_runs_and_matches_its_record"
WORKERS = 2
PLAIN_FIRST = ("main", "build", "experiment", "figure")
"""Kinds run before the exercise items: a lesson's plain programs, which the notebook kernels
of tests/course/test_build.py (a lesson of each phase) run again reading the same compilation
cache; in plan order they finished lesson by lesson over the first ~11 minutes."""
TIMEOUT_S = 3 * DEFAULT_TIMEOUT_S
"""Per program, tripled: an idle-class run waits while the other tests keep both cores busy
(still under pytest's 600 s per test, so a program that hangs fails its test clearly)."""


def _idle_class(pid: int) -> None:
    """SCHED_IDLE for ``pid``; a fork inherits it."""
    os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))


class Background:
    def __init__(self, items: list[Item]) -> None:
        self.stack = ExitStack()
        env = self.stack.enter_context(compile_cache(child_env()))
        self.server = forkserver.start(env)  # None: cold runs, at normal priority
        if self.server is not None:
            _idle_class(self.server.pid)  # its forks inherit it
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, initializer=self._thread_start,
                                       thread_name_prefix="content-run")
        ordered = sorted(items, key=lambda item: item.kind not in PLAIN_FIRST)  # stable
        self.futures: dict[str, Future[ItemResult]] = {
            item.id: self.pool.submit(run_item, item, TIMEOUT_S) for item in ordered}

    def _thread_start(self) -> None:
        # These threads stay normal: an idle-class thread holding this process's GIL while
        # the cores are busy would stall the tests running in it.
        forkserver.use_in_this_thread(self.server)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.server is not None:
            self.server.close()
        self.stack.close()
