"""What every feature uses: configuration, the database and its core tables, the app state,
launch tokens and cookies, authorization, errors, JSON, page helpers and the content catalogue.

It imports no feature (an import-linter contract in ``.importlinter``)."""
