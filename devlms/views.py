"""devlms routes: the course page, launches (learner in an iframe, instructor deep linking),
the OIDC authorization endpoint, deep-link return, token, AGS, NRPS, JWKS and the gradebook."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import jwt
from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request
from lti1p3platform.exceptions import LtiException, LtiServiceException
from lti1p3platform.response import Response as LtiResponse

from .config import DevLmsConfig
from .platform import (
    DevAgs,
    DevMessageLaunch,
    DevNrps,
    DevOIDCLogin,
    DevRequest,
    check_client_assertion,
    check_deep_link_response,
    conf,
)
from .store import Store

log = logging.getLogger(__name__)
bp = Blueprint("devlms", __name__)
COURSE_OFFERING = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"


def _cfg() -> DevLmsConfig:
    return current_app.extensions["devlms"]["config"]


def _store() -> Store:
    return current_app.extensions["devlms"]["store"]


def _person(sub: str | None):  # type: ignore[no-untyped-def]
    person = _cfg().people.get(sub or "")
    if person is None:
        abort(400, f"unknown user {sub!r}: use one of {sorted(_cfg().people)}")
    return person


def _lti_json(resp: LtiResponse) -> Response:
    if 200 <= resp.code < 300:
        data = resp.result["content"] if isinstance(resp.result, dict) and "content" in \
            resp.result else resp.result
        return Response(current_app.json.dumps(data) if data is not None else "",
                        status=resp.code, mimetype=resp.media_type)
    return Response(current_app.json.dumps({"error": resp.message}), status=resp.code,
                    mimetype="application/json")


@bp.get("/")
def course_page() -> str:
    cfg = _cfg()
    return render_template("devlms/course.html", cfg=cfg, links=list(_store().links.values()))


@bp.get("/frame")
def frame() -> str:
    """The LMS page that holds the tool in an iframe, as Canvas or Moodle do."""
    return render_template("devlms/frame.html", src=request.args.get("src", ""))


def _start_login(sub: str, hint: str) -> Response:
    platform = conf(_cfg())
    login = DevOIDCLogin(DevRequest(request), platform)
    login.set_lti_message_hint(hint=hint)
    return login.initiate_login(sub)


@bp.get("/launch/<link_id>")
def launch(link_id: str) -> Response:
    if link_id not in _store().links:
        abort(404, f"no resource link {link_id}")
    return _start_login(_person(request.args.get("user")).sub, f"link:{link_id}")


@bp.get("/deep-link")
def deep_link() -> Response:
    return _start_login(_person(request.args.get("user", "teacher")).sub, "dl:" + _cfg().context_id)


@bp.route("/authorize", methods=["GET", "POST"])
def authorize() -> Any:
    cfg, store = _cfg(), _store()
    req = DevRequest(request)
    params = req.get_data or req.form_data
    person = _person(params.get("login_hint"))
    hint = params.get("lti_message_hint", "")
    message = DevMessageLaunch(req, conf(cfg))
    message.set_user_data(person.sub, list(person.roles), person.name, person.email)
    message.set_launch_context_claim(cfg.context_id, context_title=cfg.context_title,
                                     context_types=[COURSE_OFFERING])
    message.set_nrps(cfg.url(f"/nrps/{cfg.context_id}/memberships"))
    lineitems_url = cfg.url(f"/ags/{cfg.context_id}/lineitems")
    if hint.startswith("dl:"):
        token = secrets.token_urlsafe(12)
        with store.lock:
            store.dl_data.add(token)
        message.set_dl(cfg.url("/deep-link-return"), title="Add content",
                       accept_types={"ltiResourceLink"}, extra_data={"request": token})
        message.set_ags(lineitems_url)
    elif hint.startswith("link:"):
        link = store.links.get(hint[5:])
        if link is None:
            abort(400, f"lti_message_hint names an unknown link {hint!r}")
        message.set_launch_url(link.url)
        message.set_resource_link_claim(link.id, title=link.title)
        message.set_custom_parameters_claim(link.custom)
        message.set_launch_presentation_claim("iframe", cfg.url("/"))
        lineitem_url = f"{lineitems_url}/{link.lineitem_id}" if link.lineitem_id else None
        message.set_ags(lineitems_url, lineitem_url)
    else:
        abort(400, f"unknown lti_message_hint {hint!r}")
    try:
        return message.lti_launch()
    except (LtiException, AssertionError) as exc:
        abort(400, f"authorization request refused: {exc or type(exc).__name__}")
    except Exception as exc:  # lti1p3platform raises its own tree, not LtiException
        if type(exc).__name__ == "PreflightRequestValidationException":
            abort(400, "authorization request refused: nonce, state, redirect_uri or client_id")
        raise


@bp.post("/deep-link-return")
def deep_link_return() -> Any:
    cfg, store = _cfg(), _store()
    token = request.form.get("JWT", "")
    try:
        items = conf(cfg).validate_deeplinking_resp({"JWT": token})
        check_deep_link_response(cfg, store, token)
    except Exception as exc:  # every failure of the response is a 400 with its reason
        log.warning("deep-linking response refused: %s", exc)
        abort(400, f"deep-linking response refused: {exc}")
    added = []
    for item in items:
        if item.get("type") != "ltiResourceLink":
            continue
        added.append(store.add_link(item.get("title", ""), item.get("url") or cfg.tool_launch_url,
                                    dict(item.get("custom") or {}), item.get("lineItem")))
    return render_template("devlms/added.html", links=added)


@bp.post("/token")
def token() -> Response:
    cfg, store = _cfg(), _store()
    with store.lock:
        store.token_requests += 1
    try:
        data = request.form.to_dict()
        check_client_assertion(cfg, store, data.get("client_assertion", ""))
        return jsonify(conf(cfg).get_access_token(data))
    except Exception as exc:  # the library raises several unrelated types
        log.warning("token request refused: %s", exc)
        return Response(current_app.json.dumps({"error": "invalid_client",
                                                "error_description": str(exc)}),
                        status=400, mimetype="application/json")


def _ags() -> DevAgs:
    cfg = _cfg()
    return DevAgs(DevRequest(request), conf(cfg), _store(),
                  cfg.url(f"/ags/{cfg.context_id}/lineitems"))


def _guard(fn, *args: Any) -> Response:  # type: ignore[no-untyped-def]
    try:
        return _lti_json(fn(*args))
    except LtiServiceException as exc:
        return _lti_json(LtiResponse(None, exc.status_code, exc.message))
    except LtiException as exc:
        return _lti_json(LtiResponse(None, 401, str(exc)))
    except Exception as exc:  # PyJWT errors on a bad bearer token
        if "jwt" in type(exc).__module__:
            return _lti_json(LtiResponse(None, 401, "invalid bearer token"))
        raise


@bp.route("/ags/<context>/lineitems", methods=["GET", "POST"])
def lineitems(context: str) -> Response:
    ags = _ags()
    return _guard(ags.handle_get_lineitems if request.method == "GET" else
                  ags.handle_create_lineitem)


@bp.route("/ags/<context>/lineitems/<item_id>", methods=["GET", "PUT", "DELETE"])
def lineitem(context: str, item_id: str) -> Response:
    ags = _ags()
    handler = {"GET": ags.handle_get_lineitem, "PUT": ags.handle_update_lineitem,
               "DELETE": ags.handle_delete_lineitem}[request.method]
    return _guard(handler, item_id)


SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def _token_scopes() -> list[str]:
    """Scopes of the request's bearer token (signature checked with our key), or []."""
    from .config import private_key

    auth = request.headers.get("Authorization", "").split()
    if len(auth) != 2:
        return []
    try:
        claims = jwt.decode(auth[1], private_key(_cfg().private_key_pem).public_key(),
                            algorithms=["RS256"])
    except jwt.InvalidTokenError:
        return []
    return str(claims.get("scopes", "")).split()


