"""Case loading, validation and round-trip saving of expected.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewtui.caseset.cases import (
    CaseFileError,
    ExpectedDoc,
    ExternalChangeError,
    load_case,
    load_case_set,
)

SNAPSHOT = {
    "schema_version": "1.0",
    "platform": "google_ads",
    "account": {"id": "123-456-7890", "currency_code": "EUR", "time_zone": "Europe/Berlin"},
    "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-19"},
    "campaigns": [{"id": "111", "name": "Search | Brand | DE"}, {"id": "333", "name": "Search | Generic"}],
    "daily": [
        {"date": "2025-03-01", "campaign_id": "111", "clicks": 812, "cost": 243.6, "conversions": 61.0},
        {"date": "2025-03-01", "campaign_id": "333", "clicks": 410, "cost": 520.0, "conversions": 9.0},
    ],
}

EXPECTED = """\
# The senior's own note: keep it.
case: c01-demo   # equals the folder
kind: ordinary
must_find:
  - id: tracking.conversions_stopped@333
    evidence: Conversions are 0 from 2025-03-09 while clicks hold near 410 a day
    rows: [/daily/1]   # the last good day
may_find:
  - id: waste.zero_conv_search_terms
    evidence: 14 terms spent 1,240.50 with no conversions
must_not_say:
  - id: pacing.overspend
    evidence: spend to date is on pace
    says: ["over-?pac", "overspend"]
