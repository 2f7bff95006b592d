"""Bad input: the auditor returns what it can, never crashes, and says what it could not assess.

Every test runs the audit in strict mode (a detector's exception would fail the test instead of being
turned into a "could not assess" note) on a snapshot written to disk and read back, and checks the
figures against the scoring's grounding.
"""

from __future__ import annotations

import logging

import pytest

from reviewtui.assistant import parse_output
import importlib

from reviewtui.auditor import audit
from tests.fixtures.auditor.helpers import audit_snapshot, fixture, ids, on_disk, ungrounded

OPTIONAL = ("targets", "budgets", "flight_plan", "campaigns", "change_events", "conversion_actions", "search_terms", "ads")


def _run(tmp_path, data):
    snapshot = on_disk(tmp_path, data)
    result = audit_snapshot(snapshot)
    assert parse_output(result.to_json())
    assert ungrounded(snapshot, result) == []
    return result


@pytest.mark.parametrize("section", OPTIONAL)
def test_each_missing_optional_section(tmp_path, section):
    data = fixture("stop_account")
    del data[section]
    result = _run(tmp_path, data)
    assert "tracking.conversions_stopped" in ids(result), "a missing section costs only what needs it"


def test_all_optional_sections_missing_says_what_was_not_assessed(tmp_path):
    data = fixture("clean")
    for section in OPTIONAL:
        del data[section]
    result = _run(tmp_path, data)
    [summary] = result.findings
    assert summary.kind == "summary.no_material_issues"
    assert summary.claim.startswith("No material issue found in what could be assessed; not assessed:")
    for words in ("budget pacing", "search terms", "ad approval", "efficiency against target"):
        assert words in summary.claim


def test_unknown_fields_are_ignored(tmp_path):
    plain = _run(tmp_path, fixture("overspend"))
    data = fixture("overspend")
    data["exported_by"] = {"tool": "x", "version": 3}
    data["account"]["billing_setup"] = "b-77"
    for row in data["daily"]:
        row["video_views"] = 12
    data["campaigns"][0]["labels"] = ["Q1"]
    assert _run(tmp_path, data).to_json() == plain.to_json()


def test_empty_daily(tmp_path):
    data = fixture("clean")
    data["daily"] = []
    result = _run(tmp_path, data)
    [summary] = result.findings
    assert summary.kind == "summary.no_material_issues" and "not assessed" in summary.claim
    assert "daily is empty: nothing day-by-day can be assessed" in result.log_lines


def test_a_single_day(tmp_path):
    data = fixture("clean")
    data["daily"] = [r for r in data["daily"] if r["date"] == "2025-03-01"]
    data["period"].update(as_of="2025-03-02", last_complete_date="2025-03-01")
    result = _run(tmp_path, data)
    assert {f.kind for f in result.findings} <= {"summary.no_material_issues", "pacing.overspend", "pacing.underspend"}


def test_nulls_and_strings_where_numbers_belong(tmp_path):
    data = fixture("clean")
    data["daily"][3]["cost"] = "243.60"  # a quoted number is read as a number
    data["daily"][5]["clicks"] = None
    data["daily"][7]["conversions"] = "n/a"
    data["targets"]["target_cpa"] = "forty"
    data["budgets"][0]["amount"] = None
    result = _run(tmp_path, data)
    invalid = [f for f in result.findings if f.kind == "data.invalid_values"]
    assert invalid, result.to_json()
    row5 = data["daily"][5]
    assert f"{row5['date']} campaign {row5['campaign_id']}" in invalid[0].evidence
    assert "clicks is null" in invalid[0].evidence and "conversions is the text 'n/a'" in invalid[0].evidence
    assert "cost" not in invalid[0].evidence
    assert invalid[0].rows == ["/daily/5", "/daily/7"]


def test_wrong_shapes_everywhere(tmp_path):
    data = fixture("clean")
    data["daily"][0] = "not a row"
    data["daily"][1]["date"] = "March 1st"
    del data["daily"][2]["campaign_id"]
    data["targets"] = "none"
    data["budgets"][0]["history"] = "yesterday"
    data["budgets"][1]["campaign_ids"] = "111"
    data["change_events"] = [{"change_date_time": "soon", "changed_field": "target_cpa"}, 7]
    data["search_terms"] = [{"campaign_id": "222", "clicks": "many", "conversions": None}, None]
    data["ads"] = {"ad": 1}
    data["conversion_actions"] = [{"click_through_lookback_window_days": "thirty"}]
    data["campaigns"].append("333")
    result = _run(tmp_path, data)
    notes = "\n".join(result.log_lines)
    assert "/daily/0 is not an object: skipped" in notes
    assert "/daily/1/date 'March 1st' is not a YYYY-MM-DD date: row skipped" in notes
    assert "/daily/2 has no campaign_id: row skipped" in notes


def test_period_missing(tmp_path):
    data = fixture("stop_account")
    del data["period"]
    result = _run(tmp_path, data)
    assert "period is missing: dates are taken from the daily rows" in result.log_lines


