"""My learning's import, the storing side: ``portfolio_import`` has checked the ZIP whole.

An import restores what the export holds: evidence notes go back into the learner's own notes
(never over a different note: appended under a marked heading, once), code, outputs and receipts
stay viewable with the imported record. It is idempotent (its digest: the same export twice is
one import, and a note already restored is not added again). The export says whose it is (LMS
issuer and subject): another learner's export from the same LMS is refused; one from another
LMS (or one that does not say) is imported with a label saying this tool cannot confirm whose
it is, shown on the record and on each of its files.
The identity in a ZIP is not signed: the check stops mistakes, not a forger.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsUser, Platform, utcnow
from lti_service.learner.models import EvidenceNote, PortfolioImport
from lti_service.learner.service.portfolio_import import read_zip

MAX_NOTE_CHARS = 20_000
NOTE_MARK = "<!-- imported from My learning: {} -->"


@dataclass(frozen=True)
class ImportOutcome:
    row: PortfolioImport
    new: bool
    """False: this export was imported before; nothing changed."""
    notes_restored: int = 0


def digest_of(index: dict[str, Any], files: dict[str, str]) -> str:
    """The export's content, not its ZIP bytes: the same export re-zipped is the same digest."""
    canonical = json.dumps([index, files], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def identity_label(session: Session, user: LmsUser, index: dict[str, Any]) -> str:
    """Empty when the export is this learner's; else what My learning says about it (a ZIP of
    another learner of the same LMS is refused: ServiceError)."""
    claimed = index.get("identity")
    who = index.get("learner") or "someone"
    if not claimed:
        return (f"Not confirmed as yours: this ZIP does not say whose it is (exported by {who} "
                "before exports recorded it).")
    issuer = session.scalar(select(Platform.issuer).where(Platform.id == user.platform_id))
    if claimed["issuer"] == issuer and claimed["sub"] == user.sub:
        return ""
    if claimed["issuer"] == issuer:
        raise ServiceError("this ZIP was exported by another learner of this LMS: My learning "
                           "imports only your own work")
    return (f"Not confirmed as yours: exported by {who} on another LMS "
            f"({claimed['issuer'][:200]}), where this tool cannot check who you are.")


def restore_notes(session: Session, user: LmsUser, index: dict[str, Any],
                  files: dict[str, str], source: str) -> int:
    """Put the export's evidence notes back: into an empty note, or appended once under a
    marked heading (never over what the learner wrote here). Returns how many changed."""
    changed = 0
    for note in index.get("notes", []):
        text = files.get(note.get("file") or f"notes/{note['lesson_id']}.md", "")
        text = text.replace("\r\n", "\n").strip()
        if not text:
            continue
        row = session.scalar(select(EvidenceNote).where(
            EvidenceNote.user_id == user.id, EvidenceNote.lesson_id == note["lesson_id"]))
        mine = row.text.strip() if row is not None else ""
        if text in mine:
            continue  # already there (this import, or the learner's own words)
        merged = text if not mine else f"{mine}\n\n{NOTE_MARK.format(source[:200])}\n{text}"
        if len(merged) > MAX_NOTE_CHARS:
            continue  # kept with the imported record, viewable there
        if row is None:
            row = EvidenceNote(user_id=user.id, lesson_id=note["lesson_id"])
            session.add(row)
        row.text, row.updated_at = merged, utcnow()
        changed += 1
    session.flush()
    return changed


def import_zip(session: Session, user: LmsUser, data: bytes) -> ImportOutcome:
    """Store a checked export as the learner's imported work and restore its notes (nothing
    is stored on an error; the same export twice changes nothing the second time)."""
    index, files = read_zip(data)
    identity = identity_label(session, user, index)
    digest = digest_of(index, files)
    seen = session.scalar(select(PortfolioImport).where(
        PortfolioImport.user_id == user.id, PortfolioImport.digest == digest))
    if seen is not None:
        return ImportOutcome(seen, new=False)
    source = f"{index['course']} ({index['tool']})"[:500]
    row = PortfolioImport(user_id=user.id, manifest=index, files=files, source=source,
                          digest=digest, identity=identity[:500])
    session.add(row)
    session.flush()
    restored = restore_notes(session, user, index, files, source)
    return ImportOutcome(row, new=True, notes_restored=restored)
