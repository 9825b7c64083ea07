"""`python -m grader_worker` is `pathways worker`."""

from grader_worker.cli import worker

worker()
