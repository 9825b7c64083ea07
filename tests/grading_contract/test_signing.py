"""Signed queue messages: only a holder of the grading key can make a job or a result that the
other side accepts; any change to a signed message, or a replay under another purpose, fails."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from grading_contract import signing
from grading_contract.config import load_grading_key, load_queue_config
from grading_contract.errors import KeyConfigError, SignatureError

KEY = b"k" * 32
JOB = {"submission_id": "s1", "attempt": 1, "exercise_id": "e", "source": "print(1)\n",
       "limits": {}, "enqueued_at": 1.5}


def test_a_signed_message_verifies_and_round_trips() -> None:
    envelope = signing.sign(KEY, signing.JOB, JOB)
    assert signing.verify(KEY, signing.JOB, copy.deepcopy(envelope)) == JOB


@pytest.mark.parametrize("tamper", [
    lambda e: e["body"].update(source="import os\n"),
    lambda e: e["body"].update(attempt=2),
    lambda e: e.update(sig="0" * 64),
    lambda e: e.pop("sig"),
    lambda e: e.update(kind=signing.MESSAGE),
    lambda e: e.update(body=[1]),
], ids=["source", "attempt", "signature", "no signature", "other purpose", "body not a map"])
def test_a_tampered_message_is_refused(tamper) -> None:  # noqa: ANN001
    envelope = signing.sign(KEY, signing.JOB, JOB)
    tamper(envelope)
    with pytest.raises(SignatureError):
        signing.verify(KEY, signing.JOB, envelope)


def test_another_key_or_purpose_is_refused() -> None:
    envelope = signing.sign(b"x" * 32, signing.JOB, JOB)
    with pytest.raises(SignatureError):
        signing.verify(KEY, signing.JOB, envelope)
    with pytest.raises(SignatureError):  # a signed job is not a signed result message
        signing.verify(KEY, signing.MESSAGE, signing.sign(KEY, signing.JOB, JOB))
    with pytest.raises(SignatureError):
        signing.verify(KEY, signing.JOB, JOB)  # unsigned


def test_the_key_is_generated_once_per_install_and_shared(tmp_path: Path) -> None:
    first = load_queue_config({"PATHWAYS_VAR_DIR": str(tmp_path)}).grading_key
    again = load_queue_config({"PATHWAYS_VAR_DIR": str(tmp_path)}).grading_key
    assert first == again and len(first) >= 32
    assert os.stat(tmp_path / "grading_key").st_mode & 0o777 == 0o600
    given = load_grading_key({"PATHWAYS_GRADING_KEY": "z" * 40}, tmp_path)
    assert given == b"z" * 40


def test_a_short_or_missing_key_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KeyConfigError, match="at least 32"):
        load_grading_key({"PATHWAYS_GRADING_KEY": "short"}, tmp_path)
    with pytest.raises(KeyConfigError, match="PATHWAYS_GRADING_KEY"):
        load_grading_key({"PATHWAYS_GRADING_KEY_FILE": str(tmp_path / "absent")}, tmp_path)
