"""`pathways course build` for real, on a copy of the course content: site pages for every
lesson, lesson notebooks, exercise downloads, a learner ZIP whose commands work as a new
learner runs them, and rebuilds that redo only what changed.

The whole course is built as a preview (``execute=False``: every output, the lesson notebooks
not run), and a lesson notebook of each phase runs in its kernel, as does a default build of a
one-lesson course. Every lesson's notebook holds its lesson's code block for block (checked
below), and every block runs in `course check`'s items (test_content_runs): executing all 16
notebooks here again cost ~70 CPU s of the suite's ~1,800 (bench/README.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from test_render import parse

from course import load_course
from course.build import BuildReport, build_site, plan
from course.build.builder import REQUIREMENTS, fingerprint
from course.build.notebooks import main_cells
from course.loader import CONTENT_ROOT
from course.model import Course
from course.render import STAGES
from tests.packaged import packaged_course

SOURCE = CONTENT_ROOT
LESSON_04 = "phases/01-arrays/04-immutable-updates-and-indexing"
ZIP = "downloads/jax-pathways-learner.zip"
ENV = {**os.environ, "JAX_PLATFORMS": "cpu"}


@dataclass(frozen=True)
class Built:
    root: Path
    course: Course
    out: Path
    report: BuildReport


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("build")
    root = base / "content"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    course = load_course(root)
    out = base / "site"
    report = build_site(course, out, execute=False)
    return Built(root, course, out, report)


def copy_of(built: Built, tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of the content and of the built output, for tests that change them."""
    root, out = tmp_path / "content", tmp_path / "site"
    shutil.copytree(built.root, root)
    shutil.copytree(built.out, out)
    return root, out


def test_first_build_makes_every_output(built: Built) -> None:
    names = [t.name for t in plan(built.course, execute=False)]
    assert names == [t.name for t in plan(built.course)]  # a preview makes the same files
    assert sorted(built.report.built) == sorted(names) and not built.report.reused
    assert all((built.out / name).is_file() for name in names)


def test_site_has_a_page_per_lesson_and_the_project(built: Built) -> None:
    index = (built.out / "index.html").read_text()
    parse(index)
    css = (built.out / "style.css").read_text()
    assert "prefers-color-scheme: dark" in css and "#theme-toggle" in css
    assert len(built.course.lessons()) >= 2
    for lesson in built.course.lessons():
        assert f'href="lessons/{lesson.id}.html"' in index
        page = (built.out / "lessons" / f"{lesson.id}.html").read_text()
        tree = parse(page)
        stages = [text for level, text in tree.headings if level == 2]
        assert [s.split(" · ", 1)[1] for s in stages] == [title for _, title in STAGES]
        assert 'href="../style.css"' in page and 'id="theme-toggle"' in page
        img = next(attrs for tag, attrs in tree.tags if tag == "img")
        assert img["alt"] == lesson.figure.alt and (built.out / "lessons" / img["src"]).is_file()
        for tag, attrs in tree.tags:  # every relative link of the page resolves in the site
            href = attrs.get("href") or attrs.get("src")
            if tag in {"a", "img", "link"} and href and not href.startswith(("http", "#")):
                target = href.split("#", 1)[0]
                assert (built.out / "lessons" / target).resolve().is_file(), (lesson.id, href)
    project = built.course.phases[0].project
    assert project is not None
    page = (built.out / "projects" / f"{project.slug}.html").read_text()
    assert "Audit masked batch moments" in page and "--implementation starter" in page
    assert f'href="projects/{project.slug}.html"' in index


