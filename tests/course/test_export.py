"""`pathways course export`: the Common Cartridge and the Canvas QTI package, checked for
structure (namespaces, every content id, every resource's files present, one correct
response per quiz item) on the real course."""

from __future__ import annotations

import dataclasses
import html
import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from course.export import ExportError, canvas_qti, cartridge, launch_url
from course.export.cartridge import CARTRIDGE, CP, LOM
from course.export.lti_links import BLTI, LTICC, LTICM
from course.export.qti import QTI
from course.model import Course
from course.placeables import placeables
from tests.packaged import packaged_course

TOOL = "https://pathways.example.edu"
NS = {"cp": CP, "lom": LOM, "blti": BLTI, "lticm": LTICM, "cc": LTICC, "q": QTI}


@pytest.fixture(scope="module")
def course() -> Course:
    return packaged_course()


def content_ids(course: Course) -> set[str]:
    ids = {phase.project.id for phase in course.phases if phase.project is not None}
    for lesson in course.lessons():
        ids |= {lesson.id, lesson.checkpoint.id, *(ex.id for ex in lesson.exercises)}
    return ids


def unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        return {name: zf.read(name) for name in zf.namelist()}


def test_cartridge_manifest_links_every_content_id(course: Course) -> None:
    files = unzip(cartridge(course, TOOL).zip_bytes())
    manifest = ET.fromstring(files["imsmanifest.xml"])
    assert manifest.tag == f"{{{CP}}}manifest"
    assert manifest.findtext("cp:metadata/cp:schema", namespaces=NS) == "IMS Common Cartridge"
    assert manifest.findtext("cp:metadata/cp:schemaversion", namespaces=NS) == "1.3.0"
    assert manifest.find("cp:metadata/lom:lom/lom:general/lom:title/lom:string",
                         NS).text == course.title
    resources = {r.get("identifier"): r for r in manifest.iterfind("cp:resources/cp:resource", NS)}
    lti = {rid for rid, r in resources.items() if r.get("type") == "imsbasiclti_xmlv1p0"}
    assert lti == content_ids(course)
    for resource in resources.values():  # every file a resource names is in the ZIP
        hrefs = [f.get("href") for f in resource.iterfind("cp:file", NS)]
        assert hrefs and all(h in files for h in hrefs), resource.get("identifier")
    refs = [i.get("identifierref") for i in manifest.iter(f"{{{CP}}}item")
            if i.get("identifierref")]
    assert sorted(refs) == sorted(resources), "every resource is placed in the organization"
    ids = [e.get("identifier") for e in manifest.iter() if e.get("identifier")]
    assert len(ids) == len(set(ids)), "identifiers are unique (xs:ID)"