"""


def write_case(root: Path, case_id: str = "c01-demo", expected: str = EXPECTED, snapshot=SNAPSHOT) -> Path:
    case_dir = root / case_id
    case_dir.mkdir(parents=True)
    (case_dir / "snapshot.json").write_text(
        snapshot if isinstance(snapshot, str) else json.dumps(snapshot, indent=2), encoding="utf-8"
    )
    (case_dir / "expected.yaml").write_text(expected, encoding="utf-8")
    return case_dir


def test_valid_case_loads_with_lines_and_scopes(tmp_path):
    write_case(tmp_path)
    case_set = load_case_set(tmp_path)
    assert case_set.problems == []
    case = case_set.cases[0]
    assert [e.id for e in case.must_find] == ["tracking.conversions_stopped@333"]
    assert case.must_find[0].scope == "333" and case.must_find[0].kind == "tracking.conversions_stopped"
    assert case.must_find[0].line == 5
    assert case.must_not_say[0].says == ["over-?pac", "overspend"]


@pytest.mark.parametrize(
    "old, new, line, fragment",
    [
        ("case: c01-demo", "case: c02-other", 2, "folder is 'c01-demo'"),
        ("kind: ordinary", "kind: typical", 3, "'kind' is 'typical'"),
        ("id: pacing.overspend", "id: pacing.too_fast", 12, "unknown finding kind 'pacing.too_fast'"),
        ("conversions_stopped@333", "conversions_stopped@999", 5, "scope '999' is not a campaign id"),
        ("rows: [/daily/1]", "rows: [/daily/7]", 7, "row '/daily/7' does not resolve"),
        ("id: waste.zero_conv_search_terms", "id: tracking.conversions_stopped@333", 9, "already used in must_find at line 5"),
        ("evidence: spend to date is on pace", "evidence: ''", 12, "has no 'evidence'"),
        ('"overspend"]', '"("]', 14, "not a valid regex"),
    ],
)
def test_each_problem_names_file_line_and_fix(tmp_path, old, new, line, fragment):
    assert old in EXPECTED
    write_case(tmp_path, expected=EXPECTED.replace(old, new))
    problems = load_case_set(tmp_path).errors
    assert len(problems) == 1, problems
    text = str(problems[0])
    assert text.startswith(f"{tmp_path / 'c01-demo' / 'expected.yaml'}:{line}: "), text
    assert fragment in text


def test_malformed_yaml_and_json_report_the_parser_line(tmp_path):
    write_case(tmp_path, "c01-bad-yaml", expected=EXPECTED.replace("kind: ordinary", "kind: [ordinary"))
    write_case(tmp_path, "c02-bad-json", snapshot='{\n  "schema_version": "1.0",\n  "platform": oops\n}')
    problems = [str(p) for p in load_case_set(tmp_path).errors]
    assert any("c01-bad-yaml/expected.yaml:" in p and "malformed YAML" in p for p in problems), problems
    assert any(p.startswith(str(tmp_path / "c02-bad-json" / "snapshot.json") + ":3: malformed JSON") for p in problems), problems


def test_missing_required_snapshot_fields(tmp_path):
    snap = dict(SNAPSHOT)
    del snap["platform"]
    snap["account"] = {"id": "1"}
    write_case(tmp_path, snapshot=snap)
    messages = [p.message for p in load_case_set(tmp_path).errors]
    assert any("'platform'" in m for m in messages)
    assert any("'account.currency_code'" in m for m in messages)
    assert any("'account.time_zone'" in m for m in messages)


def test_round_trip_edit_keeps_comments_and_key_order(tmp_path):
    case_dir = write_case(tmp_path)
    case = load_case(case_dir)
    case.doc.add_entry("may_find", {"id": "bidding.learning_period@333", "evidence": "tCPA set 2025-03-12", "rows": ["/daily/1"]})
    case.doc.update_entry("must_find", 0, {"evidence": "Conversions are 0 from 2025-03-09"})
    case.doc.save()
    text = (case_dir / "expected.yaml").read_text()
    assert text.startswith("# The senior's own note: keep it.\ncase: c01-demo   # equals the folder\n")
    assert "rows: [/daily/1]   # the last good day" in text
    assert "evidence: Conversions are 0 from 2025-03-09\n" in text
    assert "  - id: bidding.learning_period@333\n    evidence: tCPA set 2025-03-12\n    rows: [/daily/1]\n" in text
    # Unchanged parts are byte-identical.
    assert text.split("must_not_say:")[1] == EXPECTED.split("must_not_say:")[1]
    reloaded = load_case(case_dir)
    assert [e.id for e in reloaded.may_find] == ["waste.zero_conv_search_terms", "bidding.learning_period@333"]


def test_unchanged_save_is_byte_identical(tmp_path):
    case_dir = write_case(tmp_path)
    doc = ExpectedDoc.load(case_dir / "expected.yaml")
    doc.save()
    assert (case_dir / "expected.yaml").read_text() == EXPECTED


def test_save_refuses_to_overwrite_an_external_change(tmp_path):
    case_dir = write_case(tmp_path)
    doc = ExpectedDoc.load(case_dir / "expected.yaml")
    (case_dir / "expected.yaml").write_text(EXPECTED + "# edited elsewhere\n")
    doc.remove_entry("may_find", 0)
    with pytest.raises(ExternalChangeError):
        doc.save()
    assert (case_dir / "expected.yaml").read_text().endswith("# edited elsewhere\n")
    doc.save_copy(case_dir / "expected.yaml.mine")
    assert "waste.zero_conv_search_terms" not in (case_dir / "expected.yaml.mine").read_text()


def test_save_leaves_no_temporary_files(tmp_path):
    case_dir = write_case(tmp_path)
    doc = ExpectedDoc.load(case_dir / "expected.yaml")
    doc.update_entry("may_find", 0, {"evidence": "changed"})
    doc.save()
    assert sorted(p.name for p in case_dir.iterdir()) == ["expected.yaml", "snapshot.json"]


def test_unparseable_file_raises_with_line(tmp_path):
    path = tmp_path / "expected.yaml"
    path.write_text("case: x\nmust_find:\n  - id: [\n")
    with pytest.raises(CaseFileError) as info:
        ExpectedDoc.load(path)
    assert info.value.problem.line >= 3


def test_emptying_a_commented_list_and_refilling_it_stays_valid_yaml(tmp_path):
    path = tmp_path / "expected.yaml"
    path.write_text("case: x\nkind: ordinary\nmust_find:\n  # the only one\n  - id: pacing.overspend\n    evidence: a\nmay_find: []\n")
    doc = ExpectedDoc.load(path)
    doc.remove_entry("must_find", 0)
    doc.add_entry("may_find", {"id": "pacing.underspend", "evidence": "b"})
    doc.save()
    reloaded = ExpectedDoc.load(path)
    assert reloaded.data["must_find"] == []
    assert reloaded.entry("may_find", 0) == {"id": "pacing.underspend", "evidence": "b"}
    assert "  - id: pacing.underspend\n    evidence: b\n" in path.read_text()


def test_entries_added_in_memory_have_a_line_for_messages(tmp_path):
    case_dir = write_case(tmp_path)
    case = load_case(case_dir)
    case.doc.add_entry("must_find", {"id": "pacing.underspend", "evidence": "x"})
    case.refresh()
    assert all(isinstance(e.line, int) for e in case.must_find)


def test_a_missing_source_write_up_is_a_warning_not_an_error(tmp_path):
    write_case(tmp_path, expected=EXPECTED.replace("kind: ordinary\n", "kind: ordinary\nsource: writeups/wu09-gone.md\n"))
    case_set = load_case_set(tmp_path)
    assert case_set.errors == []
    assert [p.line for p in case_set.problems if "wu09-gone.md" in p.message and p.severity == "warning"] == [4]


@pytest.mark.parametrize("snapshot", ["[1, 2]", '{"campaigns": "none", "daily": 7}', '"text"'])
def test_snapshots_of_the_wrong_shape_are_problems_not_crashes(tmp_path, snapshot):
    write_case(tmp_path, snapshot=snapshot)
    problems = [str(p) for p in load_case_set(tmp_path).errors]
    assert any("snapshot.json:1:" in p for p in problems), problems


def test_required_sections_of_the_wrong_type_are_named():
    from reviewtui.caseset.snapshot import required_field_problems

    problems = required_field_problems({"schema_version": "1.0", "platform": "x", "account": "acct", "period": [], "daily": {}})
    assert problems == ["'account' must be an object", "'period' must be an object", "'daily' must be a list of rows"]
