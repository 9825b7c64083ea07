"""`record`: re-run a lesson's main.py and figure script and rewrite their records.

receipt.json gets the printed output and its provenance; the figure script rewrites
figure/data.json and figure/figure.png itself. Nothing is written when a run fails, so a
broken change never replaces a good record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from course.errors import Problem
from course.model import Course, Lesson
from course.schemas import FigureDataSchema, load_document
from course.tools.execute import DEFAULT_TIMEOUT_S, probe_environment, run_python
from course.yamlsource import YamlDoc


@dataclass(frozen=True)
class RecordResult:
    lesson_id: str
    what: str  # receipt | figure
    ok: bool
    seconds: float
    detail: str = ""


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_receipt(lesson: Lesson, environment: dict,
                   timeout: float = DEFAULT_TIMEOUT_S) -> RecordResult:
    root = lesson.dir.parent.parent.parent
    run = run_python([str(lesson.main_path)], cwd=root, timeout=timeout, kept_cache=False)
    if not run.ok:
        return RecordResult(lesson.id, "receipt", False, run.seconds,
                            f"code/main.py failed, receipt.json kept: {run.describe_failure()}")
    receipt = {
        "schema": 1,
        "command": f"python {lesson.relpath}/code/main.py",
        "output": run.stdout,
        "provenance": {**environment, "source_sha256": sha256_of(lesson.main_path)},
    }
    (lesson.dir / "receipt.json").write_text(json.dumps(receipt, indent=2) + "\n",
                                             encoding="utf-8")
    return RecordResult(lesson.id, "receipt", True, run.seconds,
                        f"{len(run.stdout.splitlines())} lines of output")


def record_figure(lesson: Lesson, timeout: float = DEFAULT_TIMEOUT_S) -> RecordResult:
    figure = lesson.figure
    run = run_python([str(figure.script_path)], cwd=figure.script_path.parent, timeout=timeout,
                     kept_cache=False)
    if not run.ok:
        return RecordResult(lesson.id, "figure", False, run.seconds,
                            f"figure/make_figure.py failed: {run.describe_failure()}")
    problems: list[Problem] = []
    if not figure.data_path.is_file() or not figure.image_path.is_file():
        return RecordResult(lesson.id, "figure", False, run.seconds,
                            "figure/make_figure.py must write data.json and figure.png next "
                            "to itself")
    try:
        data = json.loads(figure.data_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return RecordResult(lesson.id, "figure", False, run.seconds,
                            f"figure/data.json is not JSON: {exc}")
    _, problems = load_document("figure-data", FigureDataSchema(), YamlDoc(data, None),
                                "figure/data.json")
    if problems:
        return RecordResult(lesson.id, "figure", False, run.seconds,
                            "figure/data.json does not match its schema:\n  "
                            + "\n  ".join(str(p) for p in problems))
    return RecordResult(lesson.id, "figure", True, run.seconds, "data.json and figure.png")


def record(course: Course, lesson_id: str | None = None, *, workers: int = 2,
           timeout: float = DEFAULT_TIMEOUT_S,
           on_result: Callable[[RecordResult], None] | None = None) -> list[RecordResult]:
    """Rewrite the receipts and figures of every lesson (or of one)."""
    lessons = [x for x in course.lessons() if lesson_id in (None, x.id)]
    environment = probe_environment(course.root, timeout)
    results: list[RecordResult] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(record_receipt, lesson, environment, timeout)
                   for lesson in lessons]
        futures += [pool.submit(record_figure, lesson, timeout) for lesson in lessons]
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            if on_result is not None:
                on_result(result)
    return sorted(results, key=lambda r: (r.lesson_id, r.what))
