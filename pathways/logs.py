"""Structured logs for every process (web, consumer, worker): one JSON object per line.

Each call's ``extra`` fields become keys of the object, except those whose name says they may
carry a secret or a learner's code (a token, a key, the submitted source, a run's output): those
are replaced by a marker, so a careless ``extra=`` cannot put them in the log.
"""

from __future__ import annotations

import json
import logging
import re
import time

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
# Substrings of an extra field's name that keep its value out of the log.
WITHHELD = ("token", "secret", "password", "key", "authorization", "cookie", "source", "code",
            "stdout", "stderr")
MARK = "[withheld]"
# A secret in a URL's query or a form body (a launch token ``lt=``, an id_token, a code).
_QUERY_SECRET = re.compile(r"(?i)\b(lt|id_token|access_token|token|code|state|client_assertion|"
                           r"csrf_token)=[^&\s\"']+")


def scrub(text: str) -> str:
    """``text`` with every secret-bearing query parameter's value replaced by the marker."""
    return _QUERY_SECRET.sub(lambda m: f"{m.group(1)}={MARK}", text)


class ScrubFilter(logging.Filter):
    """Scrubs the formatted message of every record it sees (gunicorn's error log prints a
    failed request's URL, query included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is logged as it is
            return True
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def _withheld(name: str) -> bool:
    lowered = name.lower()
    return any(part in lowered for part in WITHHELD) and not lowered.endswith(("_id", "_count"))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = {"ts": round(time.time(), 3), "level": record.levelname, "logger": record.name,
                "msg": scrub(record.getMessage())}
        data.update({k: MARK if _withheld(k) else v for k, v in vars(record).items()
                     if k not in _STANDARD})
        if record.exc_info:
            data["exc"] = scrub(self.formatException(record.exc_info))
        return json.dumps(data, default=str)


def configure(level: str = "INFO") -> None:
    """JSON lines on stderr at ``level`` (each process's own configuration supplies it)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