@bp.post("/ags/<context>/lineitems/<item_id>/scores")
def scores(context: str, item_id: str) -> Response:
    # lti1p3platform accepts any AGS scope here; posting a score needs the score scope.
    if request.headers.get("Authorization") and SCORE_SCOPE not in _token_scopes():
        return _lti_json(LtiResponse(None, 401, "the token lacks the score scope"))
    return _guard(_ags().handle_update_score, item_id)


@bp.get("/ags/<context>/lineitems/<item_id>/results")
def results(context: str, item_id: str) -> Response:
    return _guard(_ags().handle_get_results, item_id)


@bp.get("/nrps/<context>/memberships")
def memberships(context: str) -> Response:
    cfg = _cfg()
    nrps = DevNrps(DevRequest(request), conf(cfg), cfg.url(f"/nrps/{context}/memberships"))
    return _guard(nrps.handle_get_members)


@bp.get("/jwks")
def jwks() -> Response:
    return jsonify(conf(_cfg()).get_jwks())


def gradebook_rows() -> list[dict[str, Any]]:
    store = _store()
    rows = []
    with store.lock:
        for (item_id, user_id), score in sorted(store.scores.items()):
            item = store.lineitems.get(item_id, {})
            rows.append({"lineitem": item_id, "label": item.get("label", ""),
                         "resourceId": item.get("resourceId", ""), "tag": item.get("tag", ""),
                         "userId": user_id, "scoreGiven": score.get("scoreGiven"),
                         "scoreMaximum": score.get("scoreMaximum"),
                         "activityProgress": score.get("activityProgress"),
                         "gradingProgress": score.get("gradingProgress"),
                         "comment": score.get("comment", ""), "timestamp": score.get("timestamp")})
    return rows