def test_lesson_pages_carry_the_seeds_parts(built: Built) -> None:
    """Setup help (its own page), the Check: line, Lesson text, full-size figure, TPU note,
    the phase project block, "Lesson N of M" and prerequisites by title."""
    setup = (built.out / "setup.html").read_text()
    parse(setup)
    for section in ('id="macos-linux"', 'id="windows"', 'id="cloud-tpu"',
                    "requirements-cpu.txt", ".\\.venv\\Scripts\\python.exe"):
        assert section in setup, section
    assert 'href="setup.html"' in (built.out / "index.html").read_text()
    titles = {lesson.id: lesson.title for lesson in built.course.lessons()}
    for phase in built.course.phases:
        guide = (built.out / "guides" / f"{phase.id}.html").read_text()
        guide_text = "".join(parse(guide).text)
        for part in ("Preparation", "Milestones", "Project evidence"):
            assert part in guide_text, part
        for lesson in phase.lessons:
            assert f'href="../lessons/{lesson.id}.html"' in guide and lesson.title in guide_text
        if phase.project is not None:
            assert phase.project.stages[0].title.split()[0] in guide_text
        for lesson in phase.lessons:
            page = (built.out / "lessons" / f"{lesson.id}.html").read_text()
            text = "".join(parse(page).text)
            assert f"Lesson {lesson.order} of {len(phase.lessons)}" in text
            assert 'href="../setup.html"' in page and "Open full-size figure" in text
            assert f'href="../guides/{phase.id}.html"' in page
            assert f'href="{lesson.id}/lesson.md"' in page
            assert (built.out / "lessons" / lesson.id / "lesson.md").read_text() == (
                lesson.dir / "lesson.md").read_text()
            assert "Check:" in text
            for before in lesson.prerequisites:
                assert titles[before] in text, before
            if lesson.hardware == "cpu":
                assert "Verified on local CPU" in text and "setup.html#cloud-tpu" in page
            if phase.project is not None:
                assert phase.project.checkpoint_prompt.split()[0] in text
                assert "Open project workspace" in text


def _statements(code: str) -> list[str]:
    """The lines that run: no blank or comment-only line (region markers and a header
    comment are not in the cells)."""
    return [line for line in code.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_every_lesson_notebook_holds_its_lessons_code_block_for_block(built: Built) -> None:
    """What a kernel runs is what `course check` runs: main.py whole (split at its step
    regions, nothing left out), each experiment, then the figure script."""
    for lesson in built.course.lessons():
        nb = nbformat.read(built.out / "notebooks" / f"{lesson.id}.ipynb", as_version=4)
        nbformat.validate(nb)
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert not [c for c in nb.cells if c.cell_type == "code" and c.outputs], lesson.id
        mains = len(main_cells(lesson))
        assert len(code) == mains + len(lesson.experiments) + 1, lesson.id
        assert mains >= len(lesson.steps), lesson.id
        assert _statements("\n".join(code[:mains])) == _statements(lesson.main_code), lesson.id
        assert code[mains:-1] == [ex.code.strip("\n") for ex in lesson.experiments], lesson.id
        assert 'runpy.run_path("figure/make_figure.py"' in code[-1], lesson.id


def _assert_executed(notebook: bytes, lesson_id: str) -> None:
    nb = nbformat.reads(notebook.decode(), as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), lesson_id
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], lesson_id
    assert any("image/png" in o.get("data", {}) for o in code[-1].outputs), lesson_id
    printed = "".join(o.get("text", "") for c in code for o in c.outputs)
    assert printed.strip(), f"{lesson_id}: no cell printed anything"


@pytest.mark.parametrize("lesson_id", ["transforms-01", "randomness-03", "parallel-01"])
def test_a_lesson_notebook_of_each_phase_runs_in_its_kernel(lesson_id: str) -> None:
    """Phases 02-04 here (tracing prints, optax training, 8 devices a lesson asks for itself);
    phase 01's run in the two tests below."""
    from course.build.notebooks import execute_lesson_notebook

    lesson = packaged_course().lesson(lesson_id)
    assert lesson is not None
    _assert_executed(execute_lesson_notebook(lesson), lesson_id)


def test_a_notebook_kernel_shares_the_kept_compilation_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With PATHWAYS_CHECK_JAX_CACHE naming a folder, a lesson notebook's kernel compiles into
    it (and reads it), as `course check`'s runs do."""
    from course.build.notebooks import execute_lesson_notebook
    from course.tools.execute import JAX_CACHE_ENV

    monkeypatch.setenv(JAX_CACHE_ENV, str(tmp_path / "jax-cache"))
    lesson = packaged_course().lessons()[0]
    _assert_executed(execute_lesson_notebook(lesson), lesson.id)
    assert [p.name for p in (tmp_path / "jax-cache").iterdir() if p.name.startswith("jit_")]