def test_both_phases_are_placed_in_course_order(course: Course) -> None:
    """The picker and the cartridge read one list: Phase 02 follows Phase 01 and its project,
    and Phase 02's own project follows Phase 02's lessons."""
    ids = [p.content_id for p in placeables(course)]
    assert ids.index("project.arrays-audit") < ids.index("transforms-01")
    phase2 = ids[ids.index("transforms-01"):ids.index("project.transforms-fit") + 1]
    assert phase2[:20] == [
        "transforms-01", "transforms-01.checkpoint", "transforms-01.exercise.static-length",
        "transforms-01.exercise.first-vs-later", "transforms-01.exercise.bucketed-lengths",
        "transforms-02", "transforms-02.checkpoint", "transforms-02.exercise.mse-value-and-grad",
        "transforms-02.exercise.directional-check", "transforms-02.exercise.pytree-sgd-step",
        "transforms-03", "transforms-03.checkpoint", "transforms-03.exercise.batched-scores",
        "transforms-03.exercise.pairwise-distances", "transforms-03.exercise.clipped-mean-grad",
        "transforms-04", "transforms-04.checkpoint", "transforms-04.exercise.huber-where",
        "transforms-04.exercise.spring-scan", "transforms-04.exercise.root-fori-grad"]
    assert phase2[-1] == "project.transforms-fit"
    files = unzip(cartridge(course, TOOL).zip_bytes())
    manifest = ET.fromstring(files["imsmanifest.xml"])
    phases = {p.get("identifier"): p for p in manifest.iter(f"{{{CP}}}item")
              if (p.get("identifier") or "").startswith("phase-")}
    phase_item = phases["phase-02-transformations"]
    assert "Transformations" in phase_item.findtext("cp:title", namespaces=NS)
    modules = [i.get("identifier") for i in phase_item.iterfind("cp:item", NS)]
    assert modules[:2] == ["module-transforms-01", "module-transforms-02"]
    assert modules[-1] == "item-project.transforms-fit", "the project closes its phase"
    placed = {i.get("identifierref") for i in phase_item.iter(f"{{{CP}}}item")}
    assert {"transforms-02.checkpoint", "transforms-01.exercise.static-length",
            "project.transforms-fit"} <= placed
    link = ET.fromstring(files["lti/project.transforms-fit.xml"])
    extensions = {p.get("name"): p.text for p in link.iterfind(".//lticm:property", NS)}
    assert extensions["content_kind"] == "project", "a project is placed as the phase's project"
    assert float(extensions["points_possible"]) == course.exercise(
        "project.transforms-fit")[1].max_points


def test_phase_03_is_placed_after_phase_02_with_its_project(course: Course) -> None:
    """Phase 03 (randomness, pytrees, training state) follows Phase 02's project in the picker
    and the cartridge: its four lessons with their checkpoints and exercises, then its
    project; the checkpoint quiz (cartridge and Canvas QTI) holds its four checkpoints."""
    ids = [p.content_id for p in placeables(course)]
    assert ids.index("project.transforms-fit") < ids.index("randomness-01")
    phase3 = ids[ids.index("randomness-01"):ids.index("project.train-from-scratch") + 1]
    assert phase3 == [
        "randomness-01", "randomness-01.checkpoint", "randomness-01.exercise.per-example-noise",
        "randomness-01.exercise.step-keys", "randomness-01.exercise.bootstrap-means",
        "randomness-02", "randomness-02.checkpoint", "randomness-02.exercise.global-norm",
        "randomness-02.exercise.tree-to-vector", "randomness-02.exercise.vector-to-tree",
        "randomness-03", "randomness-03.checkpoint", "randomness-03.exercise.adam-steps",
        "randomness-03.exercise.clipped-sgd", "randomness-03.exercise.fit-compiled-once",
        "randomness-04", "randomness-04.checkpoint", "randomness-04.exercise.epoch-order",
        "randomness-04.exercise.stop-epoch", "randomness-04.exercise.resume-exact",
        "project.train-from-scratch"]
    files = unzip(cartridge(course, TOOL).zip_bytes())
    manifest = ET.fromstring(files["imsmanifest.xml"])
    phase_item = next(p for p in manifest.iter(f"{{{CP}}}item")
                      if p.get("identifier") == "phase-03-randomness")
    assert "Randomness, pytrees and training state" in phase_item.findtext("cp:title",
                                                                          namespaces=NS)
    modules = [i.get("identifier") for i in phase_item.iterfind("cp:item", NS)]
    assert modules == ["module-randomness-01", "module-randomness-02", "module-randomness-03",
                       "module-randomness-04", "item-project.train-from-scratch"]
    link = ET.fromstring(files["lti/project.train-from-scratch.xml"])
    extensions = {p.get("name"): p.text for p in link.iterfind(".//lticm:property", NS)}
    assert float(extensions["points_possible"]) == course.exercise(
        "project.train-from-scratch")[1].max_points
    checkpoints = {f"randomness-0{n}.checkpoint" for n in range(1, 5)}
    quiz = ET.fromstring(files["checkpoints/assessment.xml"])
    assert checkpoints <= {i.get("ident") for i in quiz.iter(f"{{{QTI}}}item")}
    canvas = unzip(canvas_qti(course).zip_bytes())
    href = ET.fromstring(canvas["imsmanifest.xml"]).find("cp:resources/cp:resource/cp:file",
                                                         NS).get("href")
    assert checkpoints <= {i.get("ident") for i in ET.fromstring(canvas[href]).iter(
        f"{{{QTI}}}item")}


