"""Checkpoints: learners' answers, their attempts and the JSON API for them and for the
attempt policy."""