@pytest.mark.parametrize("data", [[], "text", 42, None, {"daily": "rows"}, {"daily": [None, 3]}])
def test_not_a_snapshot_at_all(data):
    result = audit(data, strict=True)
    assert [f.kind for f in result.findings] == ["summary.no_material_issues"]


def test_a_failing_detector_costs_only_its_own_kinds(tmp_path, monkeypatch):
    def broken(ctx):
        raise ZeroDivisionError("planted")

    audit_module = importlib.import_module("reviewtui.auditor.audit")
    monkeypatch.setattr(audit_module, "DETECTORS", tuple(broken if d.__module__.endswith(".pacing") else d for d in audit_module.DETECTORS))
    broken.__module__ = "reviewtui.auditor.pacing"
    result = audit(on_disk(tmp_path, fixture("stop_account")).data)
    assert "tracking.conversions_stopped" in ids(result)
    assert any("pacing checks failed: ZeroDivisionError: planted" in line for line in result.log_lines)
    assert {a.supported for a in result.assessments if a.kind.startswith("pacing.")} == {None}


def test_the_backend_logs_what_it_skipped(tmp_path, caplog):
    import asyncio
    import json

    from reviewtui.backends import create_backend
    from reviewtui.caseset.cases import load_case

    data = fixture("clean")
    data["daily"][0] = "not a row"
    folder = tmp_path / "c01-bad"
    folder.mkdir()
    (folder / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "expected.yaml").write_text("case: c01-bad\nkind: clean\nmust_find:\n  - id: summary.no_material_issues\n    evidence: fine\n")
    with caplog.at_level(logging.INFO, logger="reviewtui.auditor"):
        output = asyncio.run(create_backend("rules").run(load_case(folder)))
    assert output.error is None and parse_output(output.raw_text)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "c01-bad: /daily/0 is not an object: skipped" in warnings


def _corrupt(node, rng, depth=0):
    """Replace a random share of values with nulls, text, negatives, lists or objects."""
    # (no braces: an id like "{}" trips reviewtui/scoring/derived_index.py's name formatting, reported to its owner)
    junk = [None, "", "n/a", "12,5", -3, 1e308, [1], True, "2025-13-45", 0]
    if isinstance(node, dict):
        return {k: (rng.choice(junk) if rng.random() < 0.08 else _corrupt(v, rng, depth + 1)) for k, v in node.items()}
    if isinstance(node, list):
        return [rng.choice(junk) if rng.random() < 0.03 else _corrupt(v, rng, depth + 1) for v in node]
    return node


# The seeds below 60, less seed 30, which found the gap pinned by the last test below (with the two values of
# its seed that matter, found by removing the others one by one); seeds 23 and 28 found the gaps of the two
# tests before it, now closed. Gaps the seed range found, open: each seed fails until its gap is closed (strict).
KNOWN_GAPS = {
    59: "the auditor's 'last 4 complete days' are its last 4 days with a readable date (one is '2025-13-45'); "
        "the scorer reads the window of the last 4 calendar days, without the row it quotes",
}
SEEDS = [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[s])) if s in KNOWN_GAPS else s
         for s in range(60) if s != 30]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.slow
def test_random_corruption_never_crashes(tmp_path, seed):
    import random

    rng = random.Random(seed)
    names = ["stop_account", "duplicates", "budget_raise", "misallocated", "meta_cap", "primary_demoted"]
    data = _corrupt(fixture(names[seed % len(names)]), rng)
    _run(tmp_path, data)


def _with(name: str, changes: dict[tuple, object]) -> dict:
    """Fixture ``name`` with the values at the given paths replaced."""
    data = fixture(name)
    for path, value in changes.items():
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return data


def test_a_count_written_with_a_decimal_comma_is_not_quoted_as_another_number(tmp_path):
    """The auditor reads the text '12,5' as 125 clicks and quotes it; the scorer reads numeric strings as the
    same numbers (snapshot_reader.number), so the quoted figure is grounded."""
    _run(tmp_path, _with("primary_demoted", {("search_terms", 17, "conversions"): 0, ("search_terms", 19, "clicks"): "12,5"}))


def test_a_projection_from_an_unreadable_month_length_is_grounded_as_money(tmp_path):
    """With days_in_month unreadable and targets not an object, the projected month-end spend is grounded
    as money (a projection is a cost figure of the prose rules, never a ratio)."""
    _run(tmp_path, _with("meta_cap", {("period", "days_in_month"): "12,5", ("targets",): [1]}))


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="open gap (auditor text): a conversion count of 1e308 is written out in full "
                   "digits in the tracking evidence, a figure nothing grounds")
def test_an_absurd_conversion_count_is_not_written_out_in_an_evidence(tmp_path):
    _run(tmp_path, _with("stop_account", {("daily", 53, "conversions"): 1e308, ("daily", 75, "conversions"): [1]}))
