"""devlms's own checks, the ones lti1p3platform leaves out: token requests, deep-linking
responses, bearer tokens on AGS/NRPS, the OIDC redirect_uri."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from types import SimpleNamespace
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests

from devlms.server import free_port

ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def _assertion(lms, **override) -> str:  # type: ignore[no-untyped-def]
    now = int(time.time())
    claims = {"iss": lms.config.client_id, "sub": lms.config.client_id,
              "aud": lms.config.url("/token"), "iat": now, "exp": now + 60,
              "jti": str(uuid.uuid4()), **override}
    return jwt.encode(claims, lms.tool_key, algorithm="RS256", headers={"kid": lms.tool_kid})


def _token(lms, assertion: str, scope: str = SCORE) -> requests.Response:  # type: ignore[no-untyped-def]
    return requests.post(lms.config.url("/token"), timeout=10, data={
        "grant_type": "client_credentials", "client_assertion_type": ASSERTION,
        "client_assertion": assertion, "scope": scope})


def test_token_endpoint_checks_aud_and_jti(lms) -> None:  # type: ignore[no-untyped-def]
    good = _assertion(lms)
    r = _token(lms, good)
    assert r.status_code == 200, r.text
    assert r.json()["expires_in"] == 3600 and r.json()["scope"] == SCORE
    replay = _token(lms, good)
    assert replay.status_code == 400 and "jti" in replay.json()["error_description"]
    wrong_aud = _token(lms, _assertion(lms, aud="https://elsewhere/token"))
    assert wrong_aud.status_code == 400 and "aud" in wrong_aud.json()["error_description"]
    wrong_key = jwt.encode({"iss": "x"}, lms.tool_key, algorithm="RS256",
                           headers={"kid": "unknown"})
    assert _token(lms, wrong_key).status_code == 400
    assert lms.store.token_requests == 4


def test_ags_and_nrps_need_a_valid_bearer_token(lms) -> None:  # type: ignore[no-untyped-def]
    item = lms.store.add_lineitem({"label": "x", "scoreMaximum": 1, "resourceId": "r"})
    url = lms.config.url(f"/ags/{lms.config.context_id}/lineitems/{item['id']}/scores")
    score = {"userId": "alice", "scoreGiven": 1, "scoreMaximum": 1, "activityProgress":
             "Completed", "gradingProgress": "FullyGraded", "timestamp": "2026-01-01T00:00:00Z"}
    ctype = {"Content-Type": "application/vnd.ims.lis.v1.score+json"}
    assert requests.post(url, json=score, timeout=10).status_code == 401
    assert requests.post(url, json=score, timeout=10,
                         headers={"Authorization": "Bearer junk", **ctype}).status_code == 401
    nrps_only = _token(lms, _assertion(lms), scope=NRPS).json()["access_token"]
    denied = requests.post(url, json=score, timeout=10,
                           headers={"Authorization": f"Bearer {nrps_only}", **ctype})
    assert denied.status_code == 401, "a token without the score scope must not post scores"
    read_only = _token(lms, _assertion(lms),
                       scope="https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly")
    denied = requests.post(url, json=score, timeout=10, headers={
        "Authorization": f"Bearer {read_only.json()['access_token']}", **ctype})
    assert denied.status_code == 401 and "score scope" in denied.text
    token = _token(lms, _assertion(lms)).json()["access_token"]
    ok = requests.post(url, json=score, timeout=10,
                       headers={"Authorization": f"Bearer {token}", **ctype})
    assert ok.status_code == 200, ok.text
    assert lms.store.scores[(item["id"], "alice")]["scoreGiven"] == 1
    members = requests.get(lms.config.url(f"/nrps/{lms.config.context_id}/memberships"),
                           headers={"Authorization": f"Bearer {nrps_only}"}, timeout=10)
    assert members.status_code == 200
    assert {m["user_id"] for m in members.json()["members"]} == {"teacher", "alice", "bob"}


def test_deep_link_response_checks_aud_nonce_and_data(lms) -> None:  # type: ignore[no-untyped-def]
    cfg = lms.config
    lms.store.dl_data.add("req-1")

    def response(**override) -> str:  # type: ignore[no-untyped-def]
        now = int(time.time())
        claims = {"iss": cfg.client_id, "aud": [cfg.issuer], "iat": now, "exp": now + 600,
                  "nonce": "n-" + uuid.uuid4().hex,
                  "https://purl.imsglobal.org/spec/lti/claim/deployment_id": cfg.deployment_id,
                  "https://purl.imsglobal.org/spec/lti/claim/message_type":
                      "LtiDeepLinkingResponse",
                  "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
                  "https://purl.imsglobal.org/spec/lti-dl/claim/data": {"request": "req-1"},
                  "https://purl.imsglobal.org/spec/lti-dl/claim/content_items": [
                      {"type": "ltiResourceLink", "title": "L", "url": cfg.tool_launch_url,
                       "custom": {"content_id": "arrays-04"},
                       "lineItem": {"scoreMaximum": 1, "label": "L", "resourceId": "arrays-04",
                                    "tag": "lesson"}}],
                  **override}
        return jwt.encode(claims, lms.tool_key, algorithm="RS256",
                          headers={"kid": lms.tool_kid})

    post = lambda t: requests.post(cfg.url("/deep-link-return"), data={"JWT": t}, timeout=10)  # noqa: E731
    assert post(response(aud=["https://other-lms"])).status_code == 400
    assert post(response(**{"https://purl.imsglobal.org/spec/lti-dl/claim/data":
                            {"request": "forged"}})).status_code == 400
    good = response()
    assert post(good).status_code == 200
    assert post(good).status_code == 400, "a replayed deep-linking response is refused"
    assert len(lms.store.links) == 1
    link = next(iter(lms.store.links.values()))
    assert lms.store.lineitems[link.lineitem_id]["resourceLinkId"] == link.id


def test_authorize_refuses_an_unregistered_redirect_uri(lms) -> None:  # type: ignore[no-untyped-def]
    link = lms.store.add_link("L", lms.config.tool_launch_url, {"content_id": "arrays-04"}, None)
    start = requests.get(lms.config.url(f"/launch/{link.id}?user=alice"), timeout=10,
                         allow_redirects=False)
    assert start.status_code == 302
    query = parse_qs(urlparse(start.headers["Location"]).query)
    assert query["login_hint"] == ["alice"] and query["iss"] == [lms.config.issuer]
    params = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
              "prompt": "none", "client_id": lms.config.client_id, "state": "s", "nonce": "n",
              "login_hint": "alice", "lti_message_hint": query["lti_message_hint"][0]}
    evil = requests.get(lms.config.url("/authorize"), timeout=10,
                        params={**params, "redirect_uri": "https://evil.example/launch"})
    assert evil.status_code == 400 and "redirect_uri" in evil.text
    ok = requests.get(lms.config.url("/authorize"), timeout=10,
                      params={**params, "redirect_uri": lms.config.tool_launch_url})
    assert ok.status_code == 200 and 'name="id_token"' in ok.text
    assert requests.get(lms.config.url("/launch/nope?user=alice"), timeout=10).status_code == 404
    assert requests.get(lms.config.url(f"/launch/{link.id}?user=mallory"),
                        timeout=10).status_code == 400


def test_python_m_devlms_help() -> None:
    out = subprocess.run([sys.executable, "-m", "devlms", "--help"], capture_output=True,
                         text=True, timeout=60, check=True)
    assert "--tool" in out.stdout


def test_course_frame_and_gradebook_pages(lms) -> None:  # type: ignore[no-untyped-def]
    link = lms.store.add_link("Lesson 4", lms.config.tool_launch_url,
                              {"content_id": "arrays-04"},
                              {"label": "Lesson 4", "scoreMaximum": 1, "resourceId": "arrays-04",
                               "tag": "lesson"})
    lms.store.scores[(link.lineitem_id, "alice")] = {"scoreGiven": 1, "scoreMaximum": 1,
                                                     "timestamp": "2026-01-01T00:00:00Z"}
    course = requests.get(lms.config.url("/"), timeout=10).text
    assert f'data-link="{link.id}"' in course and 'data-user="alice"' in course
    frame = requests.get(lms.config.url("/frame"), params={"src": f"/launch/{link.id}?user=bob"},
                         timeout=10).text
    assert f'<iframe id="tool" title="LTI tool" src="/launch/{link.id}?user=bob"' in frame
    book = requests.get(lms.config.url("/gradebook"), timeout=10).text
    assert 'data-user="alice" data-resource="arrays-04"' in book and "1 / 1" in book


def test_state_survives_a_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from devlms import DevLmsConfig, Store, create_app

    path = tmp_path / "store.json"
    store = Store.load(path)
    cfg = DevLmsConfig(base_url="http://127.0.0.1:1", tool_base_url="http://127.0.0.1:2")
    link = store.add_link("L", cfg.tool_launch_url, {"content_id": "arrays-04"},
                          {"label": "L", "scoreMaximum": 1, "resourceId": "arrays-04"})
    store.scores[(link.lineitem_id, "alice")] = {"scoreGiven": 1.0}
    client = create_app(cfg, store).test_client()
    assert client.post("/deep-link-return", data={"JWT": "bad"}).status_code == 400
    assert not path.exists(), "a refused request saves nothing"
    store.save()
    again = Store.load(path)
    assert again.links[link.id].custom == {"content_id": "arrays-04"}
    assert again.lineitems[link.lineitem_id]["resourceLinkId"] == link.id
    assert again.scores[(link.lineitem_id, "alice")] == {"scoreGiven": 1.0}


def _run_devlms(lms, port: int, *extra: str) -> subprocess.Popen[bytes]:  # type: ignore[no-untyped-def]
    """``python -m devlms`` as deploy/local/stack.sh runs it; returns once it listens."""
    process = subprocess.Popen([sys.executable, "-m", "devlms", "--port", str(port),
                                "--tool", lms.tool_server.url, *extra],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            requests.get(f"http://127.0.0.1:{port}/jwks", timeout=2)
            return process
        except requests.ConnectionError:
            assert process.poll() is None, "devlms exited at start"
            time.sleep(0.2)
    process.kill()
    raise AssertionError("devlms did not listen in 60s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(timeout=20)


def test_state_dir_keeps_key_links_and_scores_across_a_process_restart(lms, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With --state-dir a restarted devlms accepts the tokens it issued and keeps its
    gradebook; without it the same token is refused (new key) and the line item is gone."""
    from devlms import DevLmsConfig
    from devlms.state import STORE_FILE, open_state

    port = free_port()
    cfg = DevLmsConfig(base_url=f"http://127.0.0.1:{port}", tool_base_url=lms.tool_server.url)
    state = tmp_path / "lms"
    store = open_state(cfg, state)
    item = store.add_lineitem({"label": "x", "scoreMaximum": 1, "resourceId": "r"})
    store.save()
    base = cfg.url(f"/ags/{cfg.context_id}/lineitems/{item['id']}/scores")
    target = SimpleNamespace(config=cfg, tool_key=lms.tool_key, tool_kid=lms.tool_kid)

    def post(token: str, user: str) -> requests.Response:
        score = {"userId": user, "scoreGiven": 1, "scoreMaximum": 1, "activityProgress":
                 "Completed", "gradingProgress": "FullyGraded",
                 "timestamp": "2026-01-01T00:00:00Z"}
        return requests.post(base, json=score, timeout=10, headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/vnd.ims.lis.v1.score+json"})

    process = _run_devlms(lms, port, "--state-dir", str(state))
    try:
        token = _token(target, _assertion(target)).json()["access_token"]
        assert post(token, "alice").status_code == 200
    finally:
        _stop(process)
    process = _run_devlms(lms, port, "--state-dir", str(state))
    try:
        assert post(token, "bob").status_code == 200, "the same key: the token still works"
        book = requests.get(cfg.url("/gradebook.json"), timeout=10).json()
        assert {row["userId"] for row in book["scores"]} == {"alice", "bob"}
    finally:
        _stop(process)
    assert (state / STORE_FILE).exists()
    process = _run_devlms(lms, port)
    try:
        refused = post(token, "alice")
        assert refused.status_code == 401, refused.text
        assert requests.get(cfg.url("/gradebook.json"), timeout=10).json()["lineitems"] == []
    finally:
        _stop(process)


def test_signs_with_one_loaded_key_under_the_kid_it_publishes() -> None:
    """Every registration devlms builds (one a request) signs with the key loaded once, not
    its PEM text loaded again for every id_token and access token (devlms/config.py)."""
    from devlms import DevLmsConfig
    from devlms.platform import conf

    cfg = DevLmsConfig("http://lms.test", "http://tool.test")
    registrations = [conf(cfg).get_registration() for _ in range(3)]
    loaded = [r.get_platform_private_key() for r in registrations]
    assert all(key is loaded[0] for key in loaded) and not isinstance(loaded[0], str)
    token = registrations[0].platform_encode_and_sign({"sub": "alice"}, expiration=60)
    [published] = registrations[0].get_jwks()
    assert jwt.get_unverified_header(token)["kid"] == published["kid"]
    assert jwt.decode(token, registrations[1].get_platform_public_key(),
                      algorithms=["RS256"])["sub"] == "alice"


def test_a_reserved_port_is_held_until_its_server_starts_on_it() -> None:
    """A stack hands out its URLs before its servers start: the reserved port stays bound in
    between (no other program can take it), the server then listens on it, and a stopped
    server comes back on the same port (an LMS down and up again)."""
    from flask import Flask

    from devlms.server import LiveServer, reserve_port

    app = Flask(__name__)
    app.add_url_rule("/", "ok", view_func=lambda: "ok")
    port = reserve_port()
    with socket.socket() as other, pytest.raises(OSError):
        other.bind(("127.0.0.1", port))
    server = LiveServer(app, port=port).start()
    try:
        assert requests.get(f"http://127.0.0.1:{port}/", timeout=10).text == "ok"
        server.stop()
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://127.0.0.1:{port}/", timeout=10)
        server.start()
        assert requests.get(f"http://127.0.0.1:{port}/", timeout=10).text == "ok"
    finally:
        server.stop()


def test_a_port_in_use_is_an_os_error_not_an_exit() -> None:
    """Werkzeug's make_server calls sys.exit on EADDRINUSE: a SystemExit out of a pytest
    fixture left it half set up, and every later test using it errored (44 in one run)."""
    from flask import Flask

    from devlms.server import LiveServer

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(OSError):
            LiveServer(Flask(__name__), port=taken.getsockname()[1]).start()
