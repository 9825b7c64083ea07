"""Resolve the placement a request names, and refuse one outside the launch's LMS course."""

from __future__ import annotations

from flask import abort

from .auth import Launch
from .extensions import db
from .models import Placement


def placement_for(launch: Launch, placement_id: int) -> Placement:
    placement = db().get(Placement, placement_id)
    if placement is None or placement.context_id != launch.context_pk:
        abort(404, "no such activity in this course: open it again from the LMS")
    return placement
