"""The validation memo (``cases.load_case_set(memo=True)``, behind ``reviewtui check`` and ``reviewtui eval``):
a rerun on the same files gets the same problems without parsing the snapshot; any change to either file,
or to the code that validates, validates again; a snapshot that does not parse is never kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reviewtui.caseset.cases import load_case_set
from reviewtui.caseset.snapshot import ParsedBefore
from reviewtui.files import parse_cache
from reviewtui.runs.validation import validate

CASES = Path(__file__).resolve().parents[2] / "cases"


@pytest.fixture
def case_root(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "cases"
    root.mkdir()
    for name in ("c01-outdoor-retail", "c02-dental-clinic"):
        shutil.copytree(CASES / name, root / name)
    return root


def lines(problems) -> list[str]:
    return [str(p) for p in problems]


def test_a_rerun_gets_the_same_problems_without_parsing_the_snapshots(case_root):
    first_set, first = validate(case_root)
    assert not any(isinstance(c.snapshot, ParsedBefore) for c in first_set.cases)
    again_set, again = validate(case_root)
    assert lines(again) == lines(first)
    assert all(isinstance(c.snapshot, ParsedBefore) and not c.snapshot.parsed for c in again_set.cases)
    assert again_set.digest() == first_set.digest()
    # the rows are there when something reads them: the same rows
    case = again_set.cases[0]
    assert case.snapshot.data == first_set.cases[0].snapshot.data and case.snapshot.parsed


def test_an_edited_snapshot_is_validated_again(case_root):
    _, before = validate(case_root)
    path = case_root / "c01-outdoor-retail" / "snapshot.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["period"]["end"] = "the end of March"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    case_set, problems = validate(case_root)
    assert lines(problems) != lines(before)
    assert any(str(p).startswith(f"{path}:") for p in problems if p not in before)
    assert lines(load_case_set(case_root, memo=True).problems) == lines(load_case_set(case_root).problems)
    assert not isinstance(case_set.by_id("c01-outdoor-retail").snapshot, ParsedBefore)


def test_an_edited_expected_yaml_is_validated_again(case_root):
    validate(case_root)
    path = case_root / "c02-dental-clinic" / "expected.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("must_find:", "must_find:\n  - id: waste.zero_conv_campaign@nope\n    evidence: x", 1),
                    encoding="utf-8")
    memo = load_case_set(case_root, memo=True)
    assert [str(p) for p in memo.problems] == [str(p) for p in load_case_set(case_root).problems]
    assert any("scope 'nope' is not a campaign id" in str(p) for p in memo.problems)


def test_other_validation_code_misses(case_root, monkeypatch):
    validate(case_root)
    monkeypatch.setattr(parse_cache, "package_digest", lambda: "another checkout")
    case_set, _ = validate(case_root)
    assert not any(isinstance(c.snapshot, ParsedBefore) for c in case_set.cases)


def test_a_snapshot_that_does_not_parse_is_never_kept(case_root):
    path = case_root / "c01-outdoor-retail" / "snapshot.json"
    path.write_text('{"daily": [', encoding="utf-8")
    for _ in range(2):
        case_set, problems = validate(case_root)
        assert [c.case_id for c in case_set.cases] == ["c02-dental-clinic"]
        assert any(str(p).startswith(f"{path}:") and p.severity == "error" for p in problems)


def test_the_memo_keeps_what_the_checks_read_without_the_rows(case_root):
    path = case_root / "c01-outdoor-retail" / "snapshot.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["source"] = {"format": "google_ads_csv"}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    _, first = validate(case_root)
    case_set, again = validate(case_root)
    assert lines(again) == lines(first)
    assert any("was not redacted" in line for line in lines(again))
    assert not case_set.by_id("c01-outdoor-retail").snapshot.parsed


def test_a_snapshot_taken_from_the_memo_travels_to_the_scoring_worker(case_root):
    """The scoring worker receives its cases pickled: a snapshot taken from the memo goes as its bytes, and is
    parsed there when read; a parsed one too. The same rows either way."""
    import pickle

    first_set, _ = validate(case_root)
    again_set, _ = validate(case_root)
    snapshot = again_set.cases[0].snapshot
    copy = pickle.loads(pickle.dumps(again_set.cases[0]))
    assert isinstance(copy.snapshot, ParsedBefore) and not copy.snapshot.parsed and not snapshot.parsed
    assert copy.snapshot.data == first_set.cases[0].snapshot.data
    assert copy.snapshot.sha256 == snapshot.sha256 and copy.snapshot.text == first_set.cases[0].snapshot.text
    assert snapshot.data and snapshot.parsed  # parsed here: it still travels as its bytes
    assert pickle.loads(pickle.dumps(snapshot)).data == snapshot.data
    plain = pickle.loads(pickle.dumps(first_set.cases[0].snapshot))
    assert plain.data == first_set.cases[0].snapshot.data and plain.raw == first_set.cases[0].snapshot.raw
    assert "raw" not in pickle.loads(pickle.dumps(first_set.cases[0].snapshot)).__dict__
