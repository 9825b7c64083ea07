"""Strict schemas with a version field, and marshmallow errors turned into Problems.

Every content file carries ``schema: N``. Files written for an older version are upgraded in
memory by the functions in ``UPGRADES`` (one per step, N -> N+1), so old content keeps loading
and the upgrade is explicit code, not a silent reinterpretation (nbgrader's lesson).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields

from course.errors import Problem
from course.yamlsource import YamlDoc

CURRENT_VERSION = 1

Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
# kind -> {from_version: function returning the data at from_version + 1}
UPGRADES: dict[str, dict[int, Upgrade]] = {
    # Version 0 is the unversioned layout of the generated records in docs/CONTRACTS.md
    # ({"data", "provenance"} / {"command", "output", "provenance"}); version 1 adds only the
    # `schema` field itself, so the step is the identity.
    "figure-data": {0: dict},
    "receipt": {0: dict},
}
# Generated records written before versioning have no `schema` field: read them as version 0.
UNVERSIONED_IS_ZERO = {"figure-data", "receipt"}


class StrictSchema(Schema):
    """Rejects unknown fields: a misspelt optional field must not silently vanish."""

    class Meta:
        unknown = RAISE


class Text(fields.String):
    """A required-by-default non-empty string."""

    def __init__(self, **kwargs: Any) -> None:
        from marshmallow import validate

        kwargs.setdefault("required", True)
        kwargs.setdefault("validate", validate.Length(min=1))
        super().__init__(**kwargs)


def Int(**kwargs: Any) -> fields.Integer:  # noqa: N802 - reads like a field class
    kwargs.setdefault("required", True)
    return fields.Integer(strict=True, **kwargs)


def Bool(**kwargs: Any) -> fields.Boolean:  # noqa: N802
    kwargs.setdefault("required", True)
    return fields.Boolean(truthy={True}, falsy={False}, **kwargs)


def TextList(**kwargs: Any) -> fields.List:  # noqa: N802
    kwargs.setdefault("required", True)
    return fields.List(Text(), **kwargs)


def _fix_for(message: str, field: str, schema: Schema | None) -> str:
    if message == "Unknown field.":
        allowed = ", ".join(sorted(schema.fields)) if schema is not None else ""
        return f"remove `{field}` or correct its spelling" + (
            f" (allowed here: {allowed})" if allowed else ""
        )
    if message.startswith("Missing data for required field"):
        return f"add the required field `{field}`"
    if message.startswith("Not a valid string"):
        return "give text here (quote it if YAML reads it as a number, date or boolean)"
    if message.startswith("Not a valid integer"):
        return "give a whole number without quotes"
    if message.startswith("Not a valid boolean"):
        return "write true or false"
    if message.startswith("Not a valid list"):
        return "give a YAML list (one `- item` per line, or [a, b])"
    if message.startswith("Invalid input type") or message.startswith("Not a valid mapping"):
        return "give a mapping of `key: value` fields here"
    if message.startswith("Shorter than minimum length"):
        return "fill in this field; it must not be empty"
    if message.startswith("a checkpoint needs"):
        return "give the checkpoint 3, 4 or 5 choices"
    if message.startswith("exactly one choice must be correct in every variant"):
        return ("adjust the choices' `correct_when` so that each combination of parameter "
                "values makes exactly one choice correct")
    if "give either `correct` or `correct_when`" in message:
        return ("write `correct: true|false`, or `correct_when: {name: [values]}` for a choice "
                "whose correctness depends on the parameters")
    if message.endswith("is not a declared parameter") or "correct_when" in message:
        return "declare the parameter and its values under the checkpoint's `params`"
    if message.startswith("two choices read the same"):
        return "make the choice texts differ in every variant"
    if message.startswith("exactly one choice"):
        return "mark the one right answer `correct: true` and every other `correct: false`"
    if message.startswith("Must be one of"):
        return f"use one of the values the message lists for `{field}`"
    return "correct this value as the message says (see docs/AUTHORING.md)"


def _schema_at(schema: Schema | None, key: str) -> Schema | None:
    if schema is None or key not in schema.fields:
        return None
    field = schema.fields[key]
    inner = getattr(field, "inner", None)
    if isinstance(inner, fields.Nested):
        field = inner
    if isinstance(field, fields.Nested):
        nested = field.nested
        return nested() if isinstance(nested, type) else nested  # type: ignore[return-value]
    return None


def flatten_errors(
    messages: Any, schema: Schema | None, path: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], str, str]]:
    """marshmallow's nested error dict -> [(path, message, fix)]."""
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            if isinstance(key, int):
                out.extend(flatten_errors(value, schema, (*path, key)))
            else:
                out.extend(flatten_errors(value, _schema_at(schema, key), (*path, key))
                           if isinstance(value, Mapping)
                           else [(
                               (*path, key), str(m), _fix_for(str(m), key, schema)
                           ) for m in value])
    elif isinstance(messages, list):
        name = str(path[-1]) if path else ""
        out.extend((path, str(m), _fix_for(str(m), name, schema)) for m in messages)
    return out


