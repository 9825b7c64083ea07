"""Forms need this launch's CSRF token and our Origin; the JSON API takes only a bearer token;
cookies follow the request's scheme through ProxyFix; launch tokens expire.

Every refused request leaves everything recorded as it was (``recorded``), and each test also
sends the same request the way the tool's own page does, which is accepted.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urljoin

import requests
from tool_pages import CHECKPOINT, EXERCISE, recorded
from tool_pages import api as _api
from tool_pages import hidden as _hidden
from tool_pages import placement_id as _placement_id
from tool_pages import token as _token

from devlms.browser import Browser, forms
from lti_service.core.tokens import seal, unseal
from lti_service.outbox.service.delivery import deliver_due

EVIL = "https://evil.example"


def _refused(stack: Any, url: str, form: dict[str, str], fields: dict[str, Any],
             session: requests.Session | None = None) -> None:
    """Post ``fields`` to ``url`` with the form's launch token but a missing or wrong CSRF
    token, or the right one from a foreign Origin: each is 403."""
    http = session or requests.Session()
    tool_host = stack.tool_url.split("//", 1)[1]
    cases: dict[str, tuple[dict[str, str], dict[str, str]]] = {
        "no CSRF token": ({"lt": form["lt"]}, {}),
        "wrong CSRF token": ({**form, "csrf_token": "0" * 40}, {}),
        "foreign Origin": (form, {"Origin": EVIL}),
        "Origin null": (form, {"Origin": "null"}),
        "look-alike Origin": (form, {"Origin": f"http://{tool_host}.evil.example"}),
        "other scheme Origin": (form, {"Origin": "https://" + tool_host}),
    }
    for case, (data, headers) in cases.items():
        r = http.post(url, data={**data, **fields}, headers=headers, timeout=30,
                      allow_redirects=False)
        assert r.status_code == 403, (case, r.status_code, r.text[:300])


def test_the_checkpoint_form_needs_its_csrf_token_and_our_origin(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link([CHECKPOINT])[0]
    alice = Browser()
    page = stack.launch(alice, link["id"], "alice")
    bob_form = _hidden(stack.launch(Browser(), link["id"], "bob"), "/answer")
    url = f"{stack.tool_url}/learn/{_placement_id(page)}/answer"
    form = _hidden(page, "/answer")
    before = recorded(stack)

    _refused(stack, url, form, {"choice": "a"})
    r = requests.post(url, data={**form, "csrf_token": bob_form["csrf_token"], "choice": "a"},
                      timeout=30)
    assert r.status_code == 403, "another launch's CSRF token"
    # Classic CSRF: a cross-site page posts to the tool; the browser adds alice's cookie.
    assert "session" in alice.http.cookies
    for headers in ({"Origin": EVIL}, {}):
        r = alice.http.post(url, data={"choice": "a"}, headers=headers, timeout=30)
        assert r.status_code == 403, (headers, r.text[:300])
    assert recorded(stack) == before

    # alice's own page: cookie or lt, its CSRF token, our Origin.
    r = alice.http.post(url, data={"csrf_token": form["csrf_token"], "choice": "a"},
                        headers={"Origin": stack.tool_url}, timeout=30)
    assert r.status_code == 200 and "Attempt 1" in r.text, r.text[:300]
    assert recorded(stack)["attempts"] == before["attempts"] + 1


def test_resend_deep_link_and_submit_forms_need_csrf_and_our_origin(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    checkpoint, exercise = stack.deep_link([CHECKPOINT, EXERCISE])
    learner = stack.launch(Browser(), checkpoint["id"], "alice")
    answered = _api(stack, "POST", f"/api/placements/{_placement_id(learner)}/checkpoint-answers",
                    _token(learner), json={"choice": "a"})
    assert answered.status_code == 201
    with stack.db() as session:
        assert deliver_due(session, rules=stack.rules) == 1
    teacher = Browser()
    view = teacher.get(f"{stack.tool_url}/instructor/class?lt="
                       + _token(stack.launch(teacher, checkpoint["id"], "teacher")))
    picker = Browser().get(stack.lms_url + "/deep-link?user=teacher")
    exercise_page = stack.launch(Browser(), exercise["id"], "alice")
    responses = len(stack.lms_store.deep_link_responses)
    before = recorded(stack)
    assert before["outbox"] == [("delivered", 1.0)]

    _refused(stack, urljoin(view.url, "/instructor/resend"), _hidden(view, "/resend"), {})
    deep_link = _hidden(picker, "/lti/deep-link")
    _refused(stack, stack.tool_url + "/lti/deep-link", deep_link, {"content_id": CHECKPOINT})
    submit_url = exercise_page.url.split("?")[0] + "/submit"
    _refused(stack, submit_url, _hidden(exercise_page, "/submit"), {"source": "masked = x\n"})
    assert recorded(stack) == before
    assert len(stack.lms_store.deep_link_responses) == responses

    # The pages' own forms go through.
    resent = teacher.submit(view, next(f for f in forms(view.text)[0]
                                       if f.action.endswith("/resend")))
    assert resent.status_code == 200
    assert recorded(stack)["outbox"] == [("pending", 1.0)]
    r = requests.post(stack.tool_url + "/lti/deep-link", timeout=30,
                      data={**deep_link, "content_id": CHECKPOINT},
                      headers={"Origin": stack.tool_url})
    assert r.status_code == 200 and 'name="JWT"' in r.text


def test_the_json_api_takes_only_a_bearer_token(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link([CHECKPOINT])[0]
    alice = Browser()
    page = stack.launch(alice, link["id"], "alice")
    token, pid = _token(page), _placement_id(page)
    url = f"{stack.tool_url}/api/placements/{pid}/checkpoint-answers"
    before = recorded(stack)

    # alice's cookie does open her page (so it is a working launch cookie)...
    assert alice.http.get(f"{stack.tool_url}/learn/{pid}", timeout=30).status_code == 200
    # ...but not the API, nor does the token in the URL or a form.
    assert alice.http.post(url, json={"choice": "a"}, timeout=30).status_code == 401
    assert requests.post(url, params={"lt": token}, json={"choice": "a"},
                         timeout=30).status_code == 401
    assert requests.post(url, data={"lt": token, "choice": "a"}, timeout=30).status_code == 401
    r = requests.post(url, json={"choice": "a"}, timeout=30,
                      headers={"X-Pathways-Launch": token, "Origin": EVIL})
    assert r.status_code == 403
    assert recorded(stack) == before

    r = requests.post(url, json={"choice": "a"}, headers={"Authorization": "Bearer " + token},
                      timeout=30)
    assert r.status_code == 201, r.text


def test_an_expired_launch_token_is_refused(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    link = stack.deep_link([CHECKPOINT])[0]
    page = stack.launch(Browser(), link["id"], "alice")
    secret = str(stack.tool.secret_key)
    max_age = stack.tool.extensions["pathways"].config.launch_token_max_age_s
    assert max_age <= 4 * 3600, "a lesson, not a working day"
    launch = unseal(_token(page), secret, max_age_s=max_age)
    old = seal(launch, secret, now=time.time() - max_age - 5)
    fresh = seal(launch, secret, now=time.time() - max_age + 60)
    path = f"/api/placements/{_placement_id(page)}/my-attempts"
    r = _api(stack, "GET", path, old)
    assert r.status_code == 401 and "expired" in r.json()["error"]
    assert _api(stack, "GET", path, fresh).status_code == 200


def _set_cookies(response: requests.Response) -> dict[str, str]:
    """name -> the whole Set-Cookie line, for each cookie the response sets."""
    lines = response.raw.headers.getlist("Set-Cookie")
    return {line.split("=", 1)[0]: line for line in lines}


def _attributes(line: str) -> set[str]:
    return {part.strip().lower() for part in line.split(";")[1:]}


def _launch_response(stack: Any, link_id: str, headers: dict[str, str]) -> dict[str, str]:
    """Walk devlms's launch by hand, sending ``headers`` only with the POST to /lti/launch."""
    http = requests.Session()
    r = http.get(f"{stack.lms_url}/launch/{link_id}?user=alice", allow_redirects=False,
                 timeout=30)
    r = http.get(r.headers["Location"], allow_redirects=False, timeout=30)  # tool login
    r = http.get(r.headers["Location"], timeout=30)  # devlms authorize: the id_token form
    form = forms(r.text)[0][0]
    done = http.post(form.action, data=form.fields, headers=headers, allow_redirects=False,
                     timeout=30)
    assert done.status_code == 302, done.text[:300]
    return _set_cookies(done)


