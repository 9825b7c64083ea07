"""LTI 1.3 for the tool: login, launch, JWKS, deep linking, dynamic registration, platforms,
keys and key sets, invites and launches. pylti1p3 is wired once (``adapter``) over registrations
from the database (``service.toolconf``), launch data in the database (``service.storage``) and
cached service tokens (``service.connector``)."""
