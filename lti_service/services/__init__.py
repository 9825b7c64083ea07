"""Domain services: plain functions over a SQLAlchemy session. They never import Flask."""

from .errors import ServiceError

__all__ = ["ServiceError"]
