"""`course check`'s items for test_content_runs, run in the background for the whole session.

They are the suite's largest CPU cost and need nothing but CPU, while many other tests mostly
wait (on servers, browsers, leases). So the selected items start as soon as collection ends, at
a lower CPU priority (they take what the other tests leave), and their tests run last and
collect the results. Their programs are forked from a server of their own, with the environment
as it was at the start: other tests' monkeypatching never reaches them.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor

from course.tools import forkserver
from course.tools.checking import Item, ItemResult, run_item
from course.tools.execute import DEFAULT_TIMEOUT_S, child_env

TEST_NAME = "test_item_runs_and_matches_its_record"
WORKERS = 2
NICENESS = 10
"""Weight ~1/10 of a normal process: idle CPU goes to the items, busy CPU to the other tests."""
TIMEOUT_S = 2 * DEFAULT_TIMEOUT_S
"""Per program; doubled because a low-priority run can wait while the machine is busy."""


class Background:
    def __init__(self, items: list[Item]) -> None:
        self.server: forkserver.ForkServer | None
        try:
            self.server = forkserver.ForkServer(child_env())
            os.setpriority(os.PRIO_PROCESS, self.server.pid, NICENESS)  # its forks inherit it
        except (OSError, RuntimeError):
            self.server = None  # cold runs, still at low priority (below)
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, initializer=self._thread_start,
                                       thread_name_prefix="content-run")
        self.futures: dict[str, Future[ItemResult]] = {
            item.id: self.pool.submit(run_item, item, TIMEOUT_S) for item in items}

    def _thread_start(self) -> None:
        forkserver.use_in_this_thread(self.server)
        # A cold run (no server) inherits the thread's priority (Linux: per thread).
        os.setpriority(os.PRIO_PROCESS, 0, NICENESS)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.server is not None:
            self.server.close()
