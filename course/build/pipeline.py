"""Run build targets: each output is rebuilt only when its cache key changed, and every run
reports what it built and what it reused."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from course.build.cache import Input, Manifest, key_of

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Target:
    """One output file.

    name: path relative to the output folder (also its id in the cache manifest).
    inputs: what the output is made from (files, text, bytes) -> its cache key.
    make: returns the output's bytes (pure of the output folder, so a failure leaves no
        half-written file).
    owner: the lesson or project id it belongs to, or "site".
    """

    name: str
    inputs: tuple[Input, ...]
    make: Callable[[], bytes]
    owner: str = "site"


@dataclass
class BuildReport:
    """What a build did: output names built and reused, and the wall time."""

    out: Path
    built: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"{len(self.built)} built, {len(self.reused)} reused in {self.seconds:.1f} s "
                f"-> {self.out}")


def reuse_all(out: Path, fingerprint: str, progress: Progress | None = None
              ) -> BuildReport | None:
    """The no-change fast path: when nothing a build reads changed since the last complete
    build, report its outputs as reused without loading the course."""
    start = time.perf_counter()
    names = Manifest(out).tree_fresh(out, fingerprint)
    if names is None:
        return None
    if progress:
        progress(f"content, code and package versions unchanged: {len(names)} outputs reused")
    return BuildReport(out, reused=names, seconds=time.perf_counter() - start)


def _made(target: Target) -> tuple[bytes, float]:
    began = time.perf_counter()
    return target.make(), time.perf_counter() - began


def run_targets(targets: Iterable[Target], out: Path, progress: Progress | None = None,
                fingerprint: str | None = None, jobs: int = 2) -> BuildReport:
    """Make every target whose key changed; record ``fingerprint`` once all succeeded.

    Up to ``jobs`` targets are made at once (an executed notebook spends most of its time in
    its kernel process); outputs are written, recorded and reported in target order.
    """
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out)
    report = BuildReport(out)
    targets = list(targets)
    say = progress or (lambda line: None)
    stale: list[tuple[int, Target, str]] = []
    for index, target in enumerate(targets, start=1):
        key = key_of(target.name, target.inputs)
        if manifest.fresh(out, target.name, key):
            report.reused.append(target.name)
            say(f"[{index}/{len(targets)}] reused {target.name}")
        else:
            stale.append((index, target, key))
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            made = [pool.submit(_made, target) for _, target, _ in stale]
            try:
                for (index, target, key), future in zip(stale, made, strict=True):
                    data, seconds = future.result()
                    path = out / target.name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_name(path.name + ".tmp")
                    tmp.write_bytes(data)
                    tmp.replace(path)
                    manifest.record(target.name, key)
                    report.built.append(target.name)
                    say(f"[{index}/{len(targets)}] built  {target.name} ({seconds:.2f} s)")
            except BaseException:
                for future in made:  # a failed target stops the build: start nothing more
                    future.cancel()
                raise
        wanted = {t.name for t in targets}
        for stale_name in [n for n in manifest.keys if not n.startswith("@") and n not in wanted]:
            del manifest.keys[stale_name]  # an output no longer made (e.g. a removed lesson)
        if fingerprint is not None:
            manifest.keys[Manifest.TREE] = fingerprint
    finally:
        manifest.save()  # what was built before a failure stays reusable
    report.seconds = time.perf_counter() - start
    log.info("build: %s", report.summary())
    return report
