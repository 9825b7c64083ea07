"""The score outbox: scores recorded by checkpoints and submissions, delivered to the LMS
gradebook (AGS) by ``pathways consumer``, resent on an instructor's request. No views."""
