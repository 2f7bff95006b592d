"""score_case on real case folders (expected.yaml + snapshot.json in tmp_path), numbers computed by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case
from reviewtui.scoring.score import CaseScore, score_case

SNAPSHOT = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"

EXPECTED = """\
case: {case_id}
kind: ordinary
must_find:
  - id: tracking.conversions_stopped@111
    evidence: conversions are 0 every day from 2025-03-11 while clicks hold at 100 a day
  - id: waste.zero_conv_campaign@333
    evidence: campaign 333 spent 1,234.38 with 0 conversions
  - id: status.disapproved_ads
    evidence: ad 5551 is disapproved
may_find:
  - id: bidding.learning_period@333
    evidence: bid strategy changed to TARGET_CPA on 2025-03-12
must_not_say:
  - id: pacing.overspend
    evidence: 6,094.38 spent against 17,419.35 expected is not overspend
    says: ["over-?pac", "overspend"]
  - id: concentration.spend_single_campaign@222
    evidence: campaign 222 has 2,700.00 of 6,094.38
"""


def make_case(tmp_path: Path, expected: str = EXPECTED, case_id: str = "c01-scoring", **load: Any):
    case_dir = tmp_path / "cases" / case_id
    case_dir.mkdir(parents=True)
    shutil.copyfile(SNAPSHOT, case_dir / "snapshot.json")
    (case_dir / "expected.yaml").write_text(expected.format(case_id=case_id), encoding="utf-8")
    return load_case(case_dir, **load)


def finding(fid: str, scope: str | None = None, claim: str = "", evidence: str = "", severity: str = "medium") -> dict:
    return {"id": fid, "scope": scope, "claim": claim, "evidence": evidence, "severity": severity}


def output(case_id: str, *findings: dict) -> CaseOutput:
    return CaseOutput(case_id, json.dumps({"findings": list(findings)}))


def test_recall_precision_scopes_and_duplicates(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    score = score_case(case, output(
        case.case_id,
        finding("tracking.conversions_stopped", "111", "0 conversions since 2025-03-11"),  # matched
        finding("tracking.conversions_stopped", "111", "same finding again"),  # duplicate
        finding("waste.zero_conv_campaign", "222"),  # expected @333: a scoped id needs its scope
        finding("status.disapproved_ads", "333", "ad 5551 disapproved"),  # unscoped expectation: any scope
        finding("bidding.learning_period", "333"),  # may_find
        finding("efficiency.off_target"),  # extra
    ))
    assert score.status == "ok"
    assert score.recall == pytest.approx(2 / 3)
    assert score.precision == pytest.approx(3 / 6)
    assert score.missed_ids == ["waste.zero_conv_campaign@333"]
    assert score.matched_ids == ["tracking.conversions_stopped@111", "status.disapproved_ads"]
    assert score.extra_ids == ["waste.zero_conv_campaign@222", "efficiency.off_target"]
    assert [(f["verdict"], f["matches"]) for f in score.findings] == [
        ("matched", "tracking.conversions_stopped@111"),
        ("duplicate", None),
        ("extra", None),
        ("matched", "status.disapproved_ads"),
        ("may_find", "bidding.learning_period@333"),
        ("extra", None),
    ]
    assert score.fabrication == 0


def test_unscoped_finding_does_not_match_a_scoped_expectation(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    score = score_case(case, output(case.case_id, finding("waste.zero_conv_campaign", None)))
    assert score.recall == 0.0 and score.precision == 0.0
    assert score.extra_ids == ["waste.zero_conv_campaign"]


def test_exact_scope_is_matched_before_an_unscoped_expectation(tmp_path: Path) -> None:
    expected = """\
case: {case_id}
kind: ordinary
must_find:
  - id: tracking.conversions_stopped
    evidence: conversions stop in some campaign
  - id: tracking.conversions_stopped@111
    evidence: conversions stop in campaign 111
