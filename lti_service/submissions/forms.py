"""The submit form: paste or upload ``main.py``; size and UTF-8 checked, marshmallow-validated."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema
from werkzeug.datastructures import FileStorage


class SubmitSchema(Schema):
    source = fields.String(required=True, validate=validate.Length(min=1))

    def __init__(self, *, max_bytes: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_bytes = max_bytes

    @validates_schema
    def _limits(self, data: dict[str, Any], **_: Any) -> None:
        source = data.get("source", "")
        size = len(source.encode("utf-8"))
        if size > self.max_bytes:
            raise ValidationError(f"main.py is {size} bytes; the limit is {self.max_bytes}. "
                                  "Remove large data or comments and submit again.", "source")
        if not source.strip():
            raise ValidationError("main.py is empty: paste your code or choose the file.",
                                  "source")
        if "\x00" in source:
            raise ValidationError("main.py contains NUL bytes: it is not a text file.", "source")


def read_upload(upload: FileStorage | None, pasted: str | None,
                max_bytes: int) -> dict[str, str]:
    """The raw form data for SubmitSchema: an uploaded file wins over pasted text.

    Raises ValidationError when the upload is too big or not UTF-8 (with the byte offset).
    """
    if upload is not None and upload.filename:
        raw = upload.stream.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise ValidationError({"source": [f"{upload.filename} is larger than {max_bytes} "
                                              "bytes; submit only main.py."]})
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError({"source": [
                f"{upload.filename} is not UTF-8 text (byte {exc.start} is {raw[exc.start]:#x}); "
                "save it as UTF-8 in your editor and upload again."]}) from exc
        return {"source": text.removeprefix("\ufeff")}
    return {"source": (pasted or "").replace("\r\n", "\n")}
