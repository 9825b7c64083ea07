"""My learning's import: a ZIP another deployment exported, checked whole before anything is
stored, and shown back defensively.

The archive is hostile until proven otherwise. Before a byte is decompressed: its size, its
number of entries, each entry's name, method (stored or deflated only), encryption flag and
declared size, and the total they declare. Reading is bounded by the declared sizes (a central
directory that lies fails its CRC or length check), every ``zipfile`` error becomes one clear
message. ``index.json`` is at most ``MAX_INDEX_BYTES`` and ``MAX_DEPTH`` deep (counted before it
is parsed), then the whole manifest is loaded by ``IndexSchema``: types, lengths, counts,
nesting, dates. Only what the schema loaded is stored; a record stored before these checks (or
that no longer loads) is shown as unreadable, never a 500 (``imported_view``).
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from lti_service.core.errors import ServiceError
from lti_service.learner.models import PortfolioImport

FORMAT = "jax-pathways-portfolio/1"
MAX_IMPORT_BYTES = 2 * 1024 * 1024
MAX_IMPORT_FILES = 500
MAX_UNPACKED_BYTES = 4 * MAX_IMPORT_BYTES
MAX_FILE_BYTES = 512 * 1024
MAX_INDEX_BYTES = 1024 * 1024
MAX_DEPTH = 8
"""index.json's deepest nesting is 5 (index > exercises > attempt > files > name)."""
MAX_NAME_CHARS = 255
MAX_RECORDS = 500
MAX_ANSWERS = 200
MAX_MESSAGES = 5
METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
NOT_AN_EXPORT = "this is not a ZIP file that My learning exported: choose that file"


class _Number(fields.Float):
    """A JSON number (not a string, not a boolean), finite."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError("must be a number")
        return super()._deserialize(value, attr, data, **kwargs)


class _Bool(fields.Boolean):
    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise ValidationError("must be true or false")
        return value


class _When(fields.String):
    """An ISO 8601 time as the export writes it, kept as text."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError("must be an ISO 8601 date and time") from None
        return text


def _text(limit: int = 500, **kw: Any) -> fields.String:
    return fields.String(validate=validate.Length(max=limit), **kw)


def _id(**kw: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=MAX_NAME_CHARS), required=True,
                         **kw)


def _score(**kw: Any) -> _Number:
    return _Number(allow_nan=False, validate=validate.Range(min=0, max=1e6), **kw)


def _list(inner: Any, limit: int, **kw: Any) -> fields.List:
    return fields.List(inner, validate=validate.Length(max=limit), **kw)


class _Part(Schema):
    class Meta:
        unknown = EXCLUDE  # a newer export's extra fields are dropped, never stored


class NoteSchema(_Part):
    lesson_id = _id()
    title = _text(load_default="")
    updated_at = _When(allow_none=True, load_default=None)
    file = _text(MAX_NAME_CHARS, load_default="")


class OpenedSchema(_Part):
    lesson_id = _id()
    title = _text(load_default="")
    first_opened_at = _When(allow_none=True, load_default=None)
    last_opened_at = _When(allow_none=True, load_default=None)
    opens = fields.Integer(strict=True, validate=validate.Range(min=0, max=10**6),
                           load_default=0)


class AnswerSchema(_Part):
    attempt = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=1000))
    choice = _text(50, required=True)
    label = _text(4, load_default="")
    text = _text(500, load_default="")
    correct = _Bool(required=True)
    at = _When(allow_none=True, load_default=None)


class CheckpointSchema(_Part):
    content_id = _id()
    title = _text(load_default="")
    answers = _list(fields.Nested(AnswerSchema), MAX_ANSWERS, required=True)
    score = _score(required=True)


class AttemptSchema(_Part):
    attempt = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=1000))
    status = _text(20, required=True)
    score = _score(allow_none=True, load_default=None)
    max_score = _score(allow_none=True, load_default=None)
    feedback = _text(20_000, allow_none=True, load_default="")
    at = _When(allow_none=True, load_default=None)
    files = _list(_text(MAX_NAME_CHARS), 10, load_default=list)


