"""The snapshot rows behind each grounded figure (``rows`` in ``CaseScore.figures``), by hand.

Fixture: tests/fixtures/scoring/snapshot.json (see test_grounding.py). Its daily rows, by
position: campaign 111 from 2025-03-01 to 2025-03-18 at /daily/0..17 and on the 19th at
/daily/30; campaign 222 from the 10th to the 18th at /daily/18..26; campaign 333 on the 16th to
18th at /daily/27..29. The last complete day is the 18th, so the last 7 complete days are the
12th to the 18th and the 7 before them the 5th to the 11th. Search terms 0 and 1 (campaign 333)
have no conversions, term 2 has one. Budget b1 is /budgets/0 with one history entry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case
from reviewtui.scoring.derived_index import derived_index, derived_named, derived_rows
from reviewtui.scoring.row_provenance import ROWS_LIMIT, RowList
from reviewtui.scoring.grounding import GroundingIndex
from reviewtui.scoring.score import CaseScore, score_case

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"


def daily(*ranges: range) -> list[str]:
    return [f"/daily/{i}" for r in ranges for i in r]


LAST_7 = daily(range(11, 18), range(20, 27), range(27, 30))  # 111, 222 and 333 on the 12th..18th
PREVIOUS_7 = daily(range(4, 11), range(18, 20))  # 111 on the 5th..11th, 222 on the 10th and 11th


@pytest.fixture
def data() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def grounded(index: GroundingIndex, text: str, scope: str | None = None) -> dict[str, tuple[str, list[str], int]]:
    out = {}
    for verdict in index.check_texts({"claim": text}, scopes=[scope]):
        rows = index.rows(verdict)
        out[verdict.figure.text] = (verdict.reason, rows.pointers(), len(rows))
    return out


def test_a_campaign_period_cost_names_the_campaigns_daily_rows(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "Campaign 333 spent 1,234.38 with nothing to show", "333")
    reason, rows, count = figures["1,234.38"]  # no range named: the period
    assert reason == "derived over a range this finding names: campaign 333: cost, the period = 1,234.38"
    assert rows == ["/daily/27", "/daily/28", "/daily/29"] and count == 3


def test_the_account_cpa_over_the_last_7_complete_days_names_every_row_of_those_days(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "Over the last 7 complete days account CPA was 119.27, 2.65x the 45.00 target")
    reason, rows, count = figures["119.27"]  # 4,174.38 / 35 conversions
    assert reason == "derived over a range this finding names: account: CPA, the last 7 complete days = 119.268"
    assert rows == LAST_7 and count == 17
    reason, rows, _ = figures["2.65x"]  # 119.27 / 45.00: the target is a row behind it too
    assert reason.startswith("derived over a range this finding names: account: CPA over target, the last 7 complete days")
    assert rows == LAST_7 + ["/targets/target_cpa"]


def test_the_zero_conversion_search_term_cost_names_those_terms_only(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "Search terms without a conversion cost 211.50", "333")
    reason, rows, count = figures["211.50"]  # 166.50 + 45.00; "buy widget" converted
    assert "search terms, zero-conversion cost" in reason
    assert rows == ["/search_terms/0", "/search_terms/1"] and count == 2


def test_a_percent_change_of_two_cited_figures_unions_their_rows(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "Cost was 4,174.38 over the last 7 complete days against 1,440.00 "
                       "the previous 7 complete days, up 189.9%")
    assert figures["4,174.38"][1] == LAST_7
    assert figures["1,440.00"][0] == ("derived over a range this finding names: account: cost, "
                                      "the 7 complete days before the last 7 = 1,440")
    assert figures["1,440.00"][1] == PREVIOUS_7
    reason, rows, count = figures["189.9%"]
    assert reason == "arithmetic in this finding: change from 1,440.00 to 4,174.38 = 189.888"
    assert sorted(rows) == sorted(LAST_7 + PREVIOUS_7) and count == 26


def test_a_snapshot_value_names_its_own_field(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "campaign 333 cost 411.46 on 2025-03-16")
    assert figures["411.46"][1] == ["/daily/27/cost"]


def test_pacing_names_the_budget_its_history_and_the_flight_plan(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "the budget schedule plans 16,500.00 for March")
    reason, rows, _ = figures["16,500.00"]
    assert reason == "derived: pacing: budget schedule, whole month = 16,500"
    assert rows[:3] == ["/budgets/0", "/budgets/0/history/0", "/flight_plan/0"]
    assert set(rows[3:]) == {f"/period/{k}" for k in data["period"]}


def test_a_range_the_finding_names_and_a_fabricated_figure(data: dict) -> None:
    figures = grounded(GroundingIndex(data), "822.92 from 2025-03-16 to 2025-03-17, and 48,213.77 wasted", "333")
    assert figures["822.92"][1] == ["/daily/27", "/daily/28"]
    assert figures["48,213.77"][1:] == ([], 0)
    assert grounded(GroundingIndex(data), "0 conversions")["0"][1:] == ([], 0)


def test_strict_mode_names_snapshot_fields_only(data: dict) -> None:
    strict = GroundingIndex(data, "strict")
    assert grounded(strict, "campaign 333 cost 411.46 on 2025-03-16 and 1,234.38 in all")["411.46"][1] == ["/daily/27/cost"]
    assert grounded(strict, "1,234.38")["1,234.38"][1:] == ([], 0)


@pytest.mark.slow
def test_every_derived_value_says_where_it_comes_from(data: dict) -> None:
    named = derived_named(data)
    described = {name: derived_rows(data, name) for name in named.values}
    assert all(rows is not None for rows in described.values()), [n for n, r in described.items() if r is None]
    empty = [name for name, rows in described.items() if not len(rows) and named.values[name] != 0]
    assert not empty, empty  # only zero values (no trailing zero-conversion days) may name no rows
    assert derived_rows(data, "no such figure") is None


def test_duplicate_rows_counted_once_name_the_first_row_of_each_day(data: dict) -> None:
    data["daily"].append(dict(data["daily"][4]))  # /daily/31: 2025-03-05 of campaign 111 again
    index = derived_index(data)
    assert "account: cost, last 14 complete days (duplicate rows counted once)" in index
    plain = derived_rows(data, "account: cost, last 14 complete days")
    once = derived_rows(data, "account: cost, last 14 complete days (duplicate rows counted once)")
    assert "/daily/31" in plain.pointers(None) and "/daily/31" not in once.pointers(None)
    assert len(plain) == len(once) + 1
    assert derived_rows(data, "count: extra duplicate rows").pointers() == ["/daily/4", "/daily/31"]


def test_campaign_ids_with_separators_still_resolve(data: dict) -> None:
    for row in data["daily"]:
        if row["campaign_id"] == "333":
            row["campaign_id"] = "3{3}: 3, x"
    rows = derived_rows(data, "campaign 3{3}: 3, x: cost, period")
    assert rows is not None and rows.pointers() == ["/daily/27", "/daily/28", "/daily/29"]


def test_a_stored_list_is_capped_and_counts_the_rest() -> None:
    rows = RowList()
    rows.add("daily", list(range(1200)))
    rows.add("daily", list(range(1000, 1300)))  # overlaps: counted once
    rows.add_pointer("/targets/target_cpa")
    assert len(rows) == 1301
    assert rows.pointers() == [f"/daily/{i}" for i in range(ROWS_LIMIT)]
    assert rows.pointers(None)[-1] == "/targets/target_cpa"


def test_a_large_window_is_cheap_and_capped() -> None:
    days = [f"2025-03-{d:02d}" for d in range(1, 32)]
    data = {"period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-31"},
            "daily": [{"date": day, "campaign_id": str(c), "cost": 1.0} for c in range(100) for day in days]}
    index = GroundingIndex(data)
    [verdict] = index.check_texts({"t": "3,100.00 spent"})
    rows = index.rows(verdict)
    assert verdict.reason.startswith("derived over a range this finding names: account: cost, the period") and len(rows) == 3100
    assert len(rows.pointers()) == ROWS_LIMIT


# -- in the score ----------------------------------------------------------------------------

EXPECTED = """\
case: c01-rows
kind: ordinary
must_find:
  - id: waste.zero_conv_campaign@333
    evidence: campaign 333 spent 1,234.38 with 0 conversions
