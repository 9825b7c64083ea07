"""IMS Common Cartridge Basic LTI links (``imsbasiclti_xmlv1p0``), one per content item.

Every link launches the tool's LTI 1.3 launch URL; which lesson, checkpoint or exercise it opens
travels in the ``content_id`` custom parameter, which the tool's launch reads (so a renamed
lesson keeps its grades: the id never changes)."""

from __future__ import annotations

from dataclasses import dataclass

from course.export.xml import q, register, root_element, sub, to_bytes
from course.model import Course
from course.placeables import placeables

LTICC = "http://www.imsglobal.org/xsd/imslticc_v1p0"
BLTI = "http://www.imsglobal.org/xsd/imsbasiclti_v1p0"
LTICM = "http://www.imsglobal.org/xsd/imslticm_v1p0"
LTICP = "http://www.imsglobal.org/xsd/imslticp_v1p0"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMAS = " ".join([
    LTICC, "http://www.imsglobal.org/xsd/lti/ltiv1p0/imslticc_v1p0.xsd",
    BLTI, "http://www.imsglobal.org/xsd/lti/ltiv1p0/imsbasiclti_v1p0p1.xsd",
    LTICM, "http://www.imsglobal.org/xsd/lti/ltiv1p0/imslticm_v1p0.xsd",
    LTICP, "http://www.imsglobal.org/xsd/lti/ltiv1p0/imslticp_v1p0.xsd",
])
register({"blti": BLTI, "lticm": LTICM, "lticp": LTICP, "xsi": XSI})


@dataclass(frozen=True)
class LinkItem:
    """One LMS-placeable item: ``kind`` is lesson, checkpoint, exercise or project."""

    content_id: str
    kind: str
    title: str
    description: str
    points: float


def link_items(course: Course) -> list[LinkItem]:
    # A lesson has no score of its own: its link carries no points_possible.
    return [LinkItem(p.content_id, p.kind, p.title, p.description, p.max_points or 0.0)
            for p in placeables(course)]


def link_xml(item: LinkItem, launch_url: str, tool_title: str) -> bytes:
    root = root_element("cartridge_basiclti_link", LTICC, **{q(XSI, "schemaLocation"): SCHEMAS})
    sub(root, q(BLTI, "title"), item.title)
    sub(root, q(BLTI, "description"), item.description)
    custom = sub(root, q(BLTI, "custom"))
    sub(custom, q(LTICM, "property"), item.content_id, name="content_id")
    ext = sub(root, q(BLTI, "extensions"), platform="canvas.instructure.com")
    sub(ext, q(LTICM, "property"), "1.3", name="lti_version")
    sub(ext, q(LTICM, "property"), "public", name="privacy_level")
    sub(ext, q(LTICM, "property"), item.kind, name="content_kind")
    if item.points:
        sub(ext, q(LTICM, "property"), f"{item.points:g}", name="points_possible")
    sub(root, q(BLTI, "launch_url"), launch_url)
    if launch_url.startswith("https://"):
        sub(root, q(BLTI, "secure_launch_url"), launch_url)
    vendor = sub(root, q(BLTI, "vendor"))
    sub(vendor, q(LTICP, "code"), "jax-pathways")
    sub(vendor, q(LTICP, "name"), tool_title)
    return to_bytes(root)
