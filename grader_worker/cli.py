"""`pathways worker`: run a grader worker on a CPU or TPU host with only the queue's URL."""

from __future__ import annotations

import logging
import os
import sys
import threading

import click
from huey.consumer import Consumer

from grader_worker.config import GraderConfig, load_config
from grader_worker.errors import GraderError
from grading_contract.queues import Queues
from pathways import logs
from pathways.env import EnvError

logger = logging.getLogger(__name__)

IDLE_POLL_S = 0.1
"""The longest an idle worker thread waits before reading a polled grading queue (SQLite's)
again: how long a submission can wait for an idle worker. At huey's 1 s a learner on a quiet
system waited half a second on average before their run started (bench/README.md, "An idle
worker"); 0.1 s costs each idle run slot ten small reads a second."""
RETRY_PACE_S = 1.0
"""The same for a blocking queue (Redis: a blocked read gets a job as it arrives), where it
only paces the retries while the queue is down."""


def _require_cgroups(config: GraderConfig) -> None:
    """Refuse to start where runs would get no pids or memory cgroup, unless the operator
    accepts it: without one, a learner's fork bomb exhausts the host's tasks (docs/SANDBOX.md)."""
    from grader_worker.sandbox import cgroups
    from grader_worker.sweep import owner_tag

    problem = cgroups.unavailable(owner_tag(config.worker_name), config.cgroup_root)
    if problem is None:
        return
    if not config.allow_no_cgroup:
        raise click.ClickException(
            f"no per-run cgroup can be made here ({problem}): runs would have no pids or memory "
            "limit. Give the worker a delegated cgroup (systemd Delegate=yes, a container's "
            "cgroup namespace), or set PATHWAYS_GRADER_CGROUP_ROOT to one it may write; "
            "PATHWAYS_GRADER_ALLOW_NO_CGROUP=1 starts it anyway, with rlimits only.")
    logger.warning("running without per-run cgroups (PATHWAYS_GRADER_ALLOW_NO_CGROUP): no pids "
                   "limit for runs", extra={"error": problem})


def grading_consumer(queues: Queues, concurrency: int) -> Consumer:
    """huey's consumer of the grading queue: ``concurrency`` threads, SIGTERM finishes the jobs
    in hand, each idle thread reading a polled queue at least every ``IDLE_POLL_S``."""
    polled = not queues.grading.storage.blocking
    return queues.grading.create_consumer(workers=concurrency, worker_type="thread",
                                          graceful_signal="TERM", periodic=False,
                                          check_worker_health=True, initial_delay=0.1,
                                          max_delay=IDLE_POLL_S if polled else RETRY_PACE_S)


def _pending(queues: Queues) -> dict[str, int] | str:
    """The queues' depth for the start-up line; a queue that is down now is not a reason to
    stop (huey backs off reading it, sends retry)."""
    try:
        return queues.pending()
    except Exception as exc:  # noqa: BLE001 - logged as the state, the worker goes on
        return f"queue unreachable ({type(exc).__name__}); waiting for it"


