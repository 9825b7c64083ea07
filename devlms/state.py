"""A devlms state folder: the platform key and the store, kept across restarts.

Without one, a restarted devlms has a new signing key (every access token it issued before is
void) and no links, line items or scores: the tool's placements point at nothing. With one, a
restart is what an LMS's restart is: the same key, the same course and gradebook.
"""

from __future__ import annotations

from pathlib import Path

from .config import DevLmsConfig
from .store import Store

KEY_FILE = "platform_key.pem"
STORE_FILE = "store.json"


def open_state(cfg: DevLmsConfig, state_dir: Path) -> Store:
    """Give ``cfg`` the key kept in ``state_dir`` (written on first use); return its store."""
    state_dir.mkdir(parents=True, exist_ok=True)
    key_path = state_dir / KEY_FILE
    if not key_path.exists():
        key_path.write_text(cfg.private_key_pem)
        key_path.chmod(0o600)
    cfg.private_key_pem = key_path.read_text()
    return Store.load(state_dir / STORE_FILE)
