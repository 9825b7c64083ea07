"""lti1p3platform wired to Flask: the platform config, login, launch and the AGS/NRPS services.

lti1p3platform has no Flask adapter; this is it. It is lenient, so devlms adds what a real LMS
checks and the tests rely on: the OIDC ``redirect_uri`` must be the registered launch URL, the
deep-linking response must carry our issuer in ``aud``, an unused nonce and our ``data``, and a
token request's client assertion must name our token URL as ``aud`` with an unused ``jti``.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import jwt
from flask import Request as FlaskRequest
from flask import redirect, render_template_string
from lti1p3platform.exceptions import LineItemNotFoundException, LtiException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
    TPage,
)

from .config import DevLmsConfig, private_key, public_pem
from .store import Store

AUTO_POST = """<!doctype html><html><body>
<form method="post" action="{{ action }}" id="lti-form">
{% for k, v in fields.items() %}<input type="hidden" name="{{ k }}" value="{{ v }}">{% endfor %}
<noscript><button type="submit">Continue</button></noscript></form>
<script>document.getElementById("lti-form").submit();</script></body></html>"""


class DevRequest(Request):
    def build_metadata(self, request: FlaskRequest) -> TRequest:
        return {
            "method": request.method,
            "form_data": request.form.to_dict(),
            "get_data": request.args.to_dict(),
            "headers": request.headers,
            "content_type": request.content_type,
            "path": request.path,
            "json": request.get_json(silent=True),
        }


class DevPlatformConf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self.cfg: DevLmsConfig = kwargs["cfg"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        cfg = self.cfg
        return (
            SigningRegistration()
            .set_iss(cfg.issuer)
            .set_client_id(cfg.client_id)
            .set_deployment_id(cfg.deployment_id)
            .set_launch_url(cfg.tool_launch_url)
            .set_deeplink_launch_url(cfg.tool_launch_url)
            .set_oidc_login_url(cfg.tool_login_url)
            .set_tool_key_set_url(cfg.tool_jwks_url)
            .set_platform_private_key(private_key(cfg.private_key_pem))  # type: ignore[arg-type]
            .set_platform_public_key(public_pem(cfg.private_key_pem))
        )


class SigningRegistration(Registration):
    """lti1p3platform's registration, handed the loaded private key (``config.private_key``)
    instead of its PEM text, which PyJWT would load again for every token signed. The kid is
    the public key's thumbprint, the same as lti1p3platform derives from the private PEM."""

    def get_kid(self) -> str | None:
        public = self.get_platform_public_key()
        return _kid(public) if public else None


@functools.lru_cache(maxsize=8)
def _kid(public: str) -> str | None:
    return Registration.get_jwk(public).get("kid")


def conf(cfg: DevLmsConfig) -> DevPlatformConf:
    platform = DevPlatformConf(cfg=cfg)
    platform.get_registration()
    return platform


