"""The packaged course, loaded once per test process.

Loading it parses and validates every content file (~0.8 s of CPU); it does not change under
a test run (a test that changes content works on a copy, tests/course/conftest.py), so tests
that only read it share one load. ``load_course`` itself is tested in test_loader.py.
"""

from __future__ import annotations

import functools

from course import Course, load_course


@functools.cache
def packaged_course() -> Course:
    return load_course()
