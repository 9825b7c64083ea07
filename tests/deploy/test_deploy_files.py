"""Static checks of deploy/: Dockerfiles and scripts/images.sh agree, scripts parse."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

IMAGES_SH = ROOT / "scripts" / "images.sh"
DOCKERFILES = sorted((DEPLOY / "docker").glob("*.Dockerfile"))
# What scripts/images.sh stages into a build context: the only names a COPY may take.
STAGED = {"requirements.txt", "gunicorn.conf.py", "wheels", "project", "content", "entrypoint.sh"}


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_dockerfile_builds_from_base_and_runs_unprivileged(dockerfile: Path) -> None:
    text = dockerfile.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("#")
    # An operator with a registry builds FROM python:3.11-slim-bookworm; `make images` passes
    # BASE=pathways-base:bookworm (deploy/images/base.sh).
    froms = [line for line in lines if line.startswith("FROM ")]
    assert text.index("ARG BASE=python:3.11-slim-bookworm\n") < text.index("FROM ")
    # The TPU grader adds libtpu to the CPU grader (built FROM ${BASE}), sharing its layers.
    base = "${GRADER}" if dockerfile.name == "grader-tpu.Dockerfile" else "${BASE}"
    assert froms and all(line.split()[1] == base for line in froms), froms
    if base == "${GRADER}":
        assert "ARG GRADER=pathways-grader-cpu:latest\n" in text
    for line in lines:
        if line.startswith("COPY "):
            args = line.split()[1:]
            if args[0] == "--from=build":
                continue
            assert set(args[:-1]) <= STAGED, f"{dockerfile.name}: {line}"
    user = next(line.split()[1] for line in reversed(lines) if line.startswith("USER "))
    assert user in {"pathways", "postgres", "redis", "10001"}, "images run unprivileged"
    assert "pip install" not in text or "--no-index" in text, "no index is reached in a build"


def _staged(image: str) -> str:
    """The images.sh branch that stages ``image``'s context."""
    text = IMAGES_SH.read_text()
    branch = re.search(r"\n    [^\n]*\b" + re.escape(image) + r"\b[^\n]*\)\n(.*?);;", text, re.S)
    assert branch, f"scripts/images.sh builds no {image}"
    return branch.group(1)


# image -> (its lock file, the first-party packages in its project wheel)
IMAGES = {
    "service": ("requirements-service.txt",
                ["pathways", "course", "grading_contract", "lti_service"]),
    "grader-cpu": ("requirements-grader.txt",
                   ["pathways", "course", "grading_contract", "grader_worker"]),
}


@pytest.mark.parametrize("image", sorted(IMAGES))
def test_each_image_installs_its_own_lock_file_and_the_code_it_runs(image: str) -> None:
    lock, packages = IMAGES[image]
    branch = _staged(image)
    assert f"{image} {lock}" in branch or f"\"$image\" {lock}" in branch, branch
    assert f"project_wheel \"$ctx/project\" {' '.join(packages)}\n" in branch, branch
    assert "lti_service" not in branch or image == "service"


def test_tpu_image_adds_jax_tpu_of_the_locked_jax_and_no_course_goes_in() -> None:
    text = IMAGES_SH.read_text()
    assert 'extra="jax[tpu]==$(sed -n \'s/^jax==//p\' requirements-grader.txt)"' in text
    branch = _staged("grader-tpu")
    # Only what jax[tpu] adds to the CPU image's wheels is staged, on the CPU image just built.
    assert '[ ! -e "$work/ctx/grader-cpu/wheels/${whl##*/}" ] || continue' in branch
    assert '--build-arg "GRADER=pathways-grader-cpu:$tag"' in branch
    assert "grep -zv '^course/content/'" in text  # hidden checks never reach a code image


def test_grader_seccomp_profile_is_a_generated_allow_list() -> None:
    result = subprocess.run([sys.executable, str(DEPLOY / "images" / "grader_seccomp.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    profile = json.loads((DEPLOY / "docker" / "grader-seccomp.json").read_text())
    # Deny by default; only listed calls pass. clone3: ENOSYS, so libc falls back to clone.
    assert (profile["defaultAction"], profile["defaultErrnoRet"]) == ("SCMP_ACT_ERRNO", 1)
    assert {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38} in profile["syscalls"]
    allowed = {n for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW"
               and "args" not in rule for n in rule["names"]}
    conditional = {n for rule in profile["syscalls"] if "args" in rule for n in rule["names"]}
    denied = {n for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ERRNO"
              for n in rule["names"]}
    from grader_worker.sandbox.seccomp import DENIED

    bwrap = {"mount", "umount2", "pivot_root", "unshare"}
    # What the sandbox refuses learner code the container refuses too (EPERM), but bubblewrap's.
    assert set(DENIED) - denied == bwrap and bwrap <= allowed
    assert not allowed & denied and conditional == {"personality", "socket"}
    assert {"clone", "execve", "futex", "mmap", "seccomp", "prctl"} <= allowed
    # Not listed: the kernel's newer or rarer interfaces stay off.
    off = {"clone3", "io_setup", "mq_open", "inotify_init1", "shmget", "landlock_create_ruleset",
           "process_madvise", "memfd_secret"}
    assert not off & (allowed | conditional)


@pytest.mark.parametrize(
    "script",
    sorted(p for p in DEPLOY.rglob("*.sh")),
    ids=lambda p: str(p.relative_to(DEPLOY)),
)
def test_shell_scripts_parse(script: Path) -> None:
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert script.read_text().startswith("#!/usr/bin/env bash\n")