"""


def test_score_figures_carry_rows_through_to_dict_and_from_dict(tmp_path: Path) -> None:
    case_dir = tmp_path / "c01-rows"
    case_dir.mkdir()
    shutil.copyfile(FIXTURE, case_dir / "snapshot.json")
    (case_dir / "expected.yaml").write_text(EXPECTED, encoding="utf-8")
    case = load_case(case_dir)
    finding = {"id": "waste.zero_conv_campaign", "scope": "333", "severity": "high",
               "claim": "Campaign 333 spent 1,234.38 and made nothing; $48,213.77 wasted",
               "evidence": "search terms with no conversion cost 211.50"}
    score = score_case(case, CaseOutput(case.case_id, json.dumps({"findings": [finding]})))
    by_text = {f["text"]: f for f in score.figures}
    assert by_text["1,234.38"]["rows"] == ["/daily/27", "/daily/28", "/daily/29"]
    assert by_text["1,234.38"]["row_count"] == 3
    assert by_text["211.50"]["rows"] == ["/search_terms/0", "/search_terms/1"]
    assert by_text["$48,213.77"]["rows"] == [] and by_text["$48,213.77"]["row_count"] == 0
    assert score.fabricated_figures[0]["rows"] == []

    again = CaseScore.from_dict(json.loads(json.dumps(score.to_dict())))
    assert again == score
    old = score.to_dict()  # a result file from before rows: still loads, without them
    for figure in old["figures"] + old["fabricated_figures"]:
        del figure["rows"], figure["row_count"]
    loaded = CaseScore.from_dict(old)
    assert loaded.figures[0]["text"] == "1,234.38" and "rows" not in loaded.figures[0]
