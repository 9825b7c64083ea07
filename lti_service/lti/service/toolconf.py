"""Registrations from the database through pylti1p3's ``ToolConfAbstract``.

Every issuer is treated as "many client ids" so one LMS can hold several registrations.
pylti1p3 asks for the registration and the deployment several times per launch; the platform row
is looked up once per request session (memo in ``session.info``, which ends with the request).
"""

from __future__ import annotations

from typing import Any

from pylti1p3.deployment import Deployment as LtiDeployment
from pylti1p3.registration import Registration
from pylti1p3.tool_config import ToolConfAbstract
from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.models import Deployment, Platform
from lti_service.lti.service import keys


class DbRegistration(Registration):
    """A registration whose tool key is read only when something signs with it (a deep-link
    response, a service token request): an OIDC login and a launch never do, and each read
    the key row for nothing."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session

    def _load_key(self) -> None:
        if self._tool_private_key is None:
            key = keys.current_key(self._session)
            # pylti1p3 only hands the key to PyJWT, which takes a loaded key as well as PEM
            # text: loaded once per process (keys.signing_key), not once per signature.
            self.set_tool_private_key(keys.signing_key(key.private_pem))  # type: ignore[arg-type]
            self.set_tool_public_key(key.public_pem)

    def get_tool_private_key(self) -> Any:  # an RSAPrivateKey, where pylti1p3 says str
        self._load_key()
        return super().get_tool_private_key()

    def get_tool_public_key(self) -> Any:
        self._load_key()
        return super().get_tool_public_key()


def registration_for(session: Session, platform: Platform) -> Registration:
    """A pylti1p3 Registration signed with the tool's current key (read when first used)."""
    reg = DbRegistration(session)
    reg.set_issuer(platform.issuer)
    reg.set_client_id(platform.client_id)
    reg.set_auth_login_url(platform.auth_login_url)
    reg.set_auth_token_url(platform.auth_token_url)
    reg.set_key_set_url(platform.key_set_url)
    if platform.auth_audience:
        reg.set_auth_audience(platform.auth_audience)
    return reg


class DbToolConf(ToolConfAbstract):  # type: ignore[type-arg]
    def __init__(self, session: Session) -> None:
        self._session = session

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def platform(self, iss: str, client_id: str | None) -> Platform | None:
        memo: dict[tuple[str, str | None], Platform | None] = self._session.info.setdefault(
            "pathways_platforms", {})
        if (iss, client_id) not in memo:
            query = select(Platform).where(Platform.issuer == iss)
            if client_id:
                query = query.where(Platform.client_id == client_id)
            rows = list(self._session.scalars(query))
            # Without a client id (optional in OIDC login initiation) the issuer must be
            # unambiguous.
            memo[(iss, client_id)] = rows[0] if len(rows) == 1 else None
        return memo[(iss, client_id)]

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        return self.find_registration_by_params(iss, None, *args, **kwargs)

    def find_registration_by_params(  # type: ignore[override]
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Registration | None:
        platform = self.platform(iss, client_id)
        return registration_for(self._session, platform) if platform else None

    def find_deployment(self, iss: str, deployment_id: str) -> LtiDeployment | None:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(  # type: ignore[override]
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> LtiDeployment | None:
        platform = self.platform(iss, client_id)
        if platform is None:
            return None
        found = self._session.scalar(
            select(Deployment).where(
                Deployment.platform_id == platform.id, Deployment.deployment_id == deployment_id
            )
        )
        return LtiDeployment().set_deployment_id(deployment_id) if found else None