"""
    case = make_case(tmp_path, expected)
    score = score_case(case, output(
        case.case_id,
        finding("tracking.conversions_stopped", "111"),
        finding("tracking.conversions_stopped", "333"),
    ))
    assert score.recall == 1.0 and score.precision == 1.0
    assert [f["matches"] for f in score.findings] == ["tracking.conversions_stopped@111", "tracking.conversions_stopped"]


def test_an_empty_findings_list_is_unparseable(tmp_path: Path) -> None:
    # The schema asks for at least one finding (summary.no_material_issues when nothing is wrong).
    case = make_case(tmp_path)
    score = score_case(case, output(case.case_id))
    assert (score.status, score.recall, score.precision, score.fabrication) == ("unparseable", 0.0, 0.0, 0)
    assert score.parse_error.startswith("not the output schema: the answer has no finding: ")
    assert score.missed_ids == [e.id for e in case.must_find]


def test_must_not_say_by_id_and_by_says_pattern(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    score = score_case(case, output(
        case.case_id,
        finding("pacing.overspend", None, "spend is ahead of plan"),  # by id (unscoped entry: any scope)
        finding("budget.misallocated", "111", "the account is Over-pacing its budget"),  # by says, any case
        finding("concentration.spend_single_campaign", "111"),  # entry is @222: no hit
        finding("concentration.spend_single_campaign", "222"),  # by id
        # Matches a must_find and also says a forbidden thing: counts for recall and for fabrication.
        finding("tracking.conversions_stopped", "111", evidence="and the account will overspend"),
    ))
    assert score.must_not_say_hits == [
        {"finding_index": 0, "entry_id": "pacing.overspend", "by": "id", "pattern": None},
        {"finding_index": 1, "entry_id": "pacing.overspend", "by": "says", "pattern": "over-?pac"},
        {"finding_index": 3, "entry_id": "concentration.spend_single_campaign@222", "by": "id", "pattern": None},
        {"finding_index": 4, "entry_id": "pacing.overspend", "by": "says", "pattern": "overspend"},
    ]
    assert score.fabrication == 4
    assert [f["verdict"] for f in score.findings] == ["must_not_say", "must_not_say", "extra", "must_not_say", "must_not_say"]
    assert score.findings[4]["matches"] == "tracking.conversions_stopped@111"
    # Extra ids are the findings matching no must/may entry, whatever they said.
    assert score.extra_ids == ["pacing.overspend", "budget.misallocated@111",
                               "concentration.spend_single_campaign@111", "concentration.spend_single_campaign@222"]
    assert score.recall == pytest.approx(1 / 3)
    assert score.precision == pytest.approx(1 / 5)


def test_fabricated_figures_are_counted_with_their_place(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    claim = "Campaign 333 wasted $48,213.77 on 2025-03-16"
    score = score_case(case, output(
        case.case_id,
        finding("waste.zero_conv_campaign", "333", claim, "1,234.38 spent over the period at a 12.5% CTR with 0 conversions"),
        finding("efficiency.off_target", "111", "CPA 108.00 is 2.4x the 45.00 target", "7.5x ROAS"),
    ))
    assert score.recall == pytest.approx(1 / 3)
    assert [f["text"] for f in score.figures] == ["$48,213.77", "1,234.38", "12.5%", "0", "108.00", "2.4x", "45.00", "7.5x"]
    assert [(f["finding_index"], f["field"], f["text"]) for f in score.fabricated_figures] == [
        (0, "claim", "$48,213.77"), (1, "evidence", "7.5x")]
    first = score.fabricated_figures[0]
    assert claim[first["start"]:first["end"]] == "$48,213.77"
    assert first["grounded"] is False and "not grounded" in first["reason"]
    assert score.fabrication == 2


def test_strict_figures_ground_on_snapshot_values_alone(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    out = output(case.case_id, finding("waste.zero_conv_search_terms", "333", "211.50 spent on zero-conversion search terms"))
    assert score_case(case, out).fabrication == 0
    strict = score_case(case, out, figures="strict")
    assert strict.fabrication == 1 and strict.fabricated_figures[0]["text"] == "211.50"
    with pytest.raises(ValueError, match="strict"):
        score_case(case, out, figures="loose")


@pytest.mark.parametrize("raw", [
    "Here are the findings: tracking stopped in campaign 111",
    '{"findings": [{"id": "made.up", "scope": null, "claim": "", "evidence": "", "severity": "low"}]}',
    "",
])
def test_unparseable_output_scores_recall_zero_and_keeps_raw_text(tmp_path: Path, raw: str) -> None:
    case = make_case(tmp_path)
    out = CaseOutput(case.case_id, raw)
    score = score_case(case, out)
    assert score.status == "unparseable"
    assert score.recall == 0.0 and score.fabrication == 0
    assert score.missed_ids == [e.id for e in case.must_find]
    assert score.parse_error
    assert out.raw_text == raw  # the raw text stays with the output for the results folder


def test_output_not_obtained_is_an_error_row(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    score = score_case(case, CaseOutput(case.case_id, None, error="529 overloaded after 3 retries"))
    assert score.status == "error" and score.error == "529 overloaded after 3 retries"
    assert score.recall == 0.0 and score.findings == []


def test_score_round_trips_through_json_and_loads_the_snapshot_when_needed(tmp_path: Path) -> None:
    case = make_case(tmp_path, with_snapshot=False)
    assert case.snapshot is None
    score = score_case(case, output(case.case_id, finding("status.disapproved_ads", "333", "ad 5551 spent 1,234.38")))
    text = json.dumps(score.to_dict())
    again = CaseScore.from_dict(json.loads(text))
    assert again == score
    assert again.figures[0]["reason"].startswith("derived over a range this finding names: campaign 333: cost")


C34 = Path(__file__).parents[2] / "cases" / "c34-skincare-duplicates"


def test_a_broken_data_finding_cannot_make_another_kinds_claim_in_words(tmp_path: Path) -> None:
    """c34: a correct data.duplicate_rows finding says its rows are "double-counted" and "above budget" as
    supplied; that describes the export, not tracking counting twice or an overspend. The same words in a
    finding of another kind still hit (must_not_say by ``says``), and a hit by id always counts."""
    case_dir = tmp_path / "cases" / C34.name
    shutil.copytree(C34, case_dir)
    case = load_case(case_dir)
    words = ("Account, 2025-08-01 to 2025-08-21: cost 26,173.00 as supplied, above budget on the schedule; "
             "2,196.16 double-counted, conversions double-counted on 2025-08-08 and 2025-08-09.")
    data_finding = finding("data.duplicate_rows", None, "Rows of 2025-08-08 and 2025-08-09 appear twice.", words)
    assert score_case(case, output(case.case_id, data_finding)).must_not_say_hits == []
    other = finding("efficiency.off_target", "120265452869448590", "Campaign 120265452869448590 is off target.", words)
    hits = score_case(case, output(case.case_id, other)).must_not_say_hits
    assert [(h["entry_id"], h["by"]) for h in hits] == [("pacing.overspend", "says"), ("tracking.double_counting", "says")]
    # the tightened pattern: "2,196.16 double-counted" (cost of the repeated rows) alone is no claim of double counting
    cost_only = finding("efficiency.off_target", "120265452869448590", "Off target.", "2,196.16 double-counted in the rows.")
    assert score_case(case, output(case.case_id, cost_only)).must_not_say_hits == []
