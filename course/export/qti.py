"""The checkpoints as one QTI 1.2 assessment that Canvas imports as a quiz: one
``multiple_choice_question`` per checkpoint, exactly one correct response, feedback per choice.

The same file serves the Common Cartridge (CC QTI profile metadata) and the stand-alone Canvas
QTI package (Canvas ``question_type`` metadata): each importer reads its own fields."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from course.errors import CourseError
from course.export.xml import register, root_element, sub, to_bytes
from course.model import Checkpoint, Course
from course.render import markdown

QTI = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA = f"{QTI} http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd"
QUIZ_ID = "checkpoints"
register({"xsi": XSI})


class ExportError(CourseError):
    """Content that an LMS package cannot express."""


def _fields(parent: ET.Element, tag: str, pairs: list[tuple[str, str]]) -> None:
    box = sub(parent, tag)
    for label, entry in pairs:
        field = sub(box, "qtimetadatafield")
        sub(field, "fieldlabel", label)
        sub(field, "fieldentry", entry)


def _html(parent: ET.Element, text_md: str) -> None:
    material = sub(parent, "material")
    sub(material, "mattext", markdown.block(text_md).strip(), texttype="text/html")


def _item(section: ET.Element, lesson_title: str, cp: Checkpoint) -> None:
    if len(cp.correct_keys) != 1:
        raise ExportError(f"{cp.id}: a multiple-choice checkpoint needs exactly one correct "
                          f"choice, it has {len(cp.correct_keys)}; mark one choice "
                          "`correct: true` in lesson.md")
    correct = cp.correct_keys[0]
    item = sub(section, "item", ident=cp.id, title=f"{lesson_title}: checkpoint")
    meta = sub(item, "itemmetadata")
    _fields(meta, "qtimetadata", [
        ("cc_profile", "cc.multiple_choice.v0p1"),
        ("question_type", "multiple_choice_question"),
        ("points_possible", "1.0"),
        ("original_answer_ids", ",".join(f"{cp.id}.{c.key}" for c in cp.choices)),
        ("assessment_question_identifierref", cp.id),
    ])
    presentation = sub(item, "presentation")
    _html(presentation, cp.question)
    response = sub(presentation, "response_lid", ident="response1", rcardinality="Single")
    choices = sub(response, "render_choice")
    for choice in cp.choices:
        label = sub(choices, "response_label", ident=f"{cp.id}.{choice.key}")
        _html(label, choice.text)
    processing = sub(item, "resprocessing")
    outcomes = sub(processing, "outcomes")
    sub(outcomes, "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")
    for choice in cp.choices:  # feedback for every choice, whether right or wrong
        cond = sub(processing, "respcondition", **{"continue": "Yes"})
        var = sub(cond, "conditionvar")
        sub(var, "varequal", f"{cp.id}.{choice.key}", respident="response1")
        sub(cond, "displayfeedback", feedbacktype="Response", linkrefid=f"{choice.key}_fb")
    cond = sub(processing, "respcondition", **{"continue": "No"})
    var = sub(cond, "conditionvar")
    sub(var, "varequal", f"{cp.id}.{correct}", respident="response1")
    sub(cond, "setvar", "100", action="Set", varname="SCORE")
    for choice in cp.choices:
        feedback = sub(item, "itemfeedback", ident=f"{choice.key}_fb")
        flow = sub(feedback, "flow_mat")
        _html(flow, choice.feedback)
    general = sub(item, "itemfeedback", ident="general_fb")
    _html(sub(general, "flow_mat"), cp.explanation)


def checkpoints_qti(course: Course) -> bytes:
    """One assessment with every lesson's checkpoint, in course order."""
    root = root_element("questestinterop", QTI, **{f"{{{XSI}}}schemaLocation": SCHEMA})
    assessment = sub(root, "assessment", ident=QUIZ_ID, title=f"{course.title}: checkpoints")
    _fields(assessment, "qtimetadata", [("cc_maxattempts", "unlimited"),
                                        ("cc_profile", "cc.exam.v0p1")])
    section = sub(assessment, "section", ident="root_section")
    for lesson in course.lessons():
        _item(section, lesson.title, lesson.checkpoint)
    return to_bytes(root)
