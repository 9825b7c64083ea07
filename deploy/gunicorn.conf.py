"""gunicorn settings for the LTI tool service (`gunicorn -c deploy/gunicorn.conf.py`).

The web-server knobs live here, not in lti_service/core/config.py, because only gunicorn reads
them; every variable is listed in docs/CONFIGURATION.md ("Deployment").
Defaults suit one machine behind the nginx proxy: a loopback bind, so the service is never
reachable except through TLS, and forwarded headers trusted from loopback only.
"""

from __future__ import annotations

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    """An integer setting; a bad value stops gunicorn with a message naming the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r} is not an integer: set it to a whole number") from None
    if value < 1:
        raise SystemExit(f"{name}={value} must be at least 1")
    return value


wsgi_app = "lti_service.wsgi:app"
bind = [b.strip() for b in (os.environ.get("PATHWAYS_WEB_BIND") or "127.0.0.1:8000").split(",")]
# Sync workers: requests are short (grading runs in the workers, not here).
workers = _int("PATHWAYS_WEB_WORKERS", min(2 * multiprocessing.cpu_count() + 1, 9))
threads = _int("PATHWAYS_WEB_THREADS", 1)
timeout = _int("PATHWAYS_WEB_TIMEOUT", 30)
graceful_timeout = 20
keepalive = 5
# Restart workers now and then so a slow leak cannot grow without bound.
max_requests = 2000
max_requests_jitter = 200
# The proxy's address: only it may set X-Forwarded-Proto/For (ProxyFix in the app reads them).
forwarded_allow_ips = os.environ.get("PATHWAYS_FORWARDED_ALLOW_IPS") or "127.0.0.1,::1"
proxy_allow_ips = forwarded_allow_ips
accesslog = os.environ.get("PATHWAYS_WEB_ACCESS_LOG") or "-"
errorlog = "-"
loglevel = (os.environ.get("PATHWAYS_LOG_LEVEL") or "info").lower()
# No query strings in the access log: LTI launches carry tokens there.
access_log_format = '%(h)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'
# gunicorn's runtime control socket lives in $HOME by default: unwritable under the units'
# ProtectHome=, and shared by every gunicorn of a user. The service is managed by its unit.
control_socket_disable = True

# Reload without an outage: the app and the course are loaded once, in the master, before any
# worker takes traffic; HUP (the unit's ExecReload=) forks new workers from it at once and lets
# the old ones finish their requests. New code needs a restart (or USR2), not a HUP.
preload_app = True


def post_fork(server, worker):  # type: ignore[no-untyped-def]
    """A forked worker must not share the master's database connections: drop them (the pool
    opens its own on first use)."""
    from lti_service.core.extensions import state
    from lti_service.wsgi import app

    state(app).engine.dispose(close=False)


def on_starting(server):  # type: ignore[no-untyped-def]
    """gunicorn's error log prints a failed request's URL with its query: scrub secrets (the
    launch token ``lt=``) from every line it writes."""
    import logging

    from pathways.logs import ScrubFilter

    for name in ("gunicorn.error", "gunicorn.access"):
        logging.getLogger(name).addFilter(ScrubFilter())
