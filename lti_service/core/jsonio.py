"""JSON request bodies that cannot crash the app.

Python's decoder recurses once per nesting level, so ``[[[[...`` a few thousand deep raises
RecursionError, which Flask's ``get_json`` does not catch (it turns only ValueError into a 400):
every such body was a 500. Here it is a ValueError like any other malformed body.
"""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider


class BoundedJSONProvider(DefaultJSONProvider):
    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError as exc:
            raise ValueError("the JSON body is nested too deeply") from exc