class ExerciseSchema(_Part):
    content_id = _id()
    title = _text(load_default="")
    attempts = _list(fields.Nested(AttemptSchema), MAX_ANSWERS, required=True)
    best = _score(allow_none=True, load_default=None)
    max_score = _score(allow_none=True, load_default=None)
    where = fields.String(validate=validate.OneOf(("exercise", "lesson")),
                          load_default="exercise")


class IdentitySchema(_Part):
    issuer = _text(1000, required=True)
    sub = _text(MAX_NAME_CHARS, required=True)


class IndexSchema(_Part):
    """The whole of ``index.json`` (``portfolio.index_of`` writes it)."""

    format = fields.String(required=True, validate=validate.Equal(FORMAT))
    learner = _text(MAX_NAME_CHARS, load_default="")
    identity = fields.Nested(IdentitySchema, allow_none=True, load_default=None)
    """Whose export it is (LMS issuer, subject); None: exported before it was written."""
    course = _text(500, load_default="")
    tool = _text(1000, load_default="")
    notes = _list(fields.Nested(NoteSchema), MAX_RECORDS, load_default=list)
    lessons_opened = _list(fields.Nested(OpenedSchema), MAX_RECORDS, load_default=list)
    checkpoints = _list(fields.Nested(CheckpointSchema), MAX_RECORDS, required=True)
    exercises = _list(fields.Nested(ExerciseSchema), MAX_RECORDS, required=True)

    @validates_schema
    def _total(self, data: dict[str, Any], **_: Any) -> None:
        attempts = sum(len(e["attempts"]) for e in data.get("exercises", []))
        if attempts > MAX_IMPORT_FILES:
            raise ValidationError(f"more than {MAX_IMPORT_FILES} exercise attempts")


def _short(key: object) -> str:
    return str(key)[:40]


def describe(messages: Mapping[str, Any] | list[Any] | str, prefix: str = "") -> list[str]:
    """marshmallow's messages as ``where: problem`` lines (paths and rules, never values)."""
    if isinstance(messages, Mapping):
        return [line for key, inner in messages.items()
                for line in describe(inner, f"{prefix}{_short(key)}.")]
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return [f"{prefix.rstrip('.') or 'index.json'}: {' '.join(messages)}"]
    if isinstance(messages, list):
        return [line for m in messages for line in describe(m, prefix)]
    return [f"{prefix.rstrip('.') or 'index.json'}: {messages}"]


def load_index(raw: Any) -> dict[str, Any]:
    """The manifest as stored, or ServiceError naming what is wrong (at most a few lines)."""
    if not isinstance(raw, dict):
        raise ServiceError("index.json is not a JSON object: it is not a My learning export")
    if raw.get("format") != FORMAT:
        raise ServiceError(f"index.json is not a {FORMAT} index")
    try:
        return dict(IndexSchema().load(raw))
    except ValidationError as exc:
        lines = sorted(describe(exc.messages))
        more = f" (and {len(lines) - MAX_MESSAGES} more)" if len(lines) > MAX_MESSAGES else ""
        raise ServiceError("index.json is not a valid My learning index: "
                           + "; ".join(lines[:MAX_MESSAGES]) + more) from None


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings, counted without parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _check_entry(info: zipfile.ZipInfo) -> None:
    name = info.filename
    if len(name) > MAX_NAME_CHARS or name.startswith(("/", "\\")) or "\\" in name \
            or ".." in name.split("/") or "\x00" in name:
        raise ServiceError("the ZIP holds a file whose name is not one My learning writes")
    if info.flag_bits & 0x1:
        raise ServiceError("the ZIP is encrypted: My learning exports are not")
    if info.compress_type not in METHODS:
        raise ServiceError("the ZIP uses a compression method My learning does not write "
                           "(only stored and deflated)")
    if info.file_size > (MAX_INDEX_BYTES if name == "index.json" else MAX_FILE_BYTES):
        raise ServiceError(f"the ZIP's {name[:80]!r} is larger than a My learning export's")


