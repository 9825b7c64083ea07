"""YAML files and Markdown front matter, parsed with the line of every value kept.

Schema errors name a field path; keeping the YAML node tree lets the message also say the
line, and a YAML syntax error reports its own line (offset to the whole file for front matter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from course.errors import Problem

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class YamlDoc:
    """Parsed YAML: the data, its node tree, and the file line where the YAML text starts."""

    data: Any
    node: yaml.Node | None
    first_line: int = 1

    def line_of(self, path: Path_) -> int | None:
        """1-based file line of the value at ``path`` (or of its nearest existing parent)."""
        node = self.node
        line = node.start_mark.line if node is not None else None
        for key in path:
            if isinstance(node, yaml.MappingNode):
                match = next((v for k, v in node.value if k.value == str(key)), None)
                if match is None:
                    key_node = next((k for k, _ in node.value if k.value == str(key)), None)
                    node = key_node
                else:
                    # A mapping key's own line is where an author looks for the field.
                    key_node = next(k for k, v in node.value if v is match)
                    line = key_node.start_mark.line
                    node = match
                    continue
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
                node = node.value[key] if 0 <= key < len(node.value) else None
            else:
                node = None
            if node is None:
                break
            line = node.start_mark.line
        return None if line is None else line + self.first_line


def parse_yaml(text: str, file: str, first_line: int = 1) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one YAML document; a syntax error becomes a Problem with its file line."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        reason = exc.problem or exc.context or "invalid YAML"
        return None, [
            Problem(
                file,
                f"line {line}",
                f"YAML syntax error: {reason}",
                "fix the YAML at that line (check indentation, quoting and the ':' after "
                "each key; quote text that contains ': ' or starts with a special character)",
            )
        ]
    except yaml.YAMLError as exc:
        return None, [Problem(file, "", f"YAML error: {exc}", "fix the YAML syntax")]
    finally:
        loader.dispose()
    return YamlDoc(data, node, first_line), []


def split_front_matter(text: str, file: str) -> tuple[str | None, int, str, list[Problem]]:
    """Split ``---`` front matter from a Markdown body.

    Returns (front matter text, file line where it starts, body, problems).
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, 1, text, [
            Problem(
                file,
                "line 1",
                "no front matter: the file must start with a line containing only ---",
                "put the lesson's YAML fields between two --- lines at the top of lesson.md",
            )
        ]
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), 2, "".join(lines[index + 1 :]), []
    return None, 1, text, [
        Problem(
            file,
            "line 1",
            "front matter is not closed: no second --- line",
            "add a line containing only --- after the last front matter field",
        )
    ]
