"""The derived index (hand-computed on tests/fixtures/scoring/snapshot.json) and the grounding index.

Fixture, by hand: 18 complete days (2025-03-01..18), as_of 2025-03-19 with a
partial row; campaign 111 spends 120.00 a day (2 conversions a day to the
10th, then none) and 30.00 on the 19th; campaign 222 spends 300.00 a day from
the 10th (5 conversions a day); campaign 333 spends 411.46 a day on the
16th to 18th (no conversions). Budget b1 (campaign 111) is 300.00 a day
until 2025-03-10, then 400.00; campaign 222 has a 5,000.00 flight from the
10th to the 24th (15 days). Monthly budget 30,000.00, target CPA 45.00.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reviewtui.domain.budgets import budget_in_force
from reviewtui.scoring.derived_index import derived_index
from reviewtui.scoring.grounding import GroundingIndex, verdicts_for_text
from reviewtui.caseset.snapshot import Snapshot

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"

SPEND_TO_DATE = 18 * 120.0 + 9 * 300.0 + 3 * 411.46  # 6,094.38
LAST_7 = 7 * 120.0 + 7 * 300.0 + 3 * 411.46  # 12th..18th: 4,174.38

HAND_COMPUTED = {
    # sums and rates per scope and window
    "account: cost, period": SPEND_TO_DATE + 30.0,
    "account: cost, to last complete day": SPEND_TO_DATE,
    "account: cost, last 7 complete days": LAST_7,
    "account: cost, previous 7 complete days": 7 * 120.0 + 2 * 300.0,  # 5th..11th
    "account: cost, last 14 complete days": 14 * 120.0 + 9 * 300.0 + 3 * 411.46,
    "campaign 111: cost, to last complete day": 2160.0,
    "campaign 111: conversions, to last complete day": 20.0,
    "campaign 111: CPA, to last complete day": 108.0,
    "campaign 111: CPA over target, to last complete day": 2.4,
    "campaign 111: CPA minus target, to last complete day": 63.0,
    "campaign 111: CVR, to last complete day": 20 / 1800,
    "campaign 111: zero-conversion days, period": 9.0,  # 11th..19th
    "campaign 111: zero-conversion days at the end of the data": 9.0,
    "campaign 222: CPA, period": 2700.0 / 45,
    "campaign 222: ROAS, period": 5400.0 / 2700.0,
    "campaign 222: value per conversion, period": 120.0,
    "campaign 222: cost per day, last 7 complete days": 300.0,
    "campaign 333: CTR, period": 1187 / 9503,
    "campaign 333: CPC, period": 1234.38 / 1187,
    "campaign 333: share of account cost, to last complete day": 1234.38 / SPEND_TO_DATE,
    "campaign 222: share of account conversions, to last complete day": 45 / 65,
    "account: cost per day, last 7 complete days": LAST_7 / 7,
    # per-day account totals
    "account: cost on 2025-03-16": 120.0 + 300.0 + 411.46,
    "account: clicks on 2025-03-16": 100 + 50 + 400,
    "account: conversions on 2025-03-05": 2.0,
    # pacing
    "pacing: days elapsed": 18.0,
    "pacing: days remaining": 13.0,
    "pacing: days remaining after as_of": 12.0,
    "pacing: spend to date": SPEND_TO_DATE,
    "pacing: expected spend to date, straight line": 30000 * 18 / 31,
    "pacing: expected spend to date, budget schedule": 9 * 300.0 + 9 * 400.0 + 9 * 5000 / 15,  # 9,300
    "pacing: budget schedule, whole month": 9 * 300.0 + 22 * 400.0 + 5000.0,  # 16,500
    "pacing: expected spend to date, monthly budget spread on the budget schedule": 30000 * 9300 / 16500,
    "pacing: spend to date over expected, budget schedule": SPEND_TO_DATE / 9300,
    "pacing: spend to date minus expected, straight line": SPEND_TO_DATE - 30000 * 18 / 31,
    "pacing: projected month-end spend, straight line": SPEND_TO_DATE / 18 * 31,
    "pacing: projected month-end spend, last 7 days' rate": SPEND_TO_DATE + LAST_7 / 7 * 13,
    "pacing: projected month-end spend, budget schedule": SPEND_TO_DATE + (16500 - 9300),
    "pacing: projected gap to budget, straight line": SPEND_TO_DATE / 18 * 31 - 30000,
    "pacing: projected gap to budget as share, straight line": (SPEND_TO_DATE / 18 * 31 - 30000) / 30000,
    "pacing: remaining budget": 30000 - SPEND_TO_DATE,
    "pacing: remaining budget per remaining day": (30000 - SPEND_TO_DATE) / 13,
    "campaign 222: expected spend to date on its schedule": 9 * 5000 / 15,
    "campaign 222: spend to date over its schedule": 2700 / 3000,
    "budget b1: platform daily maximum (2x) of 400": 800.0,
    "platform: most a day may spend, as a multiple of the daily budget": 2.0,
    "budget b1: cost over daily budget on 2025-03-05": 120 / 300,
    "budget b1: cost over daily budget on 2025-03-12": 120 / 400,
    # counts
    "count: campaigns": 3.0,
    "count: days with no rows up to last complete day": 0.0,
    "count: (date, campaign) pairs with more than one row": 0.0,
    "count: disapproved ads": 1.0,
    "account: search terms, zero-conversion count": 2.0,
    "account: search terms, zero-conversion cost": 211.5,
    "campaign 333: search terms, zero-conversion share of cost, period": 211.5 / 1234.38,
    "campaign 333: search terms, zero-conversion share of search term cost": 211.5 / 241.5,
}


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", list(HAND_COMPUTED))
def test_derived_value(data: dict, name: str) -> None:
    index = derived_index(data)
    assert name in index, sorted(k for k in index if k.split(":")[0] == name.split(":")[0])[:40]
    assert index[name] == pytest.approx(HAND_COMPUTED[name], rel=1e-9)


def test_budget_in_force_applies_history_from_the_change_date(data: dict) -> None:
    from datetime import date

    budget = data["budgets"][0]
    assert budget_in_force(budget, date(2025, 3, 9)) == 300.0
    assert budget_in_force(budget, date(2025, 3, 10)) == 400.0
    assert budget_in_force({"amount": 50}, date(2025, 3, 1)) == 50.0


def test_last_complete_date_defaults_to_the_day_before_as_of(data: dict) -> None:
    data = json.loads(json.dumps(data))
    del data["period"]["last_complete_date"]
    index = derived_index(data)
    assert index["pacing: days elapsed"] == 18.0
    assert index["account: cost, last 7 complete days"] == pytest.approx(LAST_7)


def test_duplicate_and_missing_days_are_counted(data: dict) -> None:
    data = json.loads(json.dumps(data))
    data["daily"].append(dict(data["daily"][4]))  # 2025-03-05, campaign 111, again
    data["daily"] = [r for r in data["daily"] if r["date"] != "2025-03-07"]
    index = derived_index(data)
    assert index["count: (date, campaign) pairs with more than one row"] == 1.0
    assert index["count: extra duplicate rows"] == 1.0
    assert index["count: days with no rows up to last complete day"] == 1.0
    assert index["account: cost on 2025-03-05"] == 240.0


BROKEN_SNAPSHOTS = [
    {},
    {"daily": []},
    {"daily": "not a list", "period": "none", "targets": [], "budgets": {}, "campaigns": None},
    {"period": {"start": "bad", "end": None, "as_of": 7, "days_in_month": "thirty"},
     "daily": [{"date": "garbage"}, "not a row", {"date": None}, {},
               {"date": "2025-03-02", "campaign_id": 1, "cost": "12.50", "clicks": None, "impressions": True,
                "conversions": float("inf"), "conversions_value": 10 ** 400}],
     "targets": {"monthly_budget": "lots", "target_cpa": 0, "target_roas": "n/a"},
     "budgets": [{"history": "x", "amount": "abc"}, {"history": [{"changed_at": "2025-13-40", "new_amount": None}]}, 3],
     "flight_plan": [{"start": "2025-13-01"}, {"campaign_id": "9", "start": "2025-03-05", "end": "2025-03-01"}, None],
     "search_terms": [{"cost": None}, "term"], "ads": [{"approval_status": None}, 5]},
]


@pytest.mark.parametrize("snapshot", BROKEN_SNAPSHOTS)
def test_bad_snapshot_data_is_skipped_never_raised(snapshot: dict) -> None:
    index = derived_index(snapshot)
    assert all(isinstance(v, float) for v in index.values())
    grounding = GroundingIndex(snapshot)
    verdicts = grounding.check_texts({"claim": "spent 12.50 of $9,999"})
    holds_12_50 = snapshot is BROKEN_SNAPSHOTS[3]  # its one usable row has "cost": "12.50"
    assert [v.grounded for v in verdicts] == [holds_12_50, False]


def test_string_numbers_in_rows_count_in_sums() -> None:
    index = derived_index(BROKEN_SNAPSHOTS[3])
    assert index["campaign 1: cost, period"] == 12.5


def test_a_huge_snapshot_value_does_not_break_the_index() -> None:
    grounding = GroundingIndex({"totals": {"cost": 10 ** 400, "clicks": -5, "x": float("nan")}})
    assert grounding.check_texts({"t": "-5 clicks"})[0].grounded


def test_reasons_name_what_grounded_the_figure(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    shutil.copyfile(FIXTURE, path)
    snapshot = Snapshot.load(path)
    reasons = {v.figure.text: v.reason for v in verdicts_for_text(
        "campaign 333 spent 411.46 on 2025-03-16 and the account 831.46; campaign 111 had a 91% impression share on "
        "2025-03-01 against a 45.00 target", snapshot)}
    assert reasons == {
        "411.46": "snapshot /daily/27/cost = 411.46",
        "831.46": "derived over a range this finding names: account: cost, on 2025-03-16 = 831.46",
        "91%": "snapshot /daily/0/search_impression_share = 0.91 (as a percentage: 91)",
        "45.00": "snapshot /targets/target_cpa = 45",
    }
    [fabricated] = verdicts_for_text("$48,213.77", snapshot)
    assert fabricated.reason.startswith("not grounded: nothing in the values, derived figures and date ranges of what this "
                                        "finding names rounds to '$48,213.77'")
    assert "nearest:" in fabricated.reason


def test_numbers_inside_strings_are_grounded_but_not_the_parts_of_dates() -> None:
    data = {"period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-19"},
            "change_events": [{"note": "target CPA raised to 52.50"}]}
    grounding = GroundingIndex(data, "strict")
    assert grounding.check_texts({"t": "52.50"})[0].reason == "snapshot /change_events/0/note 'target CPA raised to 52.50'"
    # 19 only appears as the day of as_of: a date's parts do not ground a figure.
    assert not grounding.check_texts({"t": "19 conversions"})[0].grounded


@pytest.mark.parametrize(("claim", "scope", "grounded", "reason"), [
    # Campaign 333 on the 16th and 17th: 6,200 impressions, 790 clicks, 822.92 cost, CTR 12.74%.
    ("822.92 spent on 790 clicks from 2025-03-16 to 2025-03-17, CTR 12.74%", "333", True, "campaign 333: "),
    ("822.92 on 790 clicks, CTR 12.74%", "333", False, ""),
    # One named day: campaign 333's CTR on the 17th is 390 / 3,200.
    ("CTR 12.19% on 2025-03-17", "333", True, "campaign 333: CTR, on 2025-03-17"),
    ("CTR 12.19%", "333", False, ""),
    # The campaign can be named in the text instead of the scope, by id or by name.
    ("campaign 333 had a 12.19% CTR on 2025-03-17", None, True, "campaign 333: CTR, on 2025-03-17"),
    ("Search | Generic 24/7 had a 12.19% CTR on March 17", None, True, "campaign 333: CTR, on 2025-03-17"),
    # N days to a named date, for the account: 360.00 + 900.00 + 822.92 from the 15th to the 17th.
    ("2,082.92 spent in the 3 days to 2025-03-17", None, True, "account: cost, 2025-03-15 to 2025-03-17"),
    ("2,082.92 spent in those days", None, False, ""),
])
def test_figures_over_the_date_ranges_a_finding_names(tmp_path: Path, claim: str, scope: str | None,
                                                      grounded: bool, reason: str) -> None:
    path = tmp_path / "snapshot.json"
    shutil.copyfile(FIXTURE, path)
    grounding = GroundingIndex.for_snapshot(Snapshot.load(path))
    verdicts = [v for v in grounding.check_texts({"claim": claim}, scopes=[scope]) if v.figure.value != 0]
    assert verdicts and all(v.grounded is grounded for v in verdicts), [(v.figure.text, v.reason) for v in verdicts]
    assert all(reason in v.reason for v in verdicts if not v.figure.day_count)


def _copy(data: dict) -> dict:
    return json.loads(json.dumps(data))


def test_percentages_and_multipliers_match_ratios_only(data: dict) -> None:
    grounding = GroundingIndex(_copy(data))
    verdicts = {v.figure.text: v for v in grounding.check_texts({"t": "45.0% and 10% and 45.0x and 91%"})}
    assert not verdicts["45.0%"].grounded  # target_cpa 45.0 is money, not a percentage
    assert not verdicts["45.0x"].grounded
    assert "pacing_tolerance" in verdicts["10%"].reason
    assert "search_impression_share" in verdicts["91%"].reason


def test_a_rate_times_a_count_in_the_same_finding_is_grounded(data: dict) -> None:
    strict = GroundingIndex(_copy(data), "strict")
    [_, _, product] = strict.check_texts(
        {"t": "On 2025-03-01 campaign 111 won a 91% impression share of the 1,000 impressions it could win, so 910"})
    assert product.grounded and product.reason == "arithmetic in this finding: 91% x 1,000 = 910"
    [alone] = strict.check_texts({"t": "it is 910"})
    assert not alone.grounded


def test_money_read_out_of_micros(data: dict) -> None:
    broken = _copy(data)
    broken["daily"][3]["cost"] = 123_450_000  # 2025-03-04, campaign 111: 123.45 left in micros
    index = derived_index(broken)
    assert index["pacing: spend to date (micros converted)"] == pytest.approx(SPEND_TO_DATE - 120.0 + 123.45)
    assert index["pacing: spend to date"] == pytest.approx(SPEND_TO_DATE - 120.0 + 123_450_000)
    strict = GroundingIndex(broken, "strict")
    [micros, units] = strict.check_texts({"t": "campaign 111 cost 123,450,000 on 2025-03-04 (= 123.45)"})
    assert micros.grounded and units.reason == "arithmetic in this finding: 123,450,000 read as micros = 123.45"
    [alone] = strict.check_texts({"t": "123.45"})
    assert not alone.grounded


def test_duplicate_rows_counted_once(data: dict) -> None:
    doubled = _copy(data)
    doubled["daily"].append(dict(doubled["daily"][4]))
    index = derived_index(doubled)
    assert index["pacing: spend to date"] == pytest.approx(SPEND_TO_DATE + 120.0)
    assert index["pacing: spend to date (duplicate rows counted once)"] == pytest.approx(SPEND_TO_DATE)


def test_ad_cost_and_rows_outside_the_period(data: dict) -> None:
    more = _copy(data)
    more["ads"] = [{"ad_id": "1", "campaign_id": "333", "approval_status": "DISAPPROVED", "cost": 800.0},
                   {"ad_id": "2", "campaign_id": "333", "approval_status": "APPROVED", "cost": 434.38}]
    more["daily"].insert(0, {"date": "2025-02-28", "campaign_id": "333", "impressions": 10, "clicks": 1, "cost": 5.0,
                             "conversions": 0.0, "conversions_value": 0.0, "all_conversions": 0.0})
    index = derived_index(more)
    assert index["campaign 333: ads, disapproved cost"] == 800.0
    assert index["campaign 333: ads, disapproved share of ad cost"] == pytest.approx(800 / 1234.38)
    assert index["campaign 333: cost, all rows"] == pytest.approx(1239.38)
    assert index["campaign 333: cost, period"] == pytest.approx(1234.38)


def test_schedule_follows_campaign_dates_and_budget_changes(data: dict) -> None:
    late = _copy(data)
    late["campaigns"][0]["start_date"] = "2025-03-05"  # campaign 111 (budget b1) serves from the 5th
    index = derived_index(late)
    assert index["pacing: expected spend to date, budget schedule"] == pytest.approx(5 * 300 + 9 * 400 + 3000)
    assert index["budget b1: new amount over old on 2025-03-10"] == pytest.approx(400 / 300)
    assert index["pacing: budget schedule on 2025-03-10 over the day before"] == pytest.approx(
        (400 + 5000 / 15) / 300)


def test_target_roas_ratios(data: dict) -> None:
    roas = _copy(data)
    roas["targets"]["target_roas"] = 4.0
    index = derived_index(roas)
    assert index["campaign 222: ROAS over target, period"] == pytest.approx(2.0 / 4.0)
    assert index["campaign 222: target ROAS over ROAS, period"] == pytest.approx(4.0 / 2.0)


def test_the_same_figure_printed_again_less_precisely() -> None:
    strict = GroundingIndex({"totals": {"roas": 14.448}}, "strict")
    [precise, rounded] = strict.check_texts({"evidence": "ROAS 14.45", "claim": "a ROAS of 14.5"})
    assert precise.grounded and rounded.reason == "the same figure as 14.45 in this finding, rounded"
    [alone] = strict.check_texts({"claim": "a ROAS of 14.5"})
    assert not alone.grounded  # 14.448 is not 14.5 at one decimal


def test_campaign_ids_with_braces_do_not_break_the_derived_index():
    from reviewtui.scoring.derived_index import compute_derived_index

    data = {
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-10"},
        "daily": [{"date": "2025-03-01", "campaign_id": "{}", "clicks": 10, "cost": 12.5, "conversions": 1}],
        "search_terms": [{"campaign_id": "{0}", "search_term": "x", "clicks": 3, "cost": 4.0, "conversions": 0}],
    }
    index = compute_derived_index(data)
    names = [name for name, _ in index.items()] if hasattr(index, "items") else list(index)
    assert any(str(n).startswith("campaign {}: cost") for n in names), names[:10]


def test_a_multiplier_does_not_match_a_difference_of_ratios():
    from reviewtui.scoring.named_values import is_ratio_name

    assert is_ratio_name("campaign 333: ROAS, period")
    assert is_ratio_name("account: CPA over target, period")
    assert not is_ratio_name("campaign 333: ROAS minus target, last 14 complete days")