def format_path(path: tuple[str | int, ...]) -> str:
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text


def _where(path: tuple[str | int, ...], doc: YamlDoc | None) -> str:
    field = format_path(path)
    line = doc.line_of(path) if doc is not None else None
    if line is None:
        return field
    return f"{field} (line {line})" if field else f"line {line}"


def load_document(
    kind: str,
    schema: Schema,
    doc: YamlDoc,
    file: str,
    upgrades: Mapping[str, Mapping[int, Upgrade]] | None = None,
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Check the version, upgrade, and validate ``doc.data`` against ``schema``."""
    data = doc.data
    if not isinstance(data, dict):
        return None, [Problem(file, "", f"expected a mapping of fields, got "
                              f"{type(data).__name__}", "write `key: value` fields (see "
                              "docs/AUTHORING.md for the fields of this file)")]
    data, problems = upgrade(kind, data, file, doc, UPGRADES if upgrades is None else upgrades)
    if data is None:
        return None, problems
    try:
        loaded = schema.load(data)
    except ValidationError as exc:
        return None, [
            Problem(file, _where(path, doc), message, fix)
            for path, message, fix in flatten_errors(exc.messages, schema)
        ]
    return loaded, []


def upgrade(
    kind: str,
    data: dict[str, Any],
    file: str,
    doc: YamlDoc | None,
    upgrades: Mapping[str, Mapping[int, Upgrade]],
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Bring ``data`` from its ``schema`` version to CURRENT_VERSION through explicit steps."""
    if "schema" not in data and kind in UNVERSIONED_IS_ZERO:
        data = {"schema": 0, **data}
    version = data.get("schema")
    where = _where(("schema",), doc)
    if "schema" not in data:
        return None, [Problem(file, format_path(()) or "schema", "no schema version",
                              f"add `schema: {CURRENT_VERSION}` as the first field")]
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        return None, [Problem(file, where, f"schema version must be a whole number, got "
                              f"{version!r}", f"write `schema: {CURRENT_VERSION}`")]
    if version > CURRENT_VERSION:
        return None, [Problem(file, where, f"schema {version} is newer than this course tool "
                              f"understands (up to {CURRENT_VERSION})",
                              "upgrade jax-pathways, or write the file for schema "
                              f"{CURRENT_VERSION}")]
    steps = upgrades.get(kind, {})
    while version < CURRENT_VERSION:
        step = steps.get(version)
        if step is None:
            return None, [Problem(file, where, f"no upgrade from schema {version} of a {kind} "
                                  "file", f"rewrite the file for schema {CURRENT_VERSION} "
                                  "(docs/AUTHORING.md)")]
        data = dict(step(dict(data)))
        version += 1
        data["schema"] = version
    return data, []
