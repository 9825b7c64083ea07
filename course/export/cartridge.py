"""The IMS Common Cartridge 1.3 (``.imscc``): an LTI link to every lesson, checkpoint and
exercise, and to each phase's project after its lessons (resource identifiers are the content
ids), the checkpoint quiz, and a stand-alone Canvas QTI package of the same quiz."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from course.export import qti
from course.export.lti_links import LinkItem, link_items, link_xml
from course.export.qti import ExportError
from course.export.xml import q, register, root_element, sub, to_bytes
from course.model import Course

CP = "http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1"
LOM = "http://ltsc.ieee.org/xsd/imsccv1p3/LOM/manifest"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMAS = (f"{CP} http://www.imsglobal.org/profile/cc/ccv1p3/ccv1p3_imscp_v1p2_v1p0.xsd "
           f"{LOM} http://www.imsglobal.org/profile/cc/ccv1p3/LOM/ccv1p3_lommanifest_v1p0.xsd")
LTI_TYPE = "imsbasiclti_xmlv1p0"
CC_QTI_TYPE = "imsqti_xmlv1p2/imscc_xmlv1p3/assessment"
CANVAS_QTI_TYPE = "imsqti_xmlv1p2"
CARTRIDGE = "jax-pathways.imscc"
CANVAS_QTI = "jax-pathways-checkpoints-qti.zip"
FIXED_TIME = (2026, 1, 1, 0, 0, 0)
register({"lomimscc": LOM, "xsi": XSI})


@dataclass
class Package:
    """Files of one ZIP package, by path inside it."""

    files: dict[str, bytes] = field(default_factory=dict)

    def zip_bytes(self) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in ["imsmanifest.xml", *sorted(n for n in self.files
                                                    if n != "imsmanifest.xml")]:
                zf.writestr(zipfile.ZipInfo(name, FIXED_TIME), self.files[name],
                            compress_type=zipfile.ZIP_DEFLATED)
        return buffer.getvalue()


def launch_url(tool_url: str) -> str:
    """The LTI 1.3 launch URL from the tool's base URL (or the launch URL itself)."""
    base = tool_url.rstrip("/")
    return base if base.endswith("/lti/launch") else f"{base}/lti/launch"


def _manifest(identifier: str, title: str) -> tuple[ET.Element, ET.Element, ET.Element]:
    root = root_element("manifest", CP, identifier=identifier,
                        **{q(XSI, "schemaLocation"): SCHEMAS})
    metadata = sub(root, "metadata")
    sub(metadata, "schema", "IMS Common Cartridge")
    sub(metadata, "schemaversion", "1.3.0")
    general = sub(sub(metadata, q(LOM, "lom")), q(LOM, "general"))
    sub(sub(general, q(LOM, "title")), q(LOM, "string"), title)
    organizations = sub(root, "organizations")
    resources = sub(root, "resources")
    return root, organizations, resources


def cartridge(course: Course, tool_url: str, tool_title: str = "JAX Pathways") -> Package:
    url = launch_url(tool_url)
    root, organizations, resources = _manifest("jax-pathways-cartridge", course.title)
    org = sub(organizations, "organization", identifier="organization",
              structure="rooted-hierarchy")
    top = sub(org, "item", identifier="course-root")
    package = Package()
    items = link_items(course)
    placed: set[str] = set()

    def place(parent: ET.Element, link: LinkItem) -> None:
        href = f"lti/{link.content_id}.xml"
        package.files[href] = link_xml(link, url, tool_title)
        entry = sub(parent, "item", identifier=f"item-{link.content_id}",
                    identifierref=link.content_id)
        sub(entry, "title", link.title)
        resource = sub(resources, "resource", identifier=link.content_id, type=LTI_TYPE)
        sub(resource, "file", href=href)
        placed.add(link.content_id)

    for phase in course.phases:
        phase_item = sub(top, "item", identifier=f"phase-{phase.id}")
        sub(phase_item, "title", f"Phase {phase.number:02d}: {phase.title}")
        for lesson in phase.lessons:
            lesson_item = sub(phase_item, "item", identifier=f"module-{lesson.id}")
            sub(lesson_item, "title", lesson.title)
            for link in items:
                if link.content_id == lesson.id or link.content_id.startswith(f"{lesson.id}."):
                    place(lesson_item, link)
        if phase.project is not None:  # the project follows its phase's lessons
            for link in items:
                if link.content_id == phase.project.id:
                    place(phase_item, link)
    unplaced = {i.content_id for i in items} - placed
    if unplaced:
        raise ExportError(f"placeable items outside every lesson and project: {sorted(unplaced)}")
    quiz_href = f"{qti.QUIZ_ID}/assessment.xml"
    package.files[quiz_href] = qti.checkpoints_qti(course)
    quiz_item = sub(top, "item", identifier=f"item-{qti.QUIZ_ID}", identifierref=qti.QUIZ_ID)
    sub(quiz_item, "title", f"{course.title}: checkpoints quiz")
    quiz = sub(resources, "resource", identifier=qti.QUIZ_ID, type=CC_QTI_TYPE)
    sub(quiz, "file", href=quiz_href)
    package.files["imsmanifest.xml"] = to_bytes(root)
    return package


def canvas_qti(course: Course) -> Package:
    """The checkpoint quiz alone, as Canvas's "QTI .zip file" import expects."""
    root, _, resources = _manifest("jax-pathways-checkpoints", f"{course.title}: checkpoints")
    href = f"{qti.QUIZ_ID}/{qti.QUIZ_ID}.xml"
    resource = sub(resources, "resource", identifier=qti.QUIZ_ID, type=CANVAS_QTI_TYPE)
    sub(resource, "file", href=href)
    return Package({"imsmanifest.xml": to_bytes(root), href: qti.checkpoints_qti(course)})


def export(course: Course, out: Path, tool_url: str) -> list[Path]:
    """Write the cartridge and the Canvas QTI package into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, package in ((CARTRIDGE, cartridge(course, tool_url)),
                          (CANVAS_QTI, canvas_qti(course))):
        path = out / name
        tmp = path.with_name(name + ".tmp")
        tmp.write_bytes(package.zip_bytes())
        tmp.replace(path)
        written.append(path)
    return written
