"""The `pathways` console script.

Each package owns its own command group; this module only finds them, lazily, so that
`pathways course check` never imports Flask and `pathways worker` never imports the service.
"""

from __future__ import annotations

import importlib

import click

# command name -> "module:attribute" of a click command or group
COMMANDS: dict[str, str] = {
    "course": "course.cli:course",
    "db": "lti_service.cli:db",
    "platform": "lti_service.cli:platform",
    "keys": "lti_service.cli:keys",
    "serve": "lti_service.cli:serve",
    "consumer": "lti_service.submissions.cli:consumer",
    "worker": "grader_worker.cli:worker",
    "demo": "pathways.demo:demo",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


@click.group(cls=LazyGroup)
def cli() -> None:
    """JAX Pathways: course tools, the LTI tool service, grader workers and the demo."""


def main() -> None:
    cli()
