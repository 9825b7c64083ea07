"""The LTI feature's business logic and pylti1p3 glue: plain functions over a SQLAlchemy
session. Nothing here imports Flask."""