def test_a_default_build_executes_its_notebooks_and_a_preview_never_passes_for_one(
        lesson04_course: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    course = load_course(lesson04_course)
    full = build_site(course, out)
    assert sorted(full.built) == sorted(t.name for t in plan(course)) and not full.reused
    notebook = "notebooks/arrays-04.ipynb"
    _assert_executed((out / notebook).read_bytes(), "arrays-04")
    preview = build_site(course, out, execute=False)
    assert preview.built == [notebook] and sorted(preview.reused) == sorted(
        n for n in full.built if n != notebook)
    assert not [c for c in nbformat.read(out / notebook, as_version=4).cells
                if c.cell_type == "code" and c.outputs]
    assert fingerprint(lesson04_course, REQUIREMENTS, True) != fingerprint(
        lesson04_course, REQUIREMENTS, False)  # nor on the no-change path


def test_exercise_downloads_hold_main_and_every_starter(built: Built) -> None:
    for lesson in built.course.lessons():
        script = (built.out / "exercises" / f"{lesson.id}.py").read_text()
        assert lesson.main_code.strip() in script
        nb = nbformat.read(built.out / "exercises" / f"{lesson.id}.ipynb", as_version=4)
        nbformat.validate(nb)
        yours = [c for c in nb.cells if c.source.startswith("## Make it yours")]
        assert len(yours) == len(lesson.exercises)
        for ex in lesson.exercises:
            assert ex.starter_code.strip() in script
            assert ex.solution_code.strip() not in script
            assert any(ex.starter_code.strip() == c.source for c in nb.cells)


def test_learner_zip_works_for_a_new_learner(built: Built, tmp_path: Path) -> None:
    with zipfile.ZipFile(built.out / ZIP) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path)
    assert not [n for n in names if Path(n).name in {"solution.py", "checks.py"}]
    assert not [n for n in names if "/solution/" in n]
    for lesson in built.course.lessons():
        assert f"{lesson.relpath}/code/main.py" in names
        assert f"exercises/{lesson.id}.py" in names and f"exercises/{lesson.id}.ipynb" in names
        for ex in lesson.experiments:
            assert f"{lesson.relpath}/experiments/{ex.slug}.py" in names
        assert f"{lesson.relpath}/figure/data.json" in names
    for name in ("run.py", "README.md", "starter/model.py"):
        assert f"projects/arrays-audit/{name}" in names
    requirements = (tmp_path / "requirements-cpu.txt").read_text()
    pins = {line.split("==")[0] for line in requirements.splitlines() if "==" in line}
    assert {"jax", "jaxlib", "numpy", "matplotlib"} <= pins
    assert not pins & {"Flask", "SQLAlchemy", "pytest", "huey", "PyLTI1p3"}
    assert requirements == REQUIREMENTS.read_text()

    run = subprocess.run([sys.executable, f"{LESSON_04}/code/main.py"], cwd=tmp_path, env=ENV,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Original:" in run.stdout and "Set:" in run.stdout and "Add:" in run.stdout
    project = subprocess.run(
        [sys.executable, "projects/arrays-audit/run.py", "--implementation", "starter",
         "--stage", "1"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert project.returncode == 2 and "TODO 1" in project.stderr
    solution = subprocess.run(
        [sys.executable, "projects/arrays-audit/run.py", "--implementation", "solution"],
        cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert solution.returncode != 0 and "not in the learner download" in solution.stderr


def test_learner_zip_holds_phase_02_and_its_commands_work(built: Built, tmp_path: Path) -> None:
    """The seed-style commands for a Phase 02 lesson and the Phase 02 project, from the ZIP."""
    lesson = built.course.lesson("transforms-01")
    assert lesson is not None and lesson.relpath.startswith("phases/02-transformations/")
    with zipfile.ZipFile(built.out / ZIP) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path)
    for name in ("run.py", "README.md", "starter/model.py"):
        assert f"projects/transforms-fit/{name}" in names
    assert not [n for n in names if n.startswith("projects/transforms-fit/")
                and ("/solution/" in n or n.endswith("checks.py"))]
    assert {"exercises/transforms-02.py", "exercises/transforms-02.ipynb",
            f"{lesson.relpath}/code/main.py"} <= names
    run = subprocess.run([sys.executable, f"{lesson.relpath}/code/main.py"], cwd=tmp_path,
                         env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "PASS: transforms-01" in run.stdout
    project = subprocess.run(
        [sys.executable, "projects/transforms-fit/run.py", "--implementation", "starter",
         "--stage", "1"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert project.returncode == 2 and "TODO 1 (loss in starter/model.py)" in project.stderr


def test_learner_zip_holds_phase_03_and_its_commands_work(built: Built, tmp_path: Path) -> None:
    """A Phase 03 lesson (it draws from keys) and the train-from-scratch project's first stage
    run from the ZIP, whose pinned requirements carry optax (lesson 03 and the project train
    with it)."""
    lesson = built.course.lesson("randomness-01")
    assert lesson is not None and lesson.relpath.startswith("phases/03-randomness/")
    with zipfile.ZipFile(built.out / ZIP) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path)
    for name in ("run.py", "README.md", "starter/model.py"):
        assert f"projects/train-from-scratch/{name}" in names
    assert not [n for n in names if n.startswith("projects/train-from-scratch/")
                and ("/solution/" in n or n.endswith("checks.py"))]
    assert {"exercises/randomness-03.py", "exercises/randomness-03.ipynb",
            "phases/03-randomness/03-training-step/figure/make_figure.py"} <= names
    pins = {line.split("==")[0] for line in (tmp_path / "requirements-cpu.txt").read_text()
            .splitlines() if "==" in line}
    assert {"optax", "absl-py"} <= pins
    run = subprocess.run([sys.executable, f"{lesson.relpath}/code/main.py"], cwd=tmp_path,
                         env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "PASS: randomness-01" in run.stdout and "correlation of two draws" in run.stdout
    project = subprocess.run(
        [sys.executable, "projects/train-from-scratch/run.py", "--implementation", "starter",
         "--stage", "1"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert project.returncode == 2 and "TODO 1 (init_params)" in project.stderr


def test_phase_03_study_guide_links_its_lessons_and_project(built: Built) -> None:
    phase = next(p for p in built.course.phases if p.id == "03-randomness")
    assert phase.project is not None and phase.project.slug == "train-from-scratch"
    guide = (built.out / "guides" / "03-randomness.html").read_text()
    text = " ".join("".join(parse(guide).text).split())
    assert "Randomness, pytrees and training state: study guide" in text
    for lesson in phase.lessons:
        assert f'href="../lessons/{lesson.id}.html"' in guide
    assert 'href="../projects/train-from-scratch.html"' in guide
    for stage in phase.project.stages:
        assert f"Stage {stage.number}: {stage.title}" in text
    assert 'href="guides/03-randomness.html"' in (built.out / "index.html").read_text()


def test_learner_zip_holds_phase_04_and_its_commands_work(built: Built, tmp_path: Path) -> None:
    """A Phase 04 lesson runs from the ZIP on 8 logical devices it asks for itself, and the
    shard-the-step project ships without its solution and stops at its first TODO."""
    lesson = built.course.lesson("parallel-01")
    assert lesson is not None and lesson.relpath.startswith("phases/04-parallelism/")
    with zipfile.ZipFile(built.out / ZIP) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path)
    assert {"projects/shard-the-step/run.py", "projects/shard-the-step/starter/model.py",
            f"{lesson.relpath}/code/main.py"} <= names
    assert not [n for n in names if n.startswith("projects/shard-the-step/")
                and ("/solution/" in n or n.endswith("checks.py") or "counterexamples" in n)]
    run = subprocess.run([sys.executable, f"{lesson.relpath}/code/main.py"], cwd=tmp_path,
                         env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "devices: 8" in run.stdout and "PASS: parallel-01" in run.stdout
    project = subprocess.run(
        [sys.executable, "projects/shard-the-step/run.py", "--implementation", "starter",
         "--stage", "1"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert project.returncode == 2 and "TODO: stage 1" in project.stdout, project.stdout


def test_phase_02_study_guide_shows_preparation_milestones_and_project(built: Built) -> None:
    phase = next(p for p in built.course.phases if p.id == "02-transformations")
    assert phase.project is not None and phase.project.slug == "transforms-fit"
    guide = (built.out / "guides" / "02-transformations.html").read_text()
    text = " ".join("".join(parse(guide).text).split())
    assert "Transformations: study guide" in text
    minutes = sum(lesson.minutes for lesson in phase.lessons)
    assert f"About {minutes} minutes over {len(phase.lessons)} lessons." in text
    for lesson in phase.lessons:
        assert f'href="../lessons/{lesson.id}.html"' in guide
    assert "static_argnums" in guide, "a jit milestone names what it lets you do"
    assert 'href="../projects/transforms-fit.html"' in guide
    for stage in phase.project.stages:
        assert f"Stage {stage.number}: {stage.title}" in text
    index = (built.out / "index.html").read_text()
    assert 'href="guides/02-transformations.html"' in index
    assert 'href="projects/transforms-fit.html"' in index
    page = " ".join("".join(parse((built.out / "projects" / "transforms-fit.html")
                                  .read_text()).text).split())
    assert "finite differences" in page and "--evidence-dir runs/transforms-fit" in page
    lesson_page = (built.out / "lessons" / "transforms-02.html").read_text()
    assert 'href="../guides/02-transformations.html"' in lesson_page


def test_second_build_reuses_everything(built: Built, tmp_path: Path) -> None:
    root, out = copy_of(built, tmp_path)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    again = build_site(load_course(root), out, execute=False)
    assert again.built == [] and sorted(again.reused) == sorted(built.report.built)
    after = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert {p: t for p, t in after.items() if p.name != ".build-cache.json"} == {
        p: t for p, t in before.items() if p.name != ".build-cache.json"}


def test_changing_one_lesson_rebuilds_only_its_outputs(built: Built, tmp_path: Path) -> None:
    root, out = copy_of(built, tmp_path)
    lesson_md = root / LESSON_04 / "lesson.md"
    other = next(lesson for lesson in built.course.lessons() if lesson.id != "arrays-04")
    # Touching a file (new mtime, same bytes) changes nothing; editing the text does.
    os.utime(root / other.relpath / "lesson.md")
    lesson_md.write_text(lesson_md.read_text() + "\n\nA sentence added by the rebuild test.\n")
    course = load_course(root)
    report = build_site(course, out, execute=False)
    owners = {t.name: t.owner for t in plan(course, execute=False)}
    assert "lessons/arrays-04.html" in report.built
    assert "notebooks/arrays-04.ipynb" in report.built
    stray = [n for n in report.built if owners[n] != "arrays-04" and n != ZIP]
    assert not stray, f"rebuilt outputs of other lessons: {stray}"
    assert "A sentence added by the rebuild test." in (out / "lessons/arrays-04.html").read_text()
    assert f"lessons/{other.id}.html" in report.reused


def test_cli_build_reports_progress_and_the_no_change_fast_path(
        built: Built, tmp_path: Path) -> None:
    root, out = copy_of(built, tmp_path)
    command = [str(Path(sys.executable).parent / "pathways"), "course", "build",
               "--root", str(root), "--out", str(out), "--no-execute"]
    same = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=300)
    assert same.returncode == 0, same.stderr
    assert "unchanged" in same.stdout and "0 built" in same.stdout
    assert "build (a preview: lesson notebooks not run): 0 built" in same.stdout
    guide = root / "projects" / "arrays-audit" / "README.md"
    guide.write_text(guide.read_text() + "\nOne more line for the CLI test.\n")
    edited = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=300)
    assert edited.returncode == 0, edited.stderr
    assert "built  projects/arrays-audit.html" in edited.stdout
    assert "reused lessons/arrays-04.html" in edited.stdout and "2 built" in edited.stdout
    assert "One more line for the CLI test." in (out / "projects/arrays-audit.html").read_text()
    manifest = json.loads((out / ".build-cache.json").read_text())
    assert manifest["@tree"] and "index.html" in manifest


def test_cli_build_reports_bad_content_clearly(built: Built, tmp_path: Path) -> None:
    root, out = copy_of(built, tmp_path)
    (root / LESSON_04 / "lesson.md").write_text("no front matter here\n")
    command = [str(Path(sys.executable).parent / "pathways"), "course", "build",
               "--root", str(root), "--out", str(out), "--no-execute"]
    result = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "lesson.md" in result.stderr and "fix:" in result.stderr
    assert (out / "lessons/arrays-04.html").is_file(), "a failed build loses nothing built"
