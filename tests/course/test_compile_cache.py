"""`course check`'s runs share one JAX compilation cache (course.tools.execute.compile_cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from course.tools.execute import JAX_CACHE_ENV, compile_cache, run_python, shared_runs

PROGRAM = """import jax, jax.numpy as jnp
f = jax.jit(lambda x: jnp.tanh(x) * 3 + 1)
print(f(jnp.arange(4.0)).tolist())
"""


def _run_twice(tmp_path: Path) -> tuple[list[str], Path | None]:
    script = tmp_path / "main.py"
    script.write_text(PROGRAM)
    with shared_runs() as env:
        folder = env.get("JAX_COMPILATION_CACHE_DIR")
        first = run_python([str(script)], cwd=tmp_path)
        entries = sorted(p.name for p in Path(folder).iterdir()) if folder else []
        second = run_python([str(script)], cwd=tmp_path)
    assert first.ok and second.ok, (first.stderr[-800:], second.stderr[-800:])
    assert first.stdout == second.stdout
    return entries, Path(folder) if folder else None


def test_runs_share_a_cache_of_their_own_removed_at_the_end(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(JAX_CACHE_ENV, raising=False)
    entries, folder = _run_twice(tmp_path)
    assert entries, "the first run's compilation is not in the cache"
    assert folder is not None and not folder.exists()


def test_a_named_folder_is_kept_and_off_turns_it_off(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tmp_path / "jax-cache"
    monkeypatch.setenv(JAX_CACHE_ENV, str(kept))
    entries, folder = _run_twice(tmp_path)
    assert folder == kept and entries and sorted(p.name for p in kept.iterdir()) == entries
    monkeypatch.setenv(JAX_CACHE_ENV, "off")
    with compile_cache({"A": "1"}) as env:
        assert env == {"A": "1"}


def test_a_run_on_its_own_shares_the_kept_folder_and_a_recording_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One item checked (no fork server) compiles into and from the folder an author keeps;
    `course record` runs cold (kept_cache=False): its first-call timings are a learner's."""
    kept = tmp_path / "jax-cache"
    monkeypatch.setenv(JAX_CACHE_ENV, str(kept))
    script = tmp_path / "main.py"
    script.write_text(PROGRAM)
    recorded = run_python([str(script)], cwd=tmp_path, kept_cache=False)
    assert recorded.ok and not (kept.exists() and any(kept.iterdir())), recorded.stderr[-800:]
    alone = run_python([str(script)], cwd=tmp_path)
    assert alone.ok and alone.stdout == recorded.stdout and any(kept.iterdir())
