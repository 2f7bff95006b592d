"""The reference auditor on its own fixtures: planted problems found, traps left alone, no figure made up."""

from __future__ import annotations

import json

import pytest

from reviewtui import taxonomy
from reviewtui.assistant import parse_output
from tests.fixtures.auditor.build import PLANTED, build
from tests.fixtures.auditor.helpers import FIXTURES, audit_snapshot, fixture, fixture_names, ids, on_disk, ungrounded


def test_every_fixture_has_its_expectations():
    assert fixture_names() == sorted(PLANTED)


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_finds_what_is_planted_and_nothing_it_must_not(tmp_path, name):
    snapshot = on_disk(tmp_path, fixture(name))
    result = audit_snapshot(snapshot)
    must, must_not = PLANTED[name]
    got = ids(result)
    assert [m for m in must if m not in got] == [], result.to_json()
    assert [m for m in must_not if m in got] == [], result.to_json()


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_every_figure_is_grounded(tmp_path, name):
    snapshot = on_disk(tmp_path, fixture(name))
    assert ungrounded(snapshot, audit_snapshot(snapshot)) == []


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_output_is_the_assistant_format(tmp_path, name):
    snapshot = on_disk(tmp_path, fixture(name))
    result = audit_snapshot(snapshot)
    findings = parse_output(result.to_json())
    assert findings, "a result is never empty: no issue means summary.no_material_issues"
    assert len({(f.id, f.scope) for f in findings}) == len(findings), "an id is reported once per scope"
    if any(f.id == "summary.no_material_issues" for f in findings):
        assert len(findings) == 1
    for finding in findings:
        assert finding.scope is None or finding.scope in snapshot.campaign_ids
        assert finding.claim and finding.evidence


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_finding_rows_resolve(tmp_path, name):
    snapshot = on_disk(tmp_path, fixture(name))
    for item in audit_snapshot(snapshot).findings:
        for pointer in item.rows:
            snapshot.resolve(pointer)


@pytest.mark.slow
def test_every_kind_is_assessed_somewhere(tmp_path):
    assessed = set()
    for name in PLANTED:
        snapshot = on_disk(tmp_path, fixture(name), f"{name}.json")
        assessed |= {a.kind for a in audit_snapshot(snapshot).assessments}
    assert set(taxonomy.kind_ids()) - assessed == set()


@pytest.mark.slow
def test_every_kind_but_the_summary_is_found_somewhere(tmp_path):
    found = set()
    for name in PLANTED:
        snapshot = on_disk(tmp_path, fixture(name), f"{name}.json")
        found |= {a.kind for a in audit_snapshot(snapshot).findings}
    assert set(taxonomy.kind_ids()) - found == set()


def _withheld(result) -> set[tuple[str, str | None]]:
    return {(a.kind, a.scope) for a in result.assessments if a.supported is None and "broken data" in a.explanation}


def test_duplicates_withhold_the_sums_but_not_the_ratios(tmp_path):
    result = audit_snapshot(on_disk(tmp_path, fixture("duplicates")))
    withheld = _withheld(result)
    assert ("pacing.daily_cap_exceeded", "222") in withheld
    assert ("concentration.spend_single_campaign", None) in withheld
    # Pacing is read on the rows without the duplicates (the first row of each date and campaign)
    assert not any(kind.startswith(("pacing.overspend", "pacing.underspend")) for kind, _ in withheld)
    [pacing] = result.assessments_for("pacing.overspend")
    assert pacing.supported is False and pacing.explanation.startswith("After removing the duplicate rows, spend to date")
    # A duplicated row doubles cost and conversions alike: CPA against target is still read
    assert not any(kind == "efficiency.off_target" for kind, _ in withheld)


def test_micros_withhold_the_broken_campaign_only(tmp_path):
    withheld = _withheld(audit_snapshot(on_disk(tmp_path, fixture("micros"))))
    assert ("efficiency.off_target", "333") in withheld
    assert ("pacing.daily_cap_exceeded", "333") in withheld
    assert ("concentration.spend_single_campaign", None) in withheld
    assert ("efficiency.off_target", "222") not in withheld
    assert ("budget.lost_is_budget", "222") not in withheld


def test_the_same_snapshot_gives_the_same_text(tmp_path):
    first = audit_snapshot(on_disk(tmp_path, fixture("misallocated"))).to_json()
    second = audit_snapshot(on_disk(tmp_path, fixture("misallocated"))).to_json()
    assert first == second


def test_committed_fixtures_are_what_the_builder_makes():
    built = build()
    for name, snap in built.items():
        on_file = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
        assert on_file == json.loads(json.dumps(snap)), f"{name}.json differs from build.py: rerun the builder"


def test_two_campaigns_are_not_concentration_by_arithmetic(tmp_path):
    data = fixture("clean")
    keep = {"222", "333"}
    data["daily"] = [r for r in data["daily"] if r["campaign_id"] in keep]
    data["campaigns"] = [c for c in data["campaigns"] if c["id"] in keep]
    result = audit_snapshot(on_disk(tmp_path, data))
    assert not {"concentration.spend_single_campaign", "concentration.conversions_single_campaign"} & ids(result)


def test_every_derived_name_the_auditor_quotes_exists(tmp_path):
    """A rename in reviewtui/scoring/derived_index.py must fail here, not silently drop the auditor's figures."""
    from reviewtui.auditor import derived_names as names
    from reviewtui.scoring.derived_index import derived_index

    index = derived_index(fixture("zero_conv_terms"))
    used = [
        names.SPEND_TO_DATE,
        names.DAYS_ELAPSED,
        names.expected_spend(names.ON_SCHEDULE),
        names.spend_over_expected(names.ON_SCHEDULE),
        names.expected_spend(names.STRAIGHT_LINE),
        names.spend_over_expected(names.STRAIGHT_LINE),
        *(names.projected_spend(p) for p in names.PROJECTIONS),
        *(names.projected_gap(p) for p in names.PROJECTIONS),
        names.window("333", "cost per day", names.LAST_7),
        *(names.window(scope, metric, w) for scope in (None, "333") for metric in ("CPA", "conversions")
          for w in (names.PERIOD, names.PREVIOUS_7, names.LAST_7)),
        names.search_terms("333", "zero-conversion cost"),
        names.search_terms("333", "zero-conversion share of cost, period"),
    ]
    assert [name for name in used if name not in index] == []
    data = fixture("clean")
    del data["targets"]["monthly_budget"]
    assert names.MONTHLY_BUDGET_FROM_SCHEDULE in derived_index(data)
