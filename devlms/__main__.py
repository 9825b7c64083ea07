"""``python -m devlms --tool http://127.0.0.1:5000``: run the local LMS."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from . import DevLmsConfig, Store, create_app
from .state import open_state

log = logging.getLogger(__name__)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devlms", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5100)
    parser.add_argument("--tool", default="http://127.0.0.1:5000", help="the tool's base URL")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="keep the platform key, links and scores here across restarts")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    cfg = DevLmsConfig(base_url=f"http://{args.host}:{args.port}", tool_base_url=args.tool)
    store = Store()
    if args.state_dir is not None:
        store = open_state(cfg, args.state_dir)
        log.info("devlms state in %s (%d links)", args.state_dir, len(store.links))
    reg = cfg.registration_args
    log.info("register this LMS with the tool: pathways platform add --issuer %s --client-id %s "
             "--login-url %s --token-url %s --key-set-url %s --deployment %s", reg["issuer"],
             reg["client_id"], reg["auth_login_url"], reg["auth_token_url"],
             reg["key_set_url"], cfg.deployment_id)
    create_app(cfg, store).run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