@bp.get("/gradebook")
def gradebook() -> str:
    store = _store()
    return render_template("devlms/gradebook.html", rows=gradebook_rows(),
                           lineitems=list(store.lineitems.values()))


@bp.get("/gradebook.json")
def gradebook_json() -> Response:
    store = _store()
    with store.lock:
        return jsonify({"lineitems": list(store.lineitems.values()), "scores": gradebook_rows(),
                        "token_requests": store.token_requests,
                        "links": [vars(link) for link in store.links.values()]})


@bp.get("/.well-known/openid-configuration")
def openid_configuration() -> Response:
    cfg = _cfg()
    return jsonify({
        "issuer": cfg.issuer,
        "authorization_endpoint": cfg.url("/authorize"),
        "token_endpoint": cfg.url("/token"),
        "jwks_uri": cfg.url("/jwks"),
        "registration_endpoint": cfg.url("/register"),
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "scopes_supported": ["openid"],
        "response_types_supported": ["id_token"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "claims_supported": ["iss", "sub", "name", "email"],
        "https://purl.imsglobal.org/spec/lti-platform-configuration": {
            "product_family_code": "devlms", "version": "0.1",
            "messages_supported": [{"type": "LtiResourceLinkRequest"},
                                   {"type": "LtiDeepLinkingRequest"}],
        },
    })


@bp.post("/register")
def register_tool() -> Response:
    """Dynamic Registration: accept the tool if its URLs are the ones devlms was started with."""
    cfg = _cfg()
    expected = current_app.extensions["devlms"].get("registration_token")
    auth = request.headers.get("Authorization", "")
    if not expected or auth != f"Bearer {expected}":
        return Response('{"error": "invalid registration token"}', status=401,
                        mimetype="application/json")
    current_app.extensions["devlms"]["registration_token"] = None  # one use
    body = request.get_json(silent=True) or {}
    problems = []
    if body.get("initiate_login_uri") != cfg.tool_login_url:
        problems.append("initiate_login_uri")
    if cfg.tool_launch_url not in (body.get("redirect_uris") or []):
        problems.append("redirect_uris")
    if body.get("jwks_uri") != cfg.tool_jwks_url:
        problems.append("jwks_uri")
    if problems:
        return Response(current_app.json.dumps({"error": "invalid_client_metadata",
                                                "fields": problems}),
                        status=400, mimetype="application/json")
    tool_config = body.get("https://purl.imsglobal.org/spec/lti-tool-configuration", {})
    current_app.extensions["devlms"]["registered_tool"] = body
    return jsonify({**body, "client_id": cfg.client_id,
                    "https://purl.imsglobal.org/spec/lti-tool-configuration": {
                        **tool_config, "deployment_id": cfg.deployment_id}})
