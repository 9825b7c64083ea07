"""The ``learner`` blueprint: the lesson page inside the LMS, its checkpoint answer form and
its exercises' submit forms (practice: attempts kept in My learning, never scored in the LMS).

Access (launched placement, kind, the lesson's own exercise, CSRF) is the guard's job
(``lti_service.core.authz``).
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from markupsafe import Markup
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from lti_service.checkpoints import service as checkpoints
from lti_service.checkpoints.answering import answer_once
from lti_service.core import request_keys
from lti_service.core.auth import form_fields, launch_url_args
from lti_service.core.authz import LEARNER, Guard, Owned, PlacementAccess
from lti_service.core.content import (
    CHECKPOINT_KINDS,
    LESSON_KINDS,
    ContentItem,
    has_gradebook_column,
)
from lti_service.core.errors import ServiceError
from lti_service.core.extensions import db, state
from lti_service.learner.models import PortfolioImport
from lti_service.learner.service import portfolio
from lti_service.learner.service.page import guide_body, lesson_fragment, setup_body
from lti_service.learner.service.portfolio_import import MAX_NAME_CHARS as MAX_IMPORTED_NAME
from lti_service.learner.service.portfolio_import import imported_file as imported_file_text
from lti_service.submissions import panel as submit_panel
from lti_service.submissions import service as submissions


def _lesson_exercise(item: ContentItem, exercise_id: str) -> Any:
    """The exercise ``exercise_id`` of a lesson placement's own lesson (None: not one of it)."""
    if item.kind not in LESSON_KINDS:
        return None
    return next((ex for ex in item.lesson.exercises if ex.id == exercise_id), None)


def _imported(session: Session, import_id: str) -> Owned | None:
    """An imported portfolio: its owner's alone (not of a placement, not an instructor's)."""
    row = session.get(PortfolioImport, int(import_id)) if import_id.isdigit() \
        and len(import_id) < 12 else None
    return Owned(row, None, row.user_id, personal=True) if row is not None else None


bp = Blueprint("learner", __name__, url_prefix="/learn")
guard = Guard(bp, source="page", parts={"exercise_id": _lesson_exercise},
              owned={"import_id": _imported})
IMPORTED = {"new": "Imported: your notes are back in Evidence notes, your code and receipts "
                   "are listed under Imported work.",
            "labelled": "Imported, and labelled: this tool cannot confirm the ZIP is yours "
                        "(see Imported work). Its notes are in Evidence notes.",
            "same": "This ZIP was imported before: nothing changed."}


def _panels(access: PlacementAccess, source: str = "", errors: list[str] | None = None
            ) -> dict[str, Markup]:
    """Each exercise's submit form and attempts, on a lesson placement's page (one query);
    ``source`` and ``errors`` go back to the exercise whose submission was refused."""
    placement, user, lesson = access.placement, access.user, access.item.lesson
    if access.item.kind not in LESSON_KINDS or not lesson.exercises:
        return {}
    lt = launch_url_args().get("lt", "")
    rows = submissions.history(db(), placement.id, user.id)
    refused = access.part.id if access.part is not None and errors else None
    out: dict[str, Markup] = {}
    for ex in lesson.exercises:
        shown = ex.for_variant(submissions.variant_on(ex, placement, user.id))
        ctx = submit_panel.panel(
            access, lesson, shown, pfx=f"x-{ex.slug}-", h=4,
            action=url_for("learner.submit_exercise", placement_id=placement.id,
                           exercise_id=ex.id),
            history_url=url_for("learner.exercise_history", placement_id=placement.id,
                                exercise_id=ex.id, lt=lt),
            rows=[r for r in rows if r.exercise_id == ex.id],
            source=source if ex.id == refused else "",
            errors=errors if ex.id == refused else None)
        out[ex.id] = Markup(render_template("submissions/_panel.html", **ctx))  # noqa: S704
    return out


def _page(access: PlacementAccess, status: int = 200, panels: dict[str, Markup] | None = None
          ):  # type: ignore[no-untyped-def]
    placement, item = access.placement, access.item
    attempts = checkpoints.attempts_of(db(), placement.id, access.user.id)
    action = url_for("learner.answer", placement_id=placement.id)
    seen = checkpoints.checkpoint_for(item.lesson.checkpoint, placement, access.user.id)
    panels = _panels(access) if panels is None else panels
    answers_count = item.kind in CHECKPOINT_KINDS
    locked = checkpoints.lock_reason(placement, len(attempts)) if answers_count else None
    result = checkpoints.latest(seen, placement, attempts) if answers_count else None
    beside = Markup(render_template(  # noqa: S704 - our own template
        "_checkpoint_result.html", placement=placement, locked=locked, result=result,
    )) if result or locked else None
    fragment = lesson_fragment(item.lesson, action, form_fields(), state().course.get(),
                               checkpoint=seen, panels=panels, beside=beside,
                               locked=locked is not None)
    return render_template(
        "lesson.html",
        title=item.title,
        item=item,
        fragment=fragment,
        placement=placement,
        answers_count=answers_count,
        graded=has_gradebook_column(item.kind, placement.lineitem_url),
        attempts=attempts,
        attempts_left=max(placement.max_attempts - len(attempts), 0),
        launch_args=launch_url_args(),
        submits=bool(panels),
    ), status


