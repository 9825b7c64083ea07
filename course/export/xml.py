"""Small ElementTree helpers: namespaced elements and stable, declared XML bytes."""

from __future__ import annotations

import xml.etree.ElementTree as ET


def register(namespaces: dict[str, str]) -> None:
    for prefix, uri in namespaces.items():
        ET.register_namespace(prefix, uri)


def q(ns: str, tag: str) -> str:
    return f"{{{ns}}}{tag}"


def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def root_element(tag: str, default_namespace: str, **attrs: str) -> ET.Element:
    """A root whose unprefixed tags (and those of its plain-named children) are in
    ``default_namespace``: written as a literal ``xmlns``, since ElementTree's own default
    namespace option rejects the unqualified attributes that these formats use."""
    return ET.Element(tag, {"xmlns": default_namespace, **attrs})


def to_bytes(root: ET.Element) -> bytes:
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