def admitted(asked: int) -> int:
    """Admission control: no more runs at a time than this worker's CPUs (each run gets a
    whole core): a burst waits in the queue, it does not starve every run into a timeout."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = max(cores or 1, 1)
    if asked > cores:
        logger.warning("concurrency lowered to this worker's cores",
                       extra={"asked": asked, "cores": cores})
        return cores
    return asked


@click.command("worker")
@click.option("--platform", type=click.Choice(["cpu", "tpu"]), default=None,
              help="JAX_PLATFORMS for sandboxed runs (default: PATHWAYS_GRADER_PLATFORM or cpu).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Submissions graded at the same time (at most the CPUs it may use).")
@click.option("--check", is_flag=True,
              help="Health check: probe the sandbox (JAX inside bwrap) and the queue, then exit.")
@click.option("--log-level", envvar="PATHWAYS_LOG_LEVEL", default="INFO", show_default=True)
def worker(platform: str | None, concurrency: int, check: bool, log_level: str) -> None:
    """Grade submissions from the grading queue; SIGTERM finishes the running jobs, then stops."""
    from grader_worker.sandbox.process import adopt_orphans
    from grader_worker.worker import GraderWorker

    logs.configure(log_level)
    adopt_orphans()  # sandbox inits that bwrap leaves unreaped come to us, not to the host
    env = dict(os.environ)
    if platform:
        env["PATHWAYS_GRADER_PLATFORM"] = platform
    try:
        config = load_config(env)
    except EnvError as exc:  # names the variable, the type it needs and its documentation
        raise click.ClickException(str(exc)) from exc
    concurrency = admitted(concurrency)
    _require_cgroups(config)
    queues = Queues(config)
    grader = GraderWorker(config, queues)
    try:
        info = grader.runner.info()
    except GraderError as exc:
        grader.close()
        raise click.ClickException(str(exc)) from exc
    logger.info("worker ready", extra={"worker": grader.id, "platform": config.platform,
                                        "devices": info.device_count, "jax": info.jax,
                                        "concurrency": concurrency,
                                        "queue": "redis" if config.redis_url else "sqlite",
                                        "pending": _pending(queues)})
    if check:
        grader.close()
        click.echo(f"ok: {info.backend} x{info.device_count}, jax {info.jax}, "
                   f"{queues.pending()['grading']} job(s) waiting")
        return
    grader.state = f"ok, {concurrency} run(s) at a time"
    threading.Thread(target=grader.beat_forever, args=(config.heartbeat_s,), daemon=True,
                     name="heartbeat").start()
    consumer = grading_consumer(queues, concurrency)
    try:
        consumer.run()
    finally:
        grader.stopping.set()
        grader.close()
        logger.info("worker stopped", extra={"worker": grader.id})
        sys.stdout.flush()


@click.command("seed-pool")
@click.option("--per-variant", type=click.IntRange(0, 100_000), default=None,
              help="Entries per (exercise, variant) to fill up to (default: "
                   "PATHWAYS_GRADER_SEED_POOL_SIZE). 0: only print the pool's sizes.")
@click.option("--exercise", "exercises", multiple=True,
              help="Only this exercise id (repeatable; default: every function exercise "
                   "and project).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Reference runs at the same time (at most the CPUs it may use).")
@click.option("--variants", type=click.IntRange(1, 10_000), default=None,
              help="Only each exercise's first N variants (default: every one). With "
                   "--per-variant 1 and --variants 1: a smoke fill that runs every exercise's "
                   "reference once in this host's sandbox.")
@click.option("--log-level", envvar="PATHWAYS_LOG_LEVEL", default="WARNING", show_default=True)
def seed_pool(per_variant: int | None, exercises: tuple[str, ...], concurrency: int,
              variants: int | None, log_level: str) -> None:
    """Fill this host's grading seed pool before a class (docs/SEED_POOL.md): each entry is one
    sandboxed run of the reference, so a learner's submission takes one run instead of two.
    First the host's compilation cache is warmed with the course's public programs (each
    lesson's main.py), which every later run reads (docs/SANDBOX.md)."""
    from course import load_course
    from grader_worker import compile_cache
    from grader_worker.limits import Limits
    from grader_worker.seedpool.fill import Filled, fill
    from grader_worker.worker import course_checks_resolver, make_pool, make_runner

    logs.configure(log_level)
    try:
        config = load_config()
    except EnvError as exc:
        raise click.ClickException(str(exc)) from exc
    pool = make_pool(config)
    if pool is None:
        raise click.ClickException("PATHWAYS_GRADER_SEED_POOL is off: there is no pool to fill")
    wanted = config.seed_pool_size if per_variant is None else per_variant
    if wanted:
        _require_cgroups(config)
        course = load_course(config.course_root)
        ids = exercises or tuple(e.id for _, e in course.gradables() if e.function)

        def said(f: Filled) -> None:
            click.echo(f"{f.exercise_id} {f.variant or ''}: {f.size} entries (+{f.added})")

        runner = make_runner(config)
        try:
            programs = compile_cache.public_programs(course, exercises or None)
            warmed = runner.warm_compile_cache(programs, Limits(), admitted(concurrency))
            if runner.cache is not None:
                failed = f"; did not run cleanly: {', '.join(warmed.failed)}" \
                    if warmed.failed else ""
                click.echo(f"compile cache {runner.cache}: {warmed.programs} public programs "
                           f"run, +{warmed.entries} entries{failed}")
            fill(pool, runner, course_checks_resolver(config.course_root), ids,
                 per_key=wanted, concurrency=admitted(concurrency), variants=variants,
                 progress=said)
        except GraderError as exc:
            raise click.ClickException(str(exc)) from exc
        finally:
            runner.close()
    for exercise_id, n in pool.sizes().items():
        click.echo(f"{exercise_id}: {n} entries in {pool.path}")
