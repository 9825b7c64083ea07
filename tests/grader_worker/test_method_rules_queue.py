"""Each method rule, through the real queue and a real `pathways worker` in its sandbox.

For every rule one counterexample that scored full marks before the rules were judged on
behaviour (name rules, the last `def`, harness-supplied static arguments, `>= 0` timings,
fixed losses) is sent as a learner would send it: it loses exactly the rule's points and
stays within the bound its file declares (what `pathways course check` also proves, there
without the sandbox). That each exercise's reference keeps full marks in the warm sandbox is
test_queue.py's (every exercise, run once into conftest's ``course_pool``); the worker here
draws from a copy of that pool, so each counterexample takes one sandboxed run and the
references do not run again.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from conftest import CoursePool
from grader_helpers import collect, drawing_from, start_worker, worker_env

from course import load_course, submission_for
from course.tools.exercise_items import read_counterexample
from course.variants import render
from grader_worker.config import load_config
from grading_contract.queues import Queues
from grading_contract.result import result_from_dict

CASES = {
    # rule: (exercise, counterexample, the failing check's title contains)
    "final binding (decoy def)": ("transforms-03.exercise.batched-scores", "decoy-def",
                                  "one batched program"),
    "vectorised (unused vmap)": ("transforms-03.exercise.batched-scores", "unused-vmap",
                                 "one batched program"),
    "loops (unused scan)": ("transforms-04.exercise.spring-scan", "unused-scan",
                            "keeps the loop"),
    "functional update (bare .at)": ("arrays-04.exercise.mask-tail", "unused-at", "scatter"),
    "reverse mode through the loop": ("transforms-04.exercise.root-fori-grad", "hand-slope",
                                      "differentiates through the loop"),
    "own jit, compilations counted": ("transforms-01.exercise.static-length", "decoy-def",
                                      "compiled once per distinct signature"),
    "no callback under jit": ("arrays-04.exercise.fixed-shape-mask", "numpy-callback",
                              "works under jax.jit"),
    "measured timings": ("transforms-01.exercise.first-vs-later", "zero-times",
                         "durations it measured"),
    "loss drawn at grading time": ("transforms-02.exercise.pytree-sgd-step", "hand-gradient",
                                   "matches the reference"),
    "project: own jit": ("project.transforms-fit", "no-jit",
                         "compiled once per distinct signature"),
    "host round trip (does not trace)": ("arrays-01.exercise.edit-on-host", "at-update",
                                         "edits a NumPy copy on the host"),
    "placement read from the result": ("arrays-01.exercise.explicit-placement",
                                       "no-placement", "committed to cpu:0"),
    "blocking seen on a pending input": ("arrays-01.exercise.blocked-timer", "unblocked",
                                         "waits until its results are ready"),
    "dtype of the product": ("arrays-02.exercise.weak-int-overflow", "float-product",
                             "computes its product in int32"),
    "traces and callbacks counted": ("arrays-03.exercise.count-traces", "runs-by-formula",
                                     "reports the traces and runs it observed"),
    "element-wise select": ("transforms-04.exercise.huber-where", "mask-blend",
                            "chooses element by element"),
    "one pass of value_and_grad": ("transforms-02.exercise.mse-value-and-grad",
                                   "no-value-and-grad", "in one pass"),
    "hand gradient of a drawn function": ("transforms-02.exercise.directional-check",
                                          "hand-gradient", "matches the reference"),
}
PHASE_03 = {
    # Phase 03 (issue 28), born on the behaviour model; optax is imported in the sandbox.
    "per-example keys (loop over split keys)": ("randomness-01.exercise.per-example-noise",
                                                "python-loop", "one batched program"),
    "optax state carried (Adam restarted each step)": ("randomness-03.exercise.adam-steps",
                                                       "fresh-state", "matches the reference"),
    "project: a parameter pytree the grader chooses": (
        "project.train-from-scratch", "fixed-layout", "runs on every hidden input"),
    "project: resumed run equals the straight one": ("project.train-from-scratch",
                                                     "partial-checkpoint",
                                                     "equals the straight run"),
}


def _jobs(course, cases: dict,  # noqa: ANN001
          references: bool = True) -> dict[str, tuple[str, float, str, str]]:
    """submission id -> (exercise id, bound, failing title, main.py); with each case's
    exercise's reference too (``references``)."""
    jobs: dict[str, tuple[str, float, str, str]] = {}
    for rule, (exercise_id, name, title) in cases.items():
        lesson, exercise = course.exercise(exercise_id)
        variant = (exercise.variants or [{}])[0]
        path = exercise.checks_path.parent / "counterexamples" / f"{name}.py"
        cheat = read_counterexample(path, exercise)
        jobs[f"{rule}:cheat"] = (exercise_id, cheat.bound, title,
                                 submission_for(lesson, exercise, render(cheat.code, variant)))
        if not references:
            continue
        reference = submission_for(lesson, exercise, exercise.for_variant(variant).solution_code)
        jobs.setdefault(f"{exercise_id}:reference", (exercise_id, exercise.max_points, "",
                                                      reference))
    return jobs



def _send(queues: Queues, course, jobs: dict) -> dict[str, dict]:  # noqa: ANN001
    """Enqueue ``jobs`` (``_jobs``'s) in each exercise's first variant; the jobs as sent, for
    ``collect(retry=...)``."""
    sent = {sid: {"submission_id": sid, "attempt": 1, "exercise_id": exercise_id,
                  "source": source, "limits": {}, "enqueued_at": time.time(),
                  "variant": dict((course.exercise(exercise_id)[1].variants or [{}])[0])}
            for sid, (exercise_id, _, _, source) in jobs.items()}
    for job in sent.values():
        queues.enqueue_job(job)
    return sent

@pytest.mark.slow
@pytest.mark.parametrize("cases", [CASES, PHASE_03], ids=["phases-01-02", "phase-03"])
def test_each_method_rule_refuses_a_counterexample_that_used_to_pass(
        tmp_path: Path, cases: dict, course_pool: CoursePool) -> None:
    env = drawing_from(worker_env(tmp_path / "var", f"test-{uuid.uuid4().hex[:8]}-", warm=True),
                       course_pool.path)
    queues = Queues(load_config(env))
    course = load_course(load_config(env).course_root)
    jobs = _jobs(course, cases, references=False)
    sent = _send(queues, course, jobs)
    proc = start_worker(env, tmp_path / "worker.log", concurrency=2)
    try:
        got = collect(queues, set(jobs), timeout=60 + 15 * len(jobs), retry=sent)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert set(got) == set(jobs), f"missing results; worker log:\n{log[-3000:]}"
    for sid, (_, bound, title, _) in jobs.items():
        result = result_from_dict(got[sid])
        assert result.outcome == "graded", (sid, result.feedback, result.stderr[-2000:])
        assert result.score <= bound < result.max_score, (sid, result.score, result.checks)
        failed = [c.name for c in result.checks if c.status != "passed"]
        assert any(title in name for name in failed), (sid, failed)