def test_phase_04_follows_with_its_lessons_exercises_and_project(course: Course) -> None:
    """Parallelism (phase 04) is placed after the phases before it, its project last, in the
    picker's list, the cartridge and the quiz."""
    ids = [p.content_id for p in placeables(course)]
    phase4 = ids[ids.index("parallel-01"):]
    assert ids.index("project.train-from-scratch") < ids.index("parallel-01")
    assert phase4 == [
        "parallel-01", "parallel-01.checkpoint", "parallel-01.exercise.spread",
        "parallel-02", "parallel-02.checkpoint", "parallel-02.exercise.partitioned-matmul",
        "parallel-03", "parallel-03.checkpoint", "parallel-03.exercise.data-parallel-grad",
        "parallel-04", "parallel-04.checkpoint", "parallel-04.exercise.model-parallel-step",
        "project.shard-the-step"]
    files = unzip(cartridge(course, TOOL).zip_bytes())
    manifest = ET.fromstring(files["imsmanifest.xml"])
    phase_item = next(p for p in manifest.iter(f"{{{CP}}}item")
                      if p.get("identifier") == "phase-04-parallelism")
    modules = [i.get("identifier") for i in phase_item.iterfind("cp:item", NS)]
    assert modules[0] == "module-parallel-01" and modules[-1] == "item-project.shard-the-step"
    assert "lti/project.shard-the-step.xml" in files
    quiz = ET.fromstring(files["checkpoints/assessment.xml"])
    assert "parallel-04.checkpoint" in {i.get("ident") for i in quiz.iter(f"{{{QTI}}}item")}


def test_lti_links_launch_the_tool_with_the_content_id(course: Course) -> None:
    files = unzip(cartridge(course, TOOL).zip_bytes())
    for content_id in content_ids(course):
        link = ET.fromstring(files[f"lti/{content_id}.xml"])
        assert link.tag == f"{{{LTICC}}}cartridge_basiclti_link"
        assert link.findtext("blti:launch_url", namespaces=NS) == f"{TOOL}/lti/launch"
        assert link.findtext("blti:secure_launch_url", namespaces=NS) == f"{TOOL}/lti/launch"
        custom = {p.get("name"): p.text for p in link.iterfind("blti:custom/lticm:property", NS)}
        assert custom == {"content_id": content_id}
        assert link.findtext("blti:title", namespaces=NS)
    assert launch_url("http://localhost:5000/") == "http://localhost:5000/lti/launch"
    assert launch_url(f"{TOOL}/lti/launch") == f"{TOOL}/lti/launch"


