"""`pathways course build`: static site, executed notebooks, exercise downloads, learner ZIP,
each output rebuilt only when what it is made from changed."""

from course.build.builder import build_site, plan
from course.build.pipeline import BuildReport, Target

__all__ = ["BuildReport", "Target", "build_site", "plan"]