def test_cookies_follow_the_request_scheme_through_proxyfix(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    assert stack.tool.config["PREFERRED_URL_SCHEME"] == "http"
    link = stack.deep_link([CHECKPOINT])[0]

    plain = _attributes(_launch_response(stack, link["id"], {})["session"])
    assert "samesite=lax" in plain and "httponly" in plain
    assert "secure" not in plain and "partitioned" not in plain

    behind_tls = _attributes(_launch_response(
        stack, link["id"], {"X-Forwarded-Proto": "https"})["session"])
    assert {"secure", "samesite=none", "partitioned", "httponly"} <= behind_tls

    cfg = stack.lms_config
    params = {"iss": cfg.issuer, "login_hint": "alice", "client_id": cfg.client_id,
              "lti_message_hint": "h"}
    for scheme, expected in (("http", set()), ("https", {"secure", "samesite=none",
                                                         "partitioned"})):
        target = scheme + cfg.tool_launch_url.removeprefix("http")  # the tool's URL behind TLS
        r = requests.get(stack.tool_url + "/lti/login",
                         params={**params, "target_link_uri": target},
                         headers={"X-Forwarded-Proto": scheme}, allow_redirects=False, timeout=30)
        assert r.status_code == 302, r.text[:300]
        state = next(v for k, v in _set_cookies(r).items() if k.startswith("lti1p3-"))
        assert {"secure", "samesite=none", "partitioned"} & _attributes(state) == expected