def _entries(data: bytes) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    if len(data) > MAX_IMPORT_BYTES:
        raise ServiceError(f"the ZIP is {len(data)} bytes; the limit is {MAX_IMPORT_BYTES}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError, RuntimeError, UnicodeDecodeError, RecursionError):
        raise ServiceError(NOT_AN_EXPORT) from None
    if len(infos) > MAX_IMPORT_FILES:
        raise ServiceError(f"the ZIP holds {len(infos)} files; the limit is {MAX_IMPORT_FILES}")
    for info in infos:
        _check_entry(info)
    if sum(i.file_size for i in infos) > MAX_UNPACKED_BYTES:
        raise ServiceError("the ZIP unpacks to too much data to be a My learning export")
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise ServiceError("the ZIP holds two files of the same name")
    if "index.json" not in names:
        raise ServiceError("the ZIP has no index.json: it is not a My learning export")
    return zf, infos


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One entry, at most its (checked) declared size; a lying or damaged entry is refused."""
    try:
        with zf.open(info) as handle:
            return handle.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError):
        raise ServiceError(f"the ZIP's {info.filename[:80]!r} is damaged (its size or checksum "
                           "does not match): export it again") from None


def read_zip(data: bytes) -> tuple[dict[str, Any], dict[str, str]]:
    """(index, files) of an exported portfolio; ServiceError says what is wrong with it."""
    zf, infos = _entries(data)
    with zf:
        raw_index = _read(zf, zf.getinfo("index.json"))
        if json_depth(raw_index) > MAX_DEPTH:
            raise ServiceError(f"index.json is nested deeper than {MAX_DEPTH} levels: it is not "
                               "a My learning index")
        try:
            parsed = json.loads(raw_index)
        except (ValueError, RecursionError):
            raise ServiceError("index.json is not JSON: it is not a My learning export"
                               ) from None
        index = load_index(parsed)
        files = {}
        for info in infos:
            if info.filename == "index.json" or info.is_dir():
                continue
            try:
                files[info.filename] = _read(zf, info).decode("utf-8")
            except UnicodeDecodeError:
                raise ServiceError(f"the ZIP's {info.filename[:80]!r} is not UTF-8 text"
                                   ) from None
    return index, files


@dataclass(frozen=True)
class ImportedView:
    """An imported record as My learning shows it: the manifest as the schema loads it now."""

    source: str
    imported_at: datetime | None
    manifest: dict[str, Any] = field(default_factory=dict)
    files: int = 0
    readable: bool = True
    id: int = 0
    identity: str = ""
    """Empty: the learner's own export; else the label saying whose it may be."""
    names: tuple[str, ...] = ()
    """The paths of its files (code, outputs, receipts, notes), each viewable."""


def imported_view(row: PortfolioImport) -> ImportedView:
    """Never raises: a stored manifest that does not load is shown as unreadable."""
    source, identity = str(row.source or "")[:500], str(row.identity or "")[:500]
    try:
        manifest = load_index(row.manifest)
    except (ServiceError, TypeError, ValueError, RecursionError):
        return ImportedView(source, row.imported_at, readable=False, id=row.id,
                            identity=identity)
    files = row.files if isinstance(row.files, dict) else {}
    return ImportedView(source, row.imported_at, manifest, len(files), id=row.id,
                        identity=identity,
                        names=tuple(sorted(str(n) for n in files)[:MAX_IMPORT_FILES]))


def imported_file(row: PortfolioImport, name: str) -> str | None:
    """The text of one file of an imported record (None: it has no such file)."""
    files = row.files if isinstance(row.files, dict) else {}
    text = files.get(name)
    return text if isinstance(text, str) else None
