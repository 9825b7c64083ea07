"""pylti1p3 launch data (nonces, state marks, launch bodies) in the ``lti_storage`` table.

Keys are random (nonces, uuids), so no per-browser session cookie is needed: the only cookie a
launch depends on is pylti1p3's short-lived state cookie. Writes join the request's transaction,
so a rejected launch rolls them back with everything else.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pylti1p3.launch_data_storage.base import LaunchDataStorage
from sqlalchemy.orm import Session

from ..models import LtiStorage, utcnow


class DbLaunchDataStorage(LaunchDataStorage[Any]):
    _session_cookie_name = ""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._db = session

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        row = self._db.get(LtiStorage, self._prepare_key(key))
        if row is None or (row.expires_at is not None and row.expires_at < utcnow()):
            return None
        return row.value

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        expires = utcnow() + timedelta(seconds=exp) if exp else None
        self._db.merge(LtiStorage(key=self._prepare_key(key), value=value, expires_at=expires))
        self._db.flush()

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None
