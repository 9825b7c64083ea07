"""Per-learner variants and regrading, in the LMS with the real course: each learner's page
shows their own variant, the job carries it, the real sandbox grades against it (so another
learner's answer scores less), checkpoint choices are shuffled per learner, and a regrade after
the checks change sends the new score through the outbox."""

from __future__ import annotations

import html
from functools import partial
from pathlib import Path

from lti_stack import Stack
from sqlalchemy import select
from tool_pages import hidden

from course import submission_for
from devlms.browser import Browser
from grader_worker.config import load_config
from grader_worker.worker import GraderWorker, course_checks_resolver
from grading_contract.queues import Queues
from lti_service.checkpoints.service import checkpoint_for
from lti_service.consumer import Consumer
from lti_service.core.extensions import state
from lti_service.core.models import LmsUser, Placement
from lti_service.outbox.models import ScoreOutbox
from lti_service.outbox.service.delivery import deliver_due
from lti_service.submissions import service
from lti_service.submissions.models import Submission
from lti_service.submissions.panel import QUEUES_KEY
from lti_service.submissions.settings import GradingSettings

LESSON = "arrays-04"


def _ids(stack: Stack, link: dict, sub: str) -> tuple[Placement, int]:
    with stack.db() as session:
        placement = session.scalars(select(Placement).where(
            Placement.resource_link_id == link["id"])).one()
        user = session.scalars(select(LmsUser).where(LmsUser.sub == sub)).one()
        session.expunge(placement)
        return placement, user.id


def test_variants_grading_and_regrade_through_the_lms(real_stack: Stack, tmp_path: Path) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    lesson = course.lesson(LESSON)
    assert lesson is not None
    links = stack.deep_link([e.id for e in lesson.exercises] + [lesson.checkpoint.id],
                            max_attempts=5, counting="last")
    config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "queue-var")})
    queues = Queues(config)
    stack.tool.extensions[QUEUES_KEY] = queues
    worker = GraderWorker(config, queues, checks_for=course_checks_resolver(course.root))
    consumer = Consumer(state(stack.tool).sessions, queues, GradingSettings(),
                        deliver=partial(deliver_due, rules=stack.rules))
    alice, bob = Browser(), Browser()
    try:
        pages = {}
        for link in links:
            pages[link["id"]] = (stack.launch(alice, link["id"], "alice"),
                                 stack.launch(bob, link["id"], "bob"))
        # An exercise where alice and bob have different variants (ids are deterministic).
        chosen, cp_link = None, None
        for link in links:
            placement, alice_id = _ids(stack, link, "alice")
            if placement.content_id == lesson.checkpoint.id:
                cp_link = link
                continue
            exercise = course.exercise(placement.content_id)[1]
            _, bob_id = _ids(stack, link, "bob")
            mine = service.learner_variant(exercise, placement, alice_id)
            theirs = service.learner_variant(exercise, placement, bob_id)
            assert mine == service.learner_variant(exercise, placement, alice_id)  # stable
            if mine != theirs and chosen is None:
                chosen = (link, exercise, placement, mine, theirs)
        assert chosen is not None, "alice and bob share every variant: no cross check possible"
        link, exercise, placement, mine, theirs = chosen
        alice_page, bob_page = pages[link["id"]]
        mine_text = html.unescape(alice_page.text)
        assert exercise.for_variant(mine).prompt.split("`")[0] in mine_text
        assert exercise.for_variant(mine).starter_code.splitlines()[0] in mine_text
        assert exercise.for_variant(theirs).starter_code.splitlines()[0] in html.unescape(
            bob_page.text)

        # Alice submits her variant's reference, then bob's variant's reference.
        own = submission_for(lesson, exercise, exercise.for_variant(mine).solution_code)
        other = submission_for(lesson, exercise, exercise.for_variant(theirs).solution_code)
        page = alice_page
        for source in (own, other):  # each from the page the last one returned (its own key)
            page = alice.submit(page, data={"source": source})
            assert page.status_code == 200
            while worker.queues.process_one(worker.queues.grading):
                pass
            consumer.drain()
        with stack.db() as session:
            rows = list(session.scalars(select(Submission).order_by(Submission.attempt_number)))
            assert [r.variant for r in rows] == [mine, mine]
            assert [r.status for r in rows] == ["graded", "graded"]
            assert rows[0].score == rows[0].max_score == exercise.max_points
            assert rows[1].score < exercise.max_points  # another learner's answer
            assert {r.checks_hash for r in rows} == {exercise.checks_hash}
            assert {r.course_version for r in rows} == {course.version}
            assert rows[0].result["seed"] != rows[1].result["seed"]

            # The checks changed: both rows were graded by other checks; regrade them.
            for row in rows:
                row.checks_hash = "0" * 64
            session.commit()
            before = len(list(session.scalars(select(ScoreOutbox))))
        teacher = Browser()
        view = stack.launch(teacher, links[0]["id"], "teacher")
        assert view.status_code == 200
        lt = view.url.split("lt=")[1]
        url = f"{stack.tool_url}/instructor/regrade/{placement.id}"
        refused = teacher.http.post(url, data={"lt": lt}, timeout=30, allow_redirects=False)
        assert refused.status_code == 403, "a regrade without the page's CSRF token is refused"
        class_view = teacher.get(f"{stack.tool_url}/instructor/class?lt={lt}")
        form = hidden(class_view, f"/instructor/regrade/{placement.id}")
        regrade = teacher.http.post(url, data=form, timeout=30, allow_redirects=False)
        assert regrade.status_code in (302, 303), regrade.text[:300]
        while worker.queues.process_one(worker.queues.grading):
            pass
        consumer.drain()
        with stack.db() as session:
            rows = list(session.scalars(select(Submission).order_by(Submission.attempt_number)))
            assert [r.grading_try for r in rows] == [2, 2]
            assert {r.checks_hash for r in rows} == {exercise.checks_hash}
            assert rows[0].score == exercise.max_points and rows[1].score < exercise.max_points
            outbox = list(session.scalars(select(ScoreOutbox).order_by(ScoreOutbox.id)))
            assert len(outbox) > before and outbox[-1].score == rows[1].score  # "last" counts

        # Checkpoint: each learner's own choice order; the keys (and feedback) are the same.
        assert cp_link is not None
        cp_placement, alice_id = _ids(stack, cp_link, "alice")
        orders = {tuple(c.key for c in checkpoint_for(lesson.checkpoint, cp_placement, uid).choices)
                  for uid in range(1, 40)}
        assert len(orders) > 1
        page = stack.launch(alice, cp_link["id"], "alice")
        shown = checkpoint_for(lesson.checkpoint, cp_placement, alice_id)
        positions = [page.text.index(f'value="{c.key}"') for c in shown.choices]
        assert positions == sorted(positions)
        wrong = next(c for c in shown.choices if not c.correct)
        answered = alice.submit(page, data={"choice": wrong.key})
        assert html.unescape(wrong.feedback.split(".")[0]) in html.unescape(answered.text)
    finally:
        worker.close()


