"""The shape of what a platform sends: login parameters and id_token claims, bounded and typed.

pylti1p3 trusts a signed id_token's claims to have the types the spec gives them, so a platform
(or anyone holding a registration's key) that sends ``roles`` as numbers or ``context`` as a string
made the launch a 500. ``LaunchClaims`` (marshmallow, unknown claims kept) checks every claim the
tool reads before pylti1p3's own message validators run; identifiers longer than the column that
stores them are refused (truncating one would merge two people or two courses), display text is
cut by ``launches``.

Sizes are checked before anything is parsed: a login parameter is kept for a day in
``lti_storage``, and an id_token is base64-decoded and JSON-parsed before its signature is checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates

from lti_service.core.errors import LaunchRejected

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"

MAX_ID_TOKEN_CHARS = 64 * 1024
"""An LTI id_token is a few KiB; Canvas's largest with every claim stays under 16 KiB."""
MAX_STATE_CHARS = 255
LOGIN_PARAM_LIMITS: dict[str, int] = {
    "iss": 500,
    "client_id": 255,
    "lti_deployment_id": 255,
    "target_link_uri": 1000,
    "login_hint": 1024,
    "lti_message_hint": 4096,
}
"""Longest accepted value of each OIDC login parameter (the columns and the state row keep them)."""

ID = 255  # the String(255) identifier columns: sub, context id, resource link id, content id
URL = 1000  # the String(1000) URL columns
TEXT = 2000  # display text (names, titles): cut to its column when stored


def _text(limit: int = TEXT, **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(max=limit), allow_none=True, **kwargs)


def _id(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=ID), **kwargs)


class _Part(Schema):
    class Meta:
        unknown = INCLUDE


class ContextClaim(_Part):
    id = _id(required=True)
    title = _text()
    label = _text()
    type = fields.List(fields.String(), allow_none=True)


class ResourceLinkClaim(_Part):
    id = _id(required=True)
    title = _text()
    description = _text()


class AgsClaim(_Part):
    scope = fields.List(fields.String(validate=validate.Length(max=URL)))
    lineitem = _text(URL)
    lineitems = _text(URL)


class NrpsClaim(_Part):
    context_memberships_url = _text(URL)
    service_versions = fields.List(fields.String())


class DeepLinkingClaim(_Part):
    deep_link_return_url = fields.String(required=True, validate=validate.Length(min=1, max=URL))
    accept_types = fields.List(fields.String())


class Audience(fields.Field):
    """``aud``: one string or a list of strings (OIDC core 2)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return value
        raise ValidationError("must be a string or a list of strings")


class LaunchClaims(_Part):
    """Every claim the tool reads, with the type the spec gives it."""

    iss = fields.String(required=True, validate=validate.Length(min=1, max=500))
    aud = Audience(required=True)
    azp = fields.String(validate=validate.Length(max=ID), allow_none=True)
    sub = _id(required=True)
    nonce = _id(required=True)
    name = _text()
    given_name = _text()
    family_name = _text()
    email = _text()
    message_type = fields.String(required=True, data_key=CLAIM + "message_type")
    deployment_id = _id(required=True, data_key=CLAIM + "deployment_id")
    roles = fields.List(fields.String(validate=validate.Length(max=TEXT)), required=True,
                        data_key=CLAIM + "roles")
    context = fields.Nested(ContextClaim, data_key=CLAIM + "context")
    resource_link = fields.Nested(ResourceLinkClaim, data_key=CLAIM + "resource_link")
    custom = fields.Dict(keys=fields.String(), data_key=CLAIM + "custom")
    ags = fields.Nested(AgsClaim, data_key=AGS_CLAIM)
    nrps = fields.Nested(NrpsClaim, data_key=NRPS_CLAIM)
    deep_linking = fields.Nested(DeepLinkingClaim, data_key=DL_CLAIM)

    @validates("custom")
    def _custom(self, value: dict[str, Any], **_: Any) -> None:
        # Spec: a map of strings. The tool reads these three; a content id names a column.
        for key, limit in (("content_id", ID), ("max_attempts", 20), ("counting", 20),
                           ("code_attempts", 20)):
            if key in value and not (isinstance(value[key], str) and len(value[key]) <= limit):
                raise ValidationError(f"{key} must be a string of at most {limit} characters")


def _short(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _describe(messages: Mapping[str, Any] | list[Any] | str, prefix: str = "") -> list[str]:
    """Flatten marshmallow's messages into ``claim.field: problem`` lines (never the values)."""
    if isinstance(messages, Mapping):
        out: list[str] = []
        for key, inner in messages.items():
            out += _describe(inner, f"{prefix}{_short(str(key))}.")
        return out
    if isinstance(messages, list) and messages and all(isinstance(m, str) for m in messages):
        return [f"{prefix.rstrip('.')}: {' '.join(messages)}"]
    if isinstance(messages, list):
        return [line for m in messages for line in _describe(m, prefix)]
    return [f"{prefix.rstrip('.')}: {messages}"]


def claim_problems(body: Any) -> list[str]:
    """What is wrong with the id_token's claims, one line per claim; empty when they are usable.

    A deep-linking request must carry its settings claim; a resource-link request its link.
    """
    if not isinstance(body, dict):
        return ["the id_token body is not a JSON object"]
    try:
        data = LaunchClaims().load(body)
    except ValidationError as exc:
        return sorted(_describe(exc.messages))
    message_type = data["message_type"]
    if message_type == "LtiResourceLinkRequest" and "resource_link" not in data:
        return ["resource_link: required in a resource-link request"]
    if message_type == "LtiDeepLinkingRequest" and "deep_linking" not in data:
        return ["deep_linking_settings: required in a deep-linking request"]
    return []


def check_login_params(params: Mapping[str, str]) -> None:
    """Refuse a login initiation whose parameters are longer than the tool keeps."""
    for name, value in params.items():
        limit = LOGIN_PARAM_LIMITS.get(name)
        if limit is not None and len(value) > limit:
            raise LaunchRejected(f"login parameter {name} is {len(value)} characters long; "
                                 f"the limit is {limit}: the LMS sent a malformed login request")


def check_launch_form(id_token: str | None, state: str | None) -> None:
    """Refuse an oversized id_token or state before anything decodes or looks them up."""
    if id_token is not None and len(id_token) > MAX_ID_TOKEN_CHARS:
        raise LaunchRejected(f"the id_token is {len(id_token)} characters long; the limit is "
                             f"{MAX_ID_TOKEN_CHARS}: the LMS sent a malformed launch")
    if state is not None and len(state) > MAX_STATE_CHARS:
        raise LaunchRejected(f"the state parameter is {len(state)} characters long; the limit "
                             f"is {MAX_STATE_CHARS}: launch again from the LMS")
