"""The `pathways` console script.

Each package owns its own command group; this module only finds them, lazily, so that
`pathways course check` never imports Flask and `pathways worker` never imports the service.
"""

from __future__ import annotations

import importlib

import click

from pathways.env import EnvError

FIRST_PARTY = {"pathways", "course", "lti_service", "grader_worker", "grading_contract", "devlms"}
# The extra that installs each command's third-party packages (pyproject.toml).
EXTRA = {"db": "service", "platform": "service", "keys": "service", "serve": "service",
         "consumer": "service", "status": "service", "worker": "grader", "seed-pool": "grader",
         "demo": "demo"}

# command name -> ("module:attribute" of a click command or group, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "course": ("course.cli:course", "Validate, check, record, build and export the course."),
    "db": ("lti_service.cli:db", "Create or upgrade the service database (Alembic)."),
    "platform": ("lti_service.cli:platform", "Register, list and remove LMS platforms."),
    "keys": ("lti_service.cli:keys", "Generate and rotate the tool's signing keys."),
    "serve": ("lti_service.cli:serve", "Run the LTI tool service (development server)."),
    "consumer": (
        "lti_service.consumer:consumer",
        "Record grading results, reap expired leases, post scores to the LMS.",
    ),
    "status": ("lti_service.status:status",
               "Queue depth, oldest pending job and score, each part's last heartbeat."),
    "worker": ("grader_worker.cli:worker", "Run a grader worker (CPU or TPU host)."),
    "seed-pool": ("grader_worker.cli:seed_pool",
                  "Fill the grader's seed pool before a class; print its sizes."),
    "demo": ("pathways.demo:demo", "Run everything on one machine with a local LMS."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target[0].split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            # Only a third-party package that is not installed gets the hint; anything else
            # (a missing module of ours, a broken import) is a bug and propagates.
            missing = (exc.name or "").split(".")[0]
            if not missing or missing in FIRST_PARTY or name not in EXTRA:
                raise
            raise click.ClickException(
                f"`pathways {name}` needs the {EXTRA[name]} extra ({missing} is not installed): "
                f"pip install 'jax-pathways[{EXTRA[name]}]'") from exc
        return getattr(module, attr)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except EnvError as exc:  # one line naming the variable, not a traceback
            raise click.ClickException(str(exc)) from exc

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Static help: `pathways --help` must not import every package (and JAX).
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in sorted(COMMANDS)])


@click.group(cls=LazyGroup)
def cli() -> None:
    """JAX Pathways: course tools, the LTI tool service, grader workers and the demo."""


def main() -> None:
    cli()
