"""LTI 1.3 for the tool: pylti1p3 wired once (``adapter``), registrations from the database
(``toolconf``), launch data in the database (``storage``), cached service tokens (``connector``)."""
