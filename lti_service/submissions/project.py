"""A phase's integration project inside the LMS: its page (what to do, stage by stage, which
file is graded and how), its starter file(s) and the project folder as a ZIP, so a learner
can do and submit it without leaving the LMS.

Access is the submissions guard's (``views.guard``): its project routes serve project
placements only. The files are the course's own learner files (``course.build.learner_zip``
decides what a learner may have: never the solution nor the checks).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import abort, url_for

from course.build.cache import tree_files
from course.build.learner_zip import FIXED_TIME, HIDDEN_NAMES, PROJECT_DIRS, PROJECT_FILES
from course.model import Course, Project
from lti_service.core.auth import launch_url_args
from lti_service.core.authz import PlacementAccess
from lti_service.core.extensions import state

GRADED_FILE = "starter/model.py"
"""The one file a project submission is: the hidden stage checks import it and call it."""
PROJECT_KINDS = ("project",)
MAX_NAME = 200


@dataclass(frozen=True)
class StarterFile:
    name: str
    """Path under the project folder (``starter/model.py``)."""
    url: str
    graded: bool


def project_of(course: Course, content_id: str) -> Project | None:
    return next((p.project for p in course.phases
                 if p.project is not None and p.project.id == content_id), None)


def learner_files(project: Project) -> list[tuple[str, Path]]:
    """(path under the project folder, source) of what a learner gets: as the learner ZIP."""
    files = [(name, project.dir / name) for name in PROJECT_FILES
             if (project.dir / name).is_file()]
    for folder in PROJECT_DIRS:
        files += [(str(p.relative_to(project.dir)), p) for p in tree_files(project.dir / folder)]
    return [(name, path) for name, path in files if Path(name).name not in HIDDEN_NAMES]


def page_context(access: PlacementAccess) -> dict[str, Any]:
    """What ``submissions/project.html`` adds to the exercise page of a project placement."""
    project = project_of(state().course.get(), access.placement.content_id)
    if project is None:
        abort(404, "this project is no longer in the course; ask your instructor to re-add it")
    args = {"placement_id": access.placement.id, **launch_url_args()}
    starters = [StarterFile(name, url_for("submissions.project_file", name=name, **args),
                            name == GRADED_FILE)
                for name, _ in learner_files(project) if name.startswith("starter/")]
    return {"project": project, "starters": starters, "graded_name": GRADED_FILE,
            "zip_url": url_for("submissions.project_zip", **args),
            "zip_name": f"{project.slug}.zip",
            "file_name": "model.py",
            "file_help": (f"The box holds your <code>{GRADED_FILE}</code>, the one file that is "
                          "graded: the hidden stage checks import it and call its functions on "
                          "inputs you have not seen. Complete it here, or upload your own "
                          "<code>model.py</code>.")}


def file_of(access: PlacementAccess, name: str) -> Path:
    """The learner file ``name`` of the placement's project (404 when it has none such)."""
    project = project_of(state().course.get(), access.placement.content_id)
    found = dict(learner_files(project)).get(name) if project is not None else None
    if found is None:
        abort(404, "the project has no such file")
    return found


def zip_of(access: PlacementAccess) -> tuple[str, bytes]:
    """(file name, bytes) of the project folder as a learner ZIP (the same bytes each time)."""
    project = project_of(state().course.get(), access.placement.content_id)
    if project is None:
        abort(404, "this project is no longer in the course")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, path in learner_files(project):
            info = zipfile.ZipInfo(f"projects/{project.slug}/{name}", FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return f"{project.slug}.zip", out.getvalue()