def _check_quiz(quiz: ET.Element, course: Course) -> None:
    assert quiz.tag == f"{{{QTI}}}questestinterop"
    items = list(quiz.iter(f"{{{QTI}}}item"))
    assert [i.get("ident") for i in items] == [x.checkpoint.id for x in course.lessons()]
    for item, lesson in zip(items, course.lessons(), strict=True):
        meta = {f.findtext("q:fieldlabel", namespaces=NS): f.findtext("q:fieldentry",
                                                                       namespaces=NS)
                for f in item.iter(f"{{{QTI}}}qtimetadatafield")}
        assert meta["question_type"] == "multiple_choice_question"
        assert meta["cc_profile"] == "cc.multiple_choice.v0p1"
        labels = [r.get("ident") for r in item.iter(f"{{{QTI}}}response_label")]
        assert len(labels) == len(lesson.checkpoint.choices)
        scoring = [c for c in item.iter(f"{{{QTI}}}respcondition")
                   if c.find("q:setvar", NS) is not None]
        assert len(scoring) == 1, "exactly one correct response"
        correct = scoring[0].findtext("q:conditionvar/q:varequal", namespaces=NS)
        assert correct == f"{lesson.checkpoint.id}.{lesson.checkpoint.correct_keys[0]}"
        assert scoring[0].findtext("q:setvar", namespaces=NS) == "100"
        feedback_ids = {f.get("ident") for f in item.iterfind("q:itemfeedback", NS)}
        shown = {d.get("linkrefid") for d in item.iter(f"{{{QTI}}}displayfeedback")}
        assert shown <= feedback_ids and len(shown) == len(lesson.checkpoint.choices)
        # A parametrised checkpoint is exported as its default variant, fields filled in.
        text = " ".join(html.unescape("".join(item.itertext())).split())
        assert "{{" not in text
        for choice in lesson.checkpoint.choices:
            assert choice.text in text
    assert any(lesson.checkpoint.params for lesson in course.lessons())


def test_checkpoint_quiz_in_the_cartridge_and_for_canvas(course: Course) -> None:
    files = unzip(cartridge(course, TOOL).zip_bytes())
    _check_quiz(ET.fromstring(files["checkpoints/assessment.xml"]), course)
    canvas = unzip(canvas_qti(course).zip_bytes())
    manifest = ET.fromstring(canvas["imsmanifest.xml"])
    resource = manifest.find("cp:resources/cp:resource", NS)
    assert resource is not None and resource.get("type") == "imsqti_xmlv1p2"
    href = resource.find("cp:file", NS).get("href")
    _check_quiz(ET.fromstring(canvas[href]), course)
    idents = [i.get("ident") for i in ET.fromstring(canvas[href]).iter(f"{{{QTI}}}item")]
    assert {"arrays-04.checkpoint", "transforms-01.checkpoint",
            "transforms-02.checkpoint"} <= set(idents), "both phases' checkpoints are exported"


def test_text_is_escaped_and_a_checkpoint_without_one_answer_is_refused(
        course: Course) -> None:
    lesson = course.lessons()[0]
    evil = dataclasses.replace(lesson, title='<b>"T&T"</b>')
    phase = dataclasses.replace(course.phases[0], lessons=(evil,))
    files = unzip(cartridge(dataclasses.replace(course, phases=(phase,)), TOOL).zip_bytes())
    link = ET.fromstring(files[f"lti/{lesson.id}.xml"])  # parses: the title was escaped
    assert link.findtext("blti:title", namespaces=NS) == '<b>"T&T"</b>'
    choices = tuple(dataclasses.replace(c, correct=True) for c in lesson.checkpoint.choices)
    broken = dataclasses.replace(lesson, checkpoint=dataclasses.replace(lesson.checkpoint,
                                                                        choices=choices))
    phase = dataclasses.replace(course.phases[0], lessons=(broken,))
    with pytest.raises(ExportError, match=f"{lesson.checkpoint.id}: .*exactly one correct"):
        canvas_qti(dataclasses.replace(course, phases=(phase,)))


def test_cli_writes_both_packages_and_rejects_a_bad_url(tmp_path: Path) -> None:
    pathways = str(Path(sys.executable).parent / "pathways")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    ok = subprocess.run([pathways, "course", "export", "--out", str(tmp_path),
                         "--tool-url", TOOL], env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / CARTRIDGE).is_file() and "wrote" in ok.stdout
    assert zipfile.is_zipfile(tmp_path / "jax-pathways-checkpoints-qti.zip")
    bad = subprocess.run([pathways, "course", "export", "--out", str(tmp_path),
                          "--tool-url", "pathways.example.edu"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "not an http(s) URL" in bad.stderr
