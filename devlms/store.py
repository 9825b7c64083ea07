"""The LMS's memory: resource links, line items, scores and counters (one process, a lock)."""

from __future__ import annotations

import json
import os
import threading
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class ResourceLink:
    id: str
    title: str
    url: str
    custom: dict[str, str]
    lineitem_id: str | None


@dataclass
class Store:
    links: dict[str, ResourceLink] = field(default_factory=dict)
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    score_posts: list[dict[str, Any]] = field(default_factory=list)
    token_requests: int = 0
    used_jti: set[str] = field(default_factory=set)
    used_dl_nonces: set[str] = field(default_factory=set)
    dl_data: set[str] = field(default_factory=set)
    deep_link_responses: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    path: Path | None = None

    def save(self) -> None:
        """Write links, line items and scores to ``path`` (atomically), when it is set."""
        if self.path is None:
            return
        with self.lock:
            data = {"links": [asdict(link) for link in self.links.values()],
                    "lineitems": list(self.lineitems.values()),
                    "scores": [{"lineitem": k[0], "user": k[1], "score": v}
                               for k, v in self.scores.items()]}
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, default=str))
            os.replace(tmp, self.path)

    @classmethod
    def load(cls, path: Path) -> Store:
        """The store saved at ``path``, or an empty one that will save there."""
        store = cls(path=path)
        if path.exists():
            data = json.loads(path.read_text())
            for link in data.get("links", []):
                store.links[link["id"]] = ResourceLink(**link)
            for item in data.get("lineitems", []):
                store.lineitems[item["id"]] = item
            for row in data.get("scores", []):
                store.scores[(row["lineitem"], row["user"])] = row["score"]
        return store

    def add_lineitem(self, data: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            item_id = data.get("id") or uuid.uuid4().hex[:12]
            item = {**data, "id": item_id}
            self.lineitems[item_id] = item
            return item

    def add_link(self, title: str, url: str, custom: dict[str, str],
                 lineitem: dict[str, Any] | None) -> ResourceLink:
        with self.lock:
            link_id = "rl-" + uuid.uuid4().hex[:10]
            lineitem_id = None
            if lineitem is not None:
                lineitem_id = self.add_lineitem({**lineitem, "resourceLinkId": link_id})["id"]
            link = ResourceLink(link_id, title, url, custom, lineitem_id)
            self.links[link_id] = link
            return link