class DevOIDCLogin(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Any:
        return redirect(url)


class DevMessageLaunch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        return render_template_string(
            AUTO_POST, action=launch_data["launch_url"],
            fields={"id_token": launch_data["id_token"], "state": launch_data["state"]},
        )

    def validate_preflight_response(self, preflight_response: dict[str, Any]) -> None:
        super().validate_preflight_response(preflight_response)
        assert self._registration is not None
        checks = {
            "redirect_uri": self._registration.get_launch_url(),
            "response_type": "id_token",
            "response_mode": "form_post",
            "scope": "openid",
        }
        for name, expected in checks.items():
            if preflight_response.get(name) != expected:
                raise LtiException(f"authorization request {name}="
                                   f"{preflight_response.get(name)!r}, expected {expected!r}")


def check_client_assertion(cfg: DevLmsConfig, store: Store, assertion: str) -> None:
    """What lti1p3platform does not check on a token request."""
    claims = jwt.decode(assertion, options={"verify_signature": False})
    if claims.get("aud") not in (cfg.url("/token"), [cfg.url("/token")]):
        raise LtiException(f"client assertion aud {claims.get('aud')!r} is not the token URL")
    if claims.get("iss") != cfg.client_id or claims.get("sub") != cfg.client_id:
        raise LtiException("client assertion iss/sub is not the registered client id")
    jti = claims.get("jti")
    with store.lock:
        if not jti or jti in store.used_jti:
            raise LtiException("client assertion jti missing or already used")
        store.used_jti.add(jti)


def check_deep_link_response(cfg: DevLmsConfig, store: Store, token: str) -> None:
    """aud, nonce, iss, deployment and data of a deep-linking response (signature: the lib)."""
    claims = jwt.decode(token, options={"verify_signature": False})
    aud = claims.get("aud")
    auds = aud if isinstance(aud, list) else [aud]
    if cfg.issuer not in auds:
        raise LtiException(f"deep-linking response aud {aud!r} does not name this platform")
    if claims.get("iss") != cfg.client_id:
        raise LtiException("deep-linking response iss is not the tool's client id")
    if claims.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id") != cfg.deployment_id:
        raise LtiException("deep-linking response has the wrong deployment id")
    nonce = claims.get("nonce")
    data = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/data")
    with store.lock:
        if not nonce or nonce in store.used_dl_nonces:
            raise LtiException("deep-linking response nonce missing or replayed")
        if data is None or data.get("request") not in store.dl_data:
            raise LtiException("deep-linking response data does not match a request we sent")
        store.used_dl_nonces.add(nonce)
        store.dl_data.discard(data["request"])
        store.deep_link_responses.append(claims)
    if int(claims.get("exp", 0)) < time.time():
        raise LtiException("deep-linking response expired")


class DevAgs(AssignmentsGradesService):
    def __init__(self, request: Request, platform: DevPlatformConf, store: Store,
                 lineitems_url: str, lineitem_url: str | None = None) -> None:
        super().__init__(request, platform, lineitems_url, lineitem_url)
        self.store = store

    def find_lineitems(self, page: int = 1, limit: int | None = None,
                       line_item_id: str | None = None,
                       resource_link_id: str | None = None, resource_id: str | None = None,
                       tag: str | None = None, **_: Any) -> TPage:
        items = [self._public(i) for i in self.store.lineitems.values()
                 if (resource_id is None or i.get("resourceId") == resource_id)
                 and (tag is None or i.get("tag") == tag)
                 and (resource_link_id is None or i.get("resourceLinkId") == resource_link_id)]
        return {"content": items, "has_next": False, "next": None}

    def _public(self, item: dict[str, Any]) -> dict[str, Any]:
        return {**item, "id": f"{self.ags.lineitems_url}/{item['id']}"}

    def find_lineitem(self, line_item_id: str) -> Any:
        item = self.store.lineitems.get(line_item_id)
        if item is None:
            raise LineItemNotFoundException(line_item_id)
        return self._public(item)

    def create_lineitem(self, creation_data: Any) -> Any:
        return self._public(self.store.add_lineitem(dict(creation_data)))

    def update_lineitem(self, update_data: Any) -> Any:
        item = self.store.lineitems.get(update_data["id"])
        if item is None:
            raise LineItemNotFoundException(update_data["id"])
        item.update({k: v for k, v in update_data.items() if k != "id"})
        return self._public(item)

    def delete_lineitem(self, line_item_id: str) -> None:
        if self.store.lineitems.pop(line_item_id, None) is None:
            raise LineItemNotFoundException(line_item_id)

    def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
        if line_item_id not in self.store.lineitems:
            raise LineItemNotFoundException(line_item_id)
        if not isinstance(score, dict) or not score.get("userId") or "timestamp" not in score:
            return UpdateScoreStatus.NOTAPPLIED
        key = (line_item_id, str(score["userId"]))
        with self.store.lock:
            self.store.score_posts.append({"lineitem": line_item_id, **score})
            old = self.store.scores.get(key)
            if old is not None and str(old["timestamp"]) > str(score["timestamp"]):
                return UpdateScoreStatus.OLD_TIMESTAMP
            self.store.scores[key] = dict(score)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None,
                    user_id: str | None = None, **_: Any) -> TPage:
        if line_item_id not in self.store.lineitems:
            raise LineItemNotFoundException(line_item_id)
        results = [
            {"userId": uid, "resultScore": s.get("scoreGiven"),
             "resultMaximum": s.get("scoreMaximum"), "comment": s.get("comment", "")}
            for (lid, uid), s in self.store.scores.items()
            if lid == line_item_id and (user_id is None or uid == user_id)
        ]
        return {"content": results, "has_next": False, "next": None}


class DevNrps(NamesRoleProvisioningService):
    def __init__(self, request: Request, platform: DevPlatformConf, url: str) -> None:
        super().__init__(request, platform, url)
        self.cfg = platform.cfg

    def get_context_by_id(self) -> Context:
        return Context(id=self.cfg.context_id, label=self.cfg.context_id,
                       title=self.cfg.context_title)

    def get_member_data_page(self, page: int = 1, limit: int | None = None,
                             role: str | None = None, since: str | None = None,
                             **_: Any) -> TPage:
        members = [{"user_id": p.sub, "name": p.name, "email": p.email, "roles": list(p.roles),
                    "status": "Active"} for p in self.cfg.people.values()]
        return {"content": members, "has_next": False, "next": None}
