"""The tool signs with its key loaded once per process. Handed PEM text, PyJWT loads and checks
the RSA key (~15-30 ms of CPU, several signatures' worth) for every token: every deep-link
response and service-token request of a class would pay it (lti_service/lti/service/keys.py)."""

from __future__ import annotations

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask
from sqlalchemy import select

from lti_service.core.extensions import state
from lti_service.core.models import Platform
from lti_service.lti.service import keys
from lti_service.lti.service.toolconf import registration_for


def test_every_registration_signs_with_one_loaded_key_the_jwks_names(app: Flask,
                                                                      platform) -> None:  # noqa: ANN001
    with state(app).sessions() as session:
        row = session.scalars(select(Platform)).one()
        registrations = [registration_for(session, row) for _ in range(3)]
        loaded = [r.get_tool_private_key() for r in registrations]
        current = keys.current_key(session)
        published = {k["kid"] for k in keys.jwks(session)["keys"]}
    assert isinstance(loaded[0], rsa.RSAPrivateKey)
    assert all(key is loaded[0] for key in loaded), "loaded once, not once per registration"
    # What pylti1p3 sends (a deep-link response, a client assertion) still verifies with the
    # published key, under a kid the JWKS lists.
    kid = registrations[0].get_kid()
    token = jwt.encode({"iss": "tool"}, loaded[0], algorithm="RS256", headers={"kid": kid})
    assert jwt.decode(token, current.public_pem, algorithms=["RS256"]) == {"iss": "tool"}
    assert kid in published


def test_a_rotated_key_is_loaded_anew() -> None:
    first, _ = keys.new_key_pair()
    second, _ = keys.new_key_pair()
    assert keys.signing_key(first) is keys.signing_key(first)
    assert keys.signing_key(second) is not keys.signing_key(first)
