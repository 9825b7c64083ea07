"""The course the service serves: loaded once from ``COURSE_ROOT`` (or the packaged content)
with ``course.load_course``, or given ready-made (tests, embedding)."""

from __future__ import annotations

import threading
from pathlib import Path

from course.model import Course


class CourseSource:
    def __init__(self, root: Path | None = None, course: Course | None = None) -> None:
        self._root = root
        self._course = course
        self._lock = threading.Lock()

    def get(self) -> Course:
        if self._course is None:
            with self._lock:
                if self._course is None:
                    from course import load_course  # the loader lives with the content

                    self._course = load_course(self._root)
        return self._course