def _checkpoint_page(access: PlacementAccess):  # type: ignore[no-untyped-def]
    """A checkpoint placement's own page: the question, the learner's lettered choices, their
    newest result beside it, the lock reason, and a link to the lesson section it checks."""
    placement, item = access.placement, access.item
    attempts = checkpoints.attempts_of(db(), placement.id, access.user.id)
    seen = checkpoints.checkpoint_for(item.lesson.checkpoint, placement, access.user.id)
    return render_template(
        "checkpoint.html", title=f"{item.lesson.title}: checkpoint", item=item,
        placement=placement, checkpoint=seen, choices=checkpoints.shown_choices(seen),
        attempts=attempts, result=checkpoints.latest(seen, placement, attempts),
        locked=checkpoints.lock_reason(placement, len(attempts)),
        graded=has_gradebook_column(item.kind, placement.lineitem_url),
        lesson_url=url_for("learner.read_lesson", placement_id=placement.id,
                           **launch_url_args()) + f"#{item.lesson.id}-exercise",
        launch_args=launch_url_args())


@bp.get("/<int:placement_id>")
@guard(LEARNER)
def lesson(access: PlacementAccess):  # type: ignore[no-untyped-def]
    page = _checkpoint_page(access) if access.item.kind == "checkpoint" else _page(access)
    _record_open(access)
    return page


@bp.get("/<int:placement_id>/lesson")
@guard(LEARNER, kinds=("checkpoint",))
def read_lesson(access: PlacementAccess):  # type: ignore[no-untyped-def]
    """The whole lesson a checkpoint placement checks (its page links to the section)."""
    page = _page(access)
    _record_open(access)
    return page


def _record_open(access: PlacementAccess) -> None:
    """Note the open once the page is built, in the transaction its reads began: one
    connection checkout a page (committing first made the reads check out a second one, with a
    ping, a BEGIN and a ROLLBACK of its own on PostgreSQL). The reads come first because
    SQLite takes its write lock at the upsert: it is held for the upsert and the commit, never
    while the page renders."""
    session = db()
    portfolio.record_open(session, access.user, access.context, access.item.lesson.id)
    session.commit()


@bp.post("/<int:placement_id>/exercise/<exercise_id>/submit")
@guard(LEARNER, kinds=LESSON_KINDS)
def submit_exercise(access: PlacementAccess):  # type: ignore[no-untyped-def]
    """Submit one of the lesson's exercises from its page (practice; JSON for the live page)."""
    return submit_panel.submit_answer(
        access, access.part,
        done_url=url_for("learner.lesson", placement_id=access.placement.id,
                         **launch_url_args()) + f"#{access.part.id}",
        refused=lambda source, messages: _page(
            access, status=400, panels=_panels(access, source, messages)))


@bp.get("/<int:placement_id>/exercise/<exercise_id>/history.json")
@guard(LEARNER, kinds=LESSON_KINDS)
def exercise_history(access: PlacementAccess):  # type: ignore[no-untyped-def]
    rows = submissions.history(db(), access.placement.id, access.user.id, access.part.id)
    return jsonify(submit_panel.history_json(access.placement, rows, None,
                                             submit_panel.PRACTICE_ATTEMPTS))


@bp.post("/<int:placement_id>/answer")
@guard(LEARNER, kinds=CHECKPOINT_KINDS)
def answer(access: PlacementAccess):  # type: ignore[no-untyped-def]
    answer_once(access, request.form.get("choice", ""), request_keys.from_request())
    # Post, redirect, get: a reload does not resend the answer, and the page opens at the
    # result beside the question (with or without JavaScript).
    return redirect(url_for("learner.lesson", placement_id=access.placement.id,
                            **launch_url_args()) + "#checkpoint-result", code=303)


def _my_learning(access: PlacementAccess, message: str = "", status: int = 200,
                 notice: str = ""):  # type: ignore[no-untyped-def]
    mine = portfolio.collect(db(), access.user, access.context, state().course.get())
    return render_template("my_learning.html", title="My learning", mine=mine,
                           placement=access.placement, message=message, notice=notice,
                           launch_args=launch_url_args()), status


