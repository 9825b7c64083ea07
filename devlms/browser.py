"""A form-following HTTP client: drives LTI flows the way a browser does, without JavaScript.

It follows redirects, submits the auto-posting forms that LTI uses (id_token to the tool,
deep-linking JWT to the platform: an inline ``.submit()`` or a ``form.auto-submit``), and can
fill and submit any form on a page. Used by the tests (tests/lti_service, tests/devlms); real
browsers are driven with Playwright elsewhere.
"""

from __future__ import annotations

import http.cookiejar
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

import requests


@dataclass
class Form:
    action: str
    method: str
    attrs: dict[str, str]
    fields: list[tuple[str, str]] = field(default_factory=list)
    options: dict[str, list[str]] = field(default_factory=dict)


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._select: str | None = None
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        if tag == "form":
            self.forms.append(Form(attrs.get("action", ""), attrs.get("method", "get").lower(),
                                   attrs))
        elif tag == "script":
            self._in_script = True
        elif not self.forms:
            return
        elif tag == "input" and attrs.get("name"):
            kind = attrs.get("type", "text")
            form = self.forms[-1]
            if kind in ("checkbox", "radio"):
                form.options.setdefault(attrs["name"], []).append(attrs.get("value", "on"))
                if "checked" in attrs:
                    form.fields.append((attrs["name"], attrs.get("value", "on")))
            elif kind not in ("submit", "button"):
                form.fields.append((attrs["name"], attrs.get("value", "")))
        elif tag == "select" and attrs.get("name"):
            self._select = attrs["name"]
        elif tag == "option" and self._select:
            form = self.forms[-1]
            form.options.setdefault(self._select, []).append(attrs.get("value", ""))
            if "selected" in attrs:
                form.fields.append((self._select, attrs.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def forms(html: str) -> tuple[list[Form], str]:
    parser = _FormParser()
    parser.feed(html)
    return parser.forms, "".join(parser.scripts)


class Browser:
    def __init__(self, *, block_cookies: bool = False) -> None:
        self.http = requests.Session()
        if block_cookies:
            self.http.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        self.history: list[requests.Response] = []

    def _auto(self, response: requests.Response) -> requests.Response:
        for _ in range(10):
            self.history.append(response)
            if "html" not in response.headers.get("Content-Type", ""):
                return response
            found, scripts = forms(response.text)
            # An inline ``form.submit()`` (devlms, pylti1p3), or the tool's form.auto-submit
            # (its CSP allows only script files: ``static/auto_submit.js`` submits it).
            auto = ".submit()" in scripts or (
                found and "auto-submit" in found[0].attrs.get("class", "").split())
            if not found or not auto:
                return response
            response = self.submit(response, found[0], auto=False)
        return response

    def get(self, url: str, **kwargs: object) -> requests.Response:
        return self._auto(self.http.get(url, timeout=30, **kwargs))  # type: ignore[arg-type]

    def submit(self, page: requests.Response, form: Form | None = None, *, auto: bool = True,
               data: dict[str, str | list[str]] | None = None) -> requests.Response:
        """Submit ``form`` (default: the page's first) with ``data`` replacing its fields."""
        if form is None:
            form = forms(page.text)[0][0]
        values: list[tuple[str, str]] = [(k, v) for k, v in form.fields
                                         if not data or k not in data]
        for key, value in (data or {}).items():
            for v in value if isinstance(value, list) else [value]:
                values.append((key, v))
        url = urljoin(page.url, form.action or page.url)
        if form.method == "post":
            response = self.http.post(url, data=values, timeout=30)
        else:
            response = self.http.get(url, params=values, timeout=30)
        return self._auto(response) if auto else response