def test_project_is_placed_submitted_and_graded_through_the_lms(real_stack: Stack,
                                                                tmp_path: Path) -> None:
    stack = real_stack
    course = state(stack.tool).course.get()
    found = course.exercise("project.arrays-audit")
    assert found is not None
    _, project = found
    link = stack.deep_link([project.id], max_attempts=3, counting="best")[0]
    config = load_config({"PATHWAYS_VAR_DIR": str(tmp_path / "queue-var")})
    queues = Queues(config)
    stack.tool.extensions[QUEUES_KEY] = queues
    worker = GraderWorker(config, queues, checks_for=course_checks_resolver(course.root))
    consumer = Consumer(state(stack.tool).sessions, queues, GradingSettings(),
                        deliver=partial(deliver_due, rules=stack.rules))
    alice = Browser()
    try:
        page = stack.launch(alice, link["id"], "alice")
        assert page.status_code == 200, page.text[:300]
        assert "Submit model.py" in page.text and project.title in html.unescape(page.text)
        for source in (project.starter_code, project.solution_code):  # model.py, whole
            page = alice.submit(page, data={"source": source})  # the next from its page
            assert page.status_code == 200
            while worker.queues.process_one(worker.queues.grading):
                pass
            consumer.drain()
        with stack.db() as session:
            rows = list(session.scalars(select(Submission).order_by(Submission.attempt_number)))
            assert [r.status for r in rows] == ["graded", "graded"]
            assert rows[0].score < project.max_points  # the starter's TODOs raise
            assert rows[1].score == rows[1].max_score == project.max_points
            names = {c["name"] for c in rows[1].result["checks"]}
            assert any("stage 2" in n for n in names)
            outbox = list(session.scalars(select(ScoreOutbox).order_by(ScoreOutbox.id)))
            assert outbox[-1].score == project.max_points
        consumer.deliver_scores()
        scores = [s for s in stack.gradebook()["scores"] if s["userId"] == "alice"]
        assert scores and scores[-1]["scoreGiven"] == project.max_points
    finally:
        worker.close()