@bp.get("/<int:placement_id>/my-learning")
@guard(LEARNER)
def my_learning(access: PlacementAccess):  # type: ignore[no-untyped-def]
    # a known word only (never the caller's text echoed): what the import just did
    return _my_learning(access, notice=IMPORTED.get(request.args.get("imported", "")[:10], ""))


@bp.get("/<int:placement_id>/my-learning.zip")
@guard(LEARNER)
def my_learning_zip(access: PlacementAccess) -> Response:
    mine = portfolio.collect(db(), access.user, access.context, state().course.get())
    data = portfolio.export_zip(mine, tool_url=request.host_url.rstrip("/"))
    return Response(data, mimetype="application/zip", headers={
        "Content-Disposition": "attachment; filename=my-learning.zip"})


@bp.post("/<int:placement_id>/my-learning/notes")
@guard(LEARNER)
def my_learning_note(access: PlacementAccess):  # type: ignore[no-untyped-def]
    session = db()
    try:
        portfolio.save_note(session, access.user, access.context, state().course.get(),
                            request.form.get("lesson_id", ""), request.form.get("text", ""))
    except ServiceError as exc:
        session.rollback()
        return _my_learning(access, f"Note not saved: {exc}", 400)
    session.commit()
    return redirect(url_for("learner.my_learning", placement_id=access.placement.id,
                            **launch_url_args()) + "#notes", code=303)


@bp.post("/<int:placement_id>/my-learning/import")
@guard(LEARNER)
def my_learning_import(access: PlacementAccess):  # type: ignore[no-untyped-def]
    upload = request.files.get("portfolio")
    if upload is None or not upload.filename:
        return _my_learning(access, "Choose the ZIP that My learning exported.", 400)
    session = db()
    try:
        outcome = portfolio.import_zip(session, access.user,
                                       upload.stream.read(portfolio.MAX_IMPORT_BYTES + 1))
    except ServiceError as exc:
        session.rollback()
        return _my_learning(access, f"Not imported: {exc}", 400)
    session.commit()
    said = "same" if not outcome.new else "labelled" if outcome.row.identity else "new"
    return redirect(url_for("learner.my_learning", placement_id=access.placement.id,
                            imported=said, **launch_url_args()) + "#imported", code=303)


@bp.get("/<int:placement_id>/my-learning/imported/<import_id>/<path:name>")
@guard(LEARNER)
def imported_file(access: PlacementAccess, name: str):  # type: ignore[no-untyped-def]
    """One file of an imported portfolio (code, output, receipt, note), read-only."""
    text = imported_file_text(access.owned, name[:MAX_IMPORTED_NAME])
    if text is None:
        abort(404, "this import has no such file")
    back = url_for("learner.my_learning", placement_id=access.placement.id,
                   **launch_url_args()) + "#imported"
    return render_template("imported_file.html", title=name[:MAX_IMPORTED_NAME], text=text,
                           name=name[:MAX_IMPORTED_NAME], source=access.owned.source,
                           identity=access.owned.identity, back=back,
                           placement=access.placement, launch_args=launch_url_args())


@bp.get("/<int:placement_id>/setup")
@guard(LEARNER)
def setup(access: PlacementAccess) -> str:
    return render_template("content_page.html", title="Setup help", body=setup_body(),
                           placement=access.placement, item=access.item,
                           launch_args=launch_url_args())


@bp.get("/<int:placement_id>/guide")
@guard(LEARNER)
def guide(access: PlacementAccess) -> str:
    setup_url = url_for("learner.setup", placement_id=access.placement.id, **launch_url_args())
    body = guide_body(state().course.get(), access.item.lesson, setup_url)
    if body is None:
        abort(404, "this lesson's phase is not in the course any more")
    return render_template("content_page.html", title="Phase study guide", body=body,
                           placement=access.placement, item=access.item,
                           launch_args=launch_url_args())


@bp.get("/<int:placement_id>/lesson.md")
@guard(LEARNER)
def lesson_text(access: PlacementAccess) -> Response:
    lesson = access.item.lesson
    source = lesson.dir / "lesson.md"
    if not source.is_file():
        abort(404, "this lesson's text is not available here")
    return send_file(source, mimetype="text/markdown", as_attachment=True,
                     download_name=f"{lesson.id}.md")


@bp.get("/<int:placement_id>/figure.png")
@guard(LEARNER)
def figure(access: PlacementAccess) -> Response:
    image = access.item.lesson.figure.image_path
    if not image.is_file():
        abort(404, "this lesson has no figure image")
    return send_file(image, mimetype="image/png")
