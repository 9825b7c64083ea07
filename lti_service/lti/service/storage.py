"""pylti1p3 launch data (nonces, state marks, launch bodies) in the ``lti_storage`` table.

Keys are random (nonces, uuids), so no per-browser session cookie is needed: the only cookie a
launch depends on is pylti1p3's short-lived state cookie. Writes join the request's transaction,
so a rejected launch rolls them back with everything else.
"""

from __future__ import annotations

from typing import Any

from pylti1p3.launch_data_storage.base import LaunchDataStorage
from sqlalchemy.orm import Session

from lti_service.lti.service import kv


class DbLaunchDataStorage(LaunchDataStorage[Any]):
    _session_cookie_name = ""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._db = session

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return kv.get(self._db, self._prepare_key(key))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        kv.put(self._db, self._prepare_key(key), value, exp)

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None
