"""The ``lti`` blueprint: OIDC login, launch, JWKS, deep-link response, tool configuration."""

from __future__ import annotations

import logging

from flask import (
    Blueprint,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask import session as flask_session
from werkzeug.wrappers import Response

from lti_service.core import content, placement_policy
from lti_service.core.auth import Launch, issue_token
from lti_service.core.authz import INSTRUCTOR, Access, Guard
from lti_service.core.errors import LaunchRejected, ServiceError, excerpt
from lti_service.core.extensions import db, state
from lti_service.lti import adapter
from lti_service.lti.service import invites, keys, launches, outbound, registration

log = logging.getLogger(__name__)
bp = Blueprint("lti", __name__, url_prefix="/lti")
# Login, launch, JWKS and registration are the protocol's public doors; only the deep-link
# submit acts for a launched instructor.
guard = Guard(bp, source="page", fail_closed=False)


def launch_url() -> str:
    return url_for("lti.launch", _external=True)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response:
    session = db()
    # The tool key is made here on a fresh install, then not read again (a login signs
    # nothing); expired protocol rows are purged by `pathways consumer`
    # (lti.service.housekeeping): a login only writes its nonce and state.
    keys.ensure_key(session)
    response = adapter.login(session, launch_url())
    session.commit()
    return response


@bp.post("/launch")
def launch() -> Response | tuple[str, int]:
    session = db()
    fallback = adapter.new_window_url(session, url_for("lti.login", _external=True))
    if fallback:
        log.info("launch without its state cookie: offering a new window")
        return render_template("new_window.html", url=fallback), 200
    try:
        message, body = adapter.validate_launch(session)
        platform = adapter.DbToolConf(session).platform(body["iss"], message.get_client_id())
        if platform is None:
            raise LaunchRejected("launch refused: registration not found")
        course = state().course.get()
        cfg = state().config
        record = launches.record_launch(
            session, platform, body,
            content_exists=lambda cid: content.find(course, cid) is not None,
            default_max_attempts=cfg.default_max_attempts,
            default_counting=cfg.default_counting,
        )
        is_deep_link = body.get(adapter.CLAIM + "message_type") == "LtiDeepLinkingRequest"
        if is_deep_link and not record.is_instructor:
            raise LaunchRejected("only instructors can add content to a course")
    except ServiceError:
        session.rollback()
        raise
    session.commit()
    token = issue_token(Launch(
        user_id=record.user_id,
        placement_id=record.placement_id,
        context_pk=record.context_pk,
        is_instructor=record.is_instructor,
        launch_id=message.get_launch_id(),
    ))
    flask_session["lt"] = token  # for top-level windows; frames use the token in the URL
    log.info("launch accepted: user %s context %s placement %s", record.user_id,
             record.context_pk, record.placement_id)
    if is_deep_link:
        return redirect(url_for("instructor.picker", lt=token))
    if record.content_id and content.is_graded_by_submission(state().course.get(),
                                                             record.content_id):
        return redirect(url_for("submissions.exercise_page",
                                placement_id=record.placement_id, lt=token))
    return redirect(url_for("learner.lesson", placement_id=record.placement_id, lt=token))


@bp.get("/jwks")
def jwks() -> Response:
    session = db()
    keys.current_key(session)
    session.commit()
    return jsonify(keys.jwks(session))


@bp.post("/deep-link")
@guard(INSTRUCTOR)
def deep_link_response(access: Access) -> str:
    course = state().course.get()
    # Ids ticked one by one are placed as given (twice is two placements); a whole lesson
    # adds its items that were not also ticked (the picker's script ticks them too).
    ticked = request.form.getlist("content_id")
    chosen_ids = ticked + [cid for cid in content.expand_lessons(
        course, request.form.getlist("lesson")) if cid not in ticked]
    if not chosen_ids:
        raise ServiceError("choose at least one lesson, checkpoint or exercise",
                           field="content_id")
    chosen = []
    for cid in chosen_ids:
        item = content.find(course, cid)
        if item is None:
            raise ServiceError(f"unknown content id {excerpt(cid)}: reload the picker",
                               field="content_id")
        chosen.append(item)
    try:
        max_attempts = placement_policy.parse_max_attempts(request.form.get("max_attempts", "3"))
    except ValueError as exc:
        raise ServiceError(str(exc), field="max_attempts") from exc
    try:
        counting = placement_policy.parse_counting(request.form.get("counting", "best"))
    except ValueError as exc:
        raise ServiceError(str(exc), field="counting") from exc
    try:
        code_attempts = placement_policy.parse_code_attempts(request.form.get("code_attempts", ""))
    except ValueError as exc:
        raise ServiceError(str(exc), field="code_attempts") from exc
    return_url, jwt = adapter.deep_link_response(
        db(), access.launch.launch_id, launch_url(), chosen, max_attempts=max_attempts,
        code_attempts=code_attempts, counting=counting,
        graded_lessons=request.form.get("graded_lessons") == "on")
    return render_template("deep_link_return.html", title="Adding to your course",
                           return_url=return_url, jwt=jwt)


def tool_urls() -> registration.ToolUrls:
    return registration.ToolUrls(
        login=url_for("lti.login", _external=True), launch=launch_url(),
        jwks=url_for("lti.jwks", _external=True), title=state().config.tool_title)


@bp.get("/canvas.json")
def canvas_json() -> Response:
    return jsonify(registration.canvas_config(tool_urls()))


@bp.get("/register")
def dynamic_registration() -> str:
    """LTI Dynamic Registration, from an operator's one-time URL the LMS admin pastes in the LMS.

    Without an open invite the answer is 403 and nothing is fetched. The invite is a query
    parameter, not a path segment: access logs never record query strings.
    """
    session = db()
    pending = invites.check(session, request.args.get("invite", ""))
    config_url = request.args.get("openid_configuration", "")
    if not config_url:
        raise ServiceError("openid_configuration is missing: paste this URL into the LMS's "
                           "'register a tool' page", field="openid_configuration")
    keys.current_key(session)
    try:
        platform = registration.register(session, tool_urls(), config_url,
                                         request.args.get("registration_token"), invite=pending,
                                         rules=outbound.policy(state().config))
    except ServiceError:
        session.rollback()
        raise
    session.commit()
    return render_template("registered.html", platform=platform)
