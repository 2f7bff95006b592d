"""Declared figures (prompt audit-v4): the schema, the parser, the recomputation from the rows and
the scoring of a finding that declares its figures. Numbers computed by hand from the snapshot below
unless a test says it compares with the reference auditor's own function."""

from __future__ import annotations

import json
import shutil
import time
from decimal import Decimal
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewtui import assistant, figure_vocabulary
from reviewtui.assistant import OutputError, parse_output
from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case
from reviewtui.domain import chance, pacing
from reviewtui.domain.budgets import budget_schedule
from reviewtui.domain.lag import LagModel
from reviewtui.runs.stored_runs import load_run
from reviewtui.scoring import declared
from reviewtui.scoring.daily_totals import PeriodDates
from reviewtui.scoring.figures import find_figures
from reviewtui.scoring.score import FABRICATED, GROUNDED, UNTRACEABLE, score_case

ROOT = Path(__file__).parents[2]
DAYS = [date(2025, 3, 1) + timedelta(days=i) for i in range(10)]  # 2025-03-01 .. 2025-03-10
CONVERSIONS_111 = [10, 10, 9, 9, 8, 8, 7, 7, 6, 6]  # 80 in all


def snapshot() -> dict[str, Any]:
    """Two campaigns over ten complete days, with a duplicated row (111 on 2025-03-03), a partial
    day (111 on 2025-03-11), an impossible impression share (222 on 2025-03-09) and two budget
    changes (b1 raised 80 -> 100 on 2025-03-05, b2 lowered 60 -> 50 on 2025-03-06)."""
    daily = []
    for i, day in enumerate(DAYS):
        daily.append({"date": day.isoformat(), "campaign_id": "111", "impressions": 2000, "clicks": 200, "cost": 100.10,
                      "conversions": CONVERSIONS_111[i], "conversions_value": CONVERSIONS_111[i] * 50,
                      "search_impression_share": 0.8})
        daily.append({"date": day.isoformat(), "campaign_id": "222", "impressions": 800, "clicks": 80, "cost": 40.05,
                      "conversions": 2, "conversions_value": 100, "search_impression_share": 1.37 if i == 8 else 0.5})
    daily.append(dict(daily[4]))  # 111 on 2025-03-03 again
    daily.append({"date": "2025-03-11", "campaign_id": "111", "impressions": 600, "clicks": 60, "cost": 30.0,
                  "conversions": 1, "conversions_value": 50, "search_impression_share": 0.8})
    return {
        "schema_version": "1.0", "platform": "google_ads",
        "account": {"id": "ACCT-DECLARED", "currency_code": "EUR", "time_zone": "Europe/Berlin"},
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-11",
                   "last_complete_date": "2025-03-10", "days_in_month": 31},
        "targets": {"monthly_budget": 4650.0, "target_cpa": 12.0},
        "budgets": [
            {"budget_id": "b1", "campaign_ids": ["111"], "period": "DAILY", "amount": 100.0,
             "history": [{"changed_at": "2025-03-05T09:00:00+01:00", "old_amount": 80.0, "new_amount": 100.0}]},
            {"budget_id": "b2", "campaign_ids": ["222"], "period": "DAILY", "amount": 50.0,
             "history": [{"changed_at": "2025-03-06T09:00:00+01:00", "old_amount": 60.0, "new_amount": 50.0}]},
        ],
        "campaigns": [{"id": "111", "name": "Search | Generic", "status": "ENABLED", "budget_id": "b1"},
                      {"id": "222", "name": "Search | Brand", "status": "ENABLED", "budget_id": "b2"}],
        "conversion_actions": [{"id": "1", "name": "Lead", "primary_for_goal": True, "click_through_lookback_window_days": 30}],
        "daily": daily,
        "search_terms": [{"search_term": "free quote", "campaign_id": "111", "clicks": 12, "cost": 30.5, "conversions": 0},
                         {"search_term": "cheap quote", "campaign_id": "111", "clicks": 8, "cost": 19.25, "conversions": 0}],
    }


def agg(label: str, printed: str, stat: str, metric: str = "", campaigns: tuple[str, ...] = (), first: str = "2025-03-01",
        last: str = "2025-03-10", reading: str = "as_is", excluded: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"label": label, "printed": printed, "how": "aggregate", "stat": stat, "metric": metric, "campaigns": list(campaigns),
            "except": list(excluded), "from": first, "to": last, "reading": reading}


def budget(label: str, printed: str, what: str, campaigns: tuple[str, ...] = (), first: str = "2025-03-01",
           last: str = "2025-03-10", budgets: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"label": label, "printed": printed, "how": "budget", "what": what, "campaigns": list(campaigns),
            "budgets": list(budgets), "from": first, "to": last}


def calc(label: str, printed: str, op: str, *args: str) -> dict[str, Any]:
    return {"label": label, "printed": printed, "how": "calc", "op": op, "args": list(args)}


def value(label: str, printed: str, pointer: str) -> dict[str, Any]:
    return {"label": label, "printed": printed, "how": "value", "pointer": pointer}


def rows(label: str, printed: str, stat: str, field: str, *pointers: str) -> dict[str, Any]:
    return {"label": label, "printed": printed, "how": "rows", "pointers": list(pointers), "field": field, "stat": stat}


def recomputed(*items: dict[str, Any], data: dict[str, Any] | None = None) -> dict[str, declared.Declared]:
    return {d.label: d for d in declared.recompute(data if data is not None else snapshot(), list(items))}


def one(item: dict[str, Any]) -> declared.Declared:
    [entry] = declared.recompute(snapshot(), [item])
    return entry


def number(entry: declared.Declared) -> float:
    assert entry.error is None, entry.error
    assert entry.value is not None
    return float(entry.value)


# -- the recomputation, form by form ----------------------------------------------------------------


def test_sums_are_exact_decimals_in_each_reading():
    got = recomputed(
        agg("a", "1,101.10", "sum", "cost", ("111",)),  # 11 rows of 100.10: the duplicate counted
        agg("b", "1,001.00", "sum", "cost", ("111",), reading="duplicates_removed"),
        agg("c", "1,401.50", "sum", "cost", reading="duplicates_removed"),
        agg("d", "400.50", "sum", "cost", ("222",), first="2025-03-02", last="2025-03-11", reading="shifted_one_day_later"),
        agg("e", "360.45", "sum", "cost", ("222",), first="2025-03-02", last="2025-03-11"),
        agg("f", "1,101.10", "sum", "cost", ("111",), last="2025-03-11", reading="partial_day_left_out"),
        agg("g", "400.50", "sum", "cost", excluded=("111",)),
    )
    assert got["a"].value == Decimal("1101.10")  # exact: a float sum gives 1101.0999999999999
    assert [number(got[k]) for k in "bcdefg"] == [1001.0, 1401.5, 400.5, 360.45, 1101.1, 400.5]
    assert "campaign 111" in got["a"].what and "2025-03-01 to 2025-03-10" in got["a"].what
    assert "duplicate rows removed" in got["b"].what


def test_rates_shares_means_and_days():
    got = recomputed(
        agg("cpa", "12.51", "cpa", campaigns=("111",), reading="duplicates_removed"),  # 1,001.00 / 80
        agg("share", "71.4%", "share", "cost", ("111",), reading="duplicates_removed"),  # 1,001.00 / 1,401.50
        agg("pd", "40.05", "per_day", "cost", ("222",)),
        agg("n", "10", "days"),
        agg("m", "0.587", "mean", "search_impression_share", ("222",)),  # (9 x 0.5 + 1.37) / 10
        agg("v", "0.5", "mean", "search_impression_share", ("222",), reading="invalid_rows_left_out"),
        agg("ctr", "10%", "ctr", campaigns=("222",)),
    )
    assert number(got["cpa"]) == pytest.approx(12.5125)
    assert number(got["share"]) == pytest.approx(1001.0 / 1401.5)
    assert [number(got[k]) for k in ("pd", "n", "v", "ctr")] == [40.05, 10, 0.5, 0.1]
    assert number(got["m"]) == pytest.approx(0.587)


def test_lag_trend_and_projection_are_the_domain_functions():
    data = snapshot()
    got = recomputed(
        agg("lag", "1,500", "lag_adjusted", "clicks", ("111",), reading="duplicates_removed"),
        agg("trend", "-1", "trend_z", campaigns=("111",), reading="duplicates_removed"),
        agg("proj", "4,344.65", "projection", "cost", reading="duplicates_removed"),
        data=data,
    )
    model = LagModel.for_actions(date(2025, 3, 11), data["conversion_actions"], 0.7, 0.95)
    assert number(got["lag"]) == pytest.approx(model.adjusted((d, 200.0) for d in DAYS))
    assert model.credited(date(2025, 3, 10)) == pytest.approx(0.7603, abs=1e-4)  # k = 1, tau 0.7
    # settled days: recorded share at least 0.95, k >= 3, so 2025-03-01 .. 2025-03-08
    assert number(got["trend"]) == pytest.approx(chance.trend_z([(100.10, c) for c in CONVERSIONS_111[:8]]))
    # 1,401.50 to date + (981.05 spent / 1,050 scheduled over 2025-03-04..10) x 3,150 still scheduled
    assert number(got["proj"]) == pytest.approx(1401.5 + 981.05 / 1050 * 3150)


def test_budget_figures_follow_the_schedule_and_the_cap_rule():
    data = snapshot()
    got = recomputed(
        budget("b4", "80", "daily_in_force", ("111",), "2025-03-04", "2025-03-04"),
        budget("b5", "100", "daily_in_force", ("111",), "2025-03-05", "2025-03-05"),
        budget("sum", "920", "daily_sum", ("111",)),  # 4 x 80 + 6 x 100
        budget("cap1", "200", "cap", ("111",), "2025-03-05", "2025-03-05"),
        budget("cap2", "120", "cap", budgets=("b2",), first="2025-03-06", last="2025-03-06"),  # lowered that day: 2 x 60
        budget("in2", "50", "daily_in_force", budgets=("b2",), first="2025-03-06", last="2025-03-06"),
        budget("sched", "1,470", "scheduled"),  # 920 + 5 x 60 + 5 x 50
        budget("month", "4,650", "monthly"),
        budget("spread", "1,480", "monthly_spread"),
        data=data,
    )
    assert [number(got[k]) for k in ("b4", "b5", "sum", "cap1", "cap2", "in2", "sched", "month")] == \
        [80, 100, 920, 200, 120, 50, 1470, 4650]
    schedule = budget_schedule(data, PeriodDates(data, DAYS))[0]
    assert pacing.scheduled_spend(schedule) == 4620  # 80 x 4 + 100 x 27 + 60 x 5 + 50 x 26
    assert number(got["spread"]) == pytest.approx(pacing.spread_on_schedule(4650, schedule, DAYS[-1], first=DAYS[0]))
    assert number(got["spread"]) == pytest.approx(4650 * 1470 / 4620)


def test_values_rows_and_arithmetic():
    got = recomputed(
        value("t", "12.00", "/targets/target_cpa"),
        rows("st", "49.75", "sum", "cost", "/search_terms/0", "/search_terms/1"),
        rows("n", "2", "count", "", "/search_terms/0", "/search_terms/1"),
        agg("c", "1,001.00", "sum", "cost", ("111",), reading="duplicates_removed"),
        calc("x", "83.4", "divide", "c", "t"),
        calc("p", "-20%", "percent_change", "n", "st"),  # 2 -> 49.75: +2,387.5%, printed wrong on purpose below
        calc("f", "83", "floor", "x"),
        calc("lo", "2", "min", "n", "t", "st"),
        calc("hi", "49.75", "max", "n", "t", "st"),
        calc("ch", "0.3%", "chance_at_most", "n", "x"),
        calc("z", "-8.9", "z_score", "n", "x"),
        calc("m", "1,000,000", "multiply", "micros_factor", "1"),
        calc("g", "2", "add", "google_daily_multiple", "0"),
    )
    assert [number(got[k]) for k in ("t", "st", "n", "f", "lo", "hi", "m", "g")] == [12, 49.75, 2, 83, 2, 49.75, 1_000_000, 2]
    assert number(got["x"]) == pytest.approx(1001 / 12)
    assert number(got["p"]) == pytest.approx((49.75 - 2) / 2)
    assert number(got["ch"]) == pytest.approx(chance.poisson_at_most(2, 1001 / 12))
    assert number(got["z"]) == pytest.approx(chance.poisson_z(2, 1001 / 12))
    assert "/search_terms/0" in got["st"].rows.pointers()


# -- comparing at the printed precision -------------------------------------------------------------


def check(text: str, item: dict[str, Any]) -> tuple[bool, str]:
    [figure] = find_figures(text)
    return declared.check(figure, one(item))


def test_a_printed_figure_holds_the_recomputed_value_at_its_precision():
    cost = agg("a", "1,101.10", "sum", "cost", ("111",))
    assert check("cost 1,101.10", cost)[0]
    assert check("cost 1,101.1", cost)[0] and check("cost 1,101", cost)[0]
    ok, reason = check("cost 1,101.11", cost)
    assert not ok and "the rows give 1,101.1" in reason and "1,101.11 accepts 1,101.105 to 1,101.115" in reason
    # a hedge: half a unit + 2%, as the prompt says (the prose rules allow at most one unit of the last digit)
    assert check("cost about 1,080", cost)[0] and check("cost about 1.1k", cost)[0]
    ok, reason = check("cost about 1,050", cost)
    assert not ok and "about 1,050 accepts 1,024 to 1,076" in reason
    share = agg("s", "71.4%", "share", "cost", ("111",), reading="duplicates_removed")
    assert check("71.4% of the account's cost", share)[0] and not check("74% of the account's cost", share)[0]
    change = calc("p", "-50%", "percent_change", "a", "b")
    entries = recomputed(agg("a", "20", "sum", "conversions", ("222",)), agg("b", "10", "sum", "conversions", ("222",),
                                                                               first="2025-03-06"), change)
    [figure] = find_figures("down 50%")
    assert declared.check(figure, entries["p"])[0]  # the sign is not compared: "down 50%" is -50%


# -- bad declarations: a clear reason each, the others still recomputed, never a crash ----------------


@pytest.mark.parametrize("items, reason", [
    ([agg("a", "1", "sum", "cost", ("999",))], "campaigns: no campaign '999' in the snapshot"),
    ([value("a", "1", "/daily/999/cost")], "pointer '/daily/999/cost' does not resolve"),
    ([value("a", "1", "/daily/0")], "names an object, not a number"),
    ([agg("a", "1", "sum", "revenue", ("111",))], "needs a metric, one of impressions"),
    ([calc("a", "1", "add", "b", "1"), agg("b", "1", "days")], "'b' is declared after this figure"),
    ([calc("a", "1", "add", "zz", "1")], "'zz' is not a label declared in this finding"),
    ([calc("a", "1", "add", "a", "1")], "'a' is this figure itself (a cycle)"),
    ([calc("a", "1", "divide", "7", "0")], "division by zero"),
    ([agg("a", "1", "cpa", campaigns=("111",), first="2025-03-11", last="2025-03-11", reading="partial_day_left_out")],
     "division by zero: conversions is 0 over that range"),
    ([agg("a", "1", "sum", "cost", first="2025-02-01")], "is outside the period and the rows' dates"),
    ([agg("a", "1", "sum", "cost", first="2025-03-09", last="2025-03-02")], "from 2025-03-09 is after to 2025-03-02"),
    ([agg("a", "1", "sum", "cost", first="2025-3-1")], "from '2025-3-1' is not a date written YYYY-MM-DD"),
    ([calc("a", "1", "multiply", "367", "2")], "the literal 367 is out of range (whole numbers 0 to 366)"),
    ([calc("a", "1", "floor", "1", "2")], "op floor takes 1 arguments, got 2"),
    ([agg("a", "n/a", "days")], "printed 'n/a' is not one number"),
    ([agg("a", "1", "days"), agg("a", "2", "days")], "label 'a' is declared twice in this finding (figures 1 and 2)"),
    ([agg("a", "1", "sum", "cost", ("111",), excluded=("222",))], "except is for the rest of the account"),
    ([rows("a", "1", "sum", "cost")], "pointers is empty"),
    ([rows("a", "1", "sum", "clicks", "/search_terms/0", "/targets")], "/targets/clicks is missing, not a number"),
    ([budget("a", "1", "daily_in_force", budgets=("b9",))], "budgets: no budget 'b9' in the snapshot"),
    ([budget("a", "1", "monthly_spread", ("111",))], "the monthly budget is the account's"),
    ([agg("a", "1", "projection", "clicks")], "stat projection projects cost"),
    ([calc("a", "1", "chance_at_most", "2", "0"), calc("b", "1", "z_score", "2", "0")], "expected count above 0"),
    ([{"label": "a", "printed": "1", "how": "guess"}], "how 'guess' is not one of value, aggregate, rows, budget, calc"),
    (["not an object"], "figure 1 is 'not an object', not an object of the figures vocabulary"),
])
def test_a_bad_declaration_gets_its_reason_and_the_rest_is_still_recomputed(items, reason):
    entries = declared.recompute(snapshot(), [*items, agg("ok", "10", "days")])
    assert any(e.error and reason in e.error for e in entries), [e.error for e in entries]
    assert entries[-1].label == "ok" and entries[-1].error is None and entries[-1].value == 10


def test_a_figure_built_on_a_bad_one_says_so():
    got = recomputed(agg("a", "1", "sum", "cost", ("999",)), calc("b", "1", "add", "a", "1"))
    assert got["b"].error == "args: a could not be recomputed (campaigns: no campaign '999' in the snapshot)"


def test_ten_thousand_declarations_are_refused_past_the_limit_quickly():
    items = [calc(f"x{i}", "2", "add", "1", "1") for i in range(10_000)]
    started = time.perf_counter()
    entries = declared.recompute(snapshot(), items)
    assert time.perf_counter() - started < 5  # generous: a hang or a quadratic blow-up, not a benchmark
    assert len(entries) == figure_vocabulary.MAX_FIGURES_PER_FINDING + 1
    assert entries[-1].error == "9,900 more declared figures past the limit of 100 a finding were not recomputed"
    assert all(e.value == 2 for e in entries[:-1])


def test_hostile_numbers_give_a_reason_not_a_crash():
    data = snapshot()
    data["daily"][0]["cost"] = 1e308
    data["targets"]["target_cpa"] = "12,5"
    items = [agg("a", "1", "sum", "cost"), calc("b", "1", "multiply", "a", "a", "a"), value("t", "125", "/targets/target_cpa"),
             calc("c", "1", "percent_change", "0", "a"), {"label": 5, "printed": 7, "how": "calc", "op": "add", "args": [1, 2]}]
    entries = declared.recompute(data, items)
    assert len(entries) == 5 and entries[2].value == 125  # '12,5' reads as the snapshot reader reads it
    assert entries[3].error and "division by zero" in entries[3].error
    assert entries[4].error == "args must be a list of strings"


# -- the schema and the parser: one definition ------------------------------------------------------


def answer(*findings: dict[str, Any]) -> str:
    return json.dumps({"findings": list(findings)})


def declared_finding(figures: list[Any], evidence: str = "Campaign 111, 2025-03-01 to 2025-03-10: cost 1,101.10.",
                     **extra: Any) -> dict[str, Any]:
    return {"id": "efficiency.off_target", "scope": "111", "claim": "Campaign 111 is off target.", "evidence": evidence,
            "severity": "medium", "figures": figures, **extra}


def prose_finding(evidence: str = "Campaign 111, 2025-03-01 to 2025-03-10: cost 1,101.10.") -> dict[str, Any]:
    return {"id": "efficiency.off_target", "scope": "111", "claim": "Campaign 111 is off target.", "evidence": evidence,
            "severity": "medium"}


def test_the_schema_sent_requires_figures_in_the_vocabulary():
    item = assistant.output_schema()["properties"]["findings"]["items"]
    assert "figures" in item["required"] and item["properties"]["figures"] == figure_vocabulary.figures_schema()
    forms = item["properties"]["figures"]["items"]["anyOf"]
    assert [f["properties"]["how"]["enum"] for f in forms] == [[how] for how in figure_vocabulary.FORMS]
    assert all(f["additionalProperties"] is False and set(f["required"]) == set(f["properties"]) for f in forms)
    assert "Figures" in assistant.system_prompt() and figure_vocabulary.figures_prompt_section() in assistant.system_prompt()


def test_a_declared_answer_and_a_prose_answer_both_parse():
    [d] = parse_output(answer(declared_finding([agg("a", "1,101.10", "sum", "cost", ("111",))])))
    assert d.declares and d.figures and d.invalid_figures == {}
    [p] = parse_output(answer(prose_finding()))
    assert not p.declares and p.figures is None and "figures" not in p.to_dict()


@pytest.mark.parametrize("doc, message", [
    ({"findings": []}, "the answer has no finding: the output schema asks for at least one"),
    ({"findings": [{k: v for k, v in prose_finding().items() if k != "claim"}]}, "finding 1 (efficiency.off_target) lacks 'claim', which the output schema requires"),
    ({"findings": [{k: v for k, v in prose_finding().items() if k != "evidence"}]}, "finding 1 (efficiency.off_target) lacks 'evidence', which the output schema requires"),
    ({"findings": [{**prose_finding(), "scope": 111}]}, "finding 1 (efficiency.off_target), scope: 111 is not valid under any of the given schemas"),
    ({"findings": [{**prose_finding(), "id": "made.up"}]}, "'made.up' is not one of"),
    ({"findings": [{**prose_finding(), "note": "x"}]}, "finding 1 (efficiency.off_target) has 'note', which the output schema does not have"),
    ({"findings": [declared_finding([]), prose_finding()]}, "finding 2 (efficiency.off_target) has no 'figures' while another finding declares its figures"),
    ({"findings": [declared_finding("none")]}, "finding 1 (efficiency.off_target), figures: 'none' is not of type 'array'"),
])
def test_what_the_schema_refuses_is_unparseable(doc, message):
    with pytest.raises(OutputError) as caught:
        parse_output(json.dumps(doc))
    assert message in str(caught.value)


def test_the_parser_reads_the_schema_the_api_is_sent(monkeypatch):
    """One definition: narrow the schema sent and the parser refuses what it no longer allows."""
    text = answer(declared_finding([]))
    assert parse_output(text)
    monkeypatch.setattr(assistant, "SEVERITIES", ("high", "low"))
    for cached in (assistant.output_schema, assistant._answer_schema, assistant._validator, assistant._figure_validators):
        cached.cache_clear()
    try:
        with pytest.raises(OutputError, match="'medium' is not one of"):
            parse_output(text)
    finally:
        monkeypatch.undo()
        for cached in (assistant.output_schema, assistant._answer_schema, assistant._validator, assistant._figure_validators):
            cached.cache_clear()


def test_a_figure_outside_the_vocabulary_costs_that_figure_only():
    bad = agg("b", "3", "sum", "revenue", ("111",))
    [finding] = parse_output(answer(declared_finding([agg("a", "1,101.10", "sum", "cost", ("111",)), bad,
                                                      {"label": "c", "printed": "1", "how": "aggregate"}])))
    assert sorted(finding.invalid_figures) == [1, 2]
    assert "metric: 'revenue' is not one of" in finding.invalid_figures[1]
    assert "'stat' is a required property" in finding.invalid_figures[2]


# -- scoring a declared answer -------------------------------------------------------------------------

EXPECTED = """\
case: {case_id}
kind: ordinary
must_find:
  - id: efficiency.off_target@111
    evidence: campaign 111's CPA 2025-03-01 to 2025-03-10 is 12.51 against a 12.00 target (duplicates removed)
"""


def make_case(tmp_path: Path, case_id: str = "c01-declared"):
    case_dir = tmp_path / "cases" / case_id
    case_dir.mkdir(parents=True)
    (case_dir / "snapshot.json").write_text(json.dumps(snapshot(), indent=1), encoding="utf-8")
    (case_dir / "expected.yaml").write_text(EXPECTED.format(case_id=case_id), encoding="utf-8")
    return load_case(case_dir)


def scored(tmp_path: Path, *findings: dict[str, Any]):
    case = make_case(tmp_path)
    return score_case(case, CaseOutput(case.case_id, answer(*findings)))


def by_text(score) -> dict[str, dict[str, Any]]:
    return {row["text"]: row for row in score.figures}


def test_a_declared_figure_is_recomputed_and_a_wrong_one_shows_both_numbers(tmp_path):
    evidence = ("Campaign 111, 2025-03-01 to 2025-03-10, duplicates removed: cost 1,001.00 for 80 conversions, "
                "CPA 12.51 against a 12.00 target; cost with the duplicate row 1,201.10.")
    score = scored(tmp_path, declared_finding([
        agg("c", "1,001.00", "sum", "cost", ("111",), reading="duplicates_removed"),
        agg("n", "80", "sum", "conversions", ("111",), reading="duplicates_removed"),
        calc("cpa", "12.51", "divide", "c", "n"),
        value("t", "12.00", "/targets/target_cpa"),
        agg("w", "1,201.10", "sum", "cost", ("111",)),
    ], evidence=evidence))
    rows_ = by_text(score)
    assert [rows_[t]["status"] for t in ("1,001.00", "80", "12.51", "12.00")] == [GROUNDED] * 4
    assert rows_["12.51"]["declared"]["recomputed"] == pytest.approx(12.5125)
    assert "/daily/0" in rows_["1,001.00"]["rows"] and "/daily/20" not in rows_["1,001.00"]["rows"]  # the duplicate row left out
    wrong = rows_["1,201.10"]
    assert wrong["status"] == FABRICATED and "the rows give 1,101.1" in wrong["reason"]
    assert "sum of cost, campaign 111, 2025-03-01 to 2025-03-10" in wrong["reason"]
    assert (score.fabrication, score.untraceable, score.recall) == (1, 0, 1.0)


def test_a_number_no_declaration_prints_is_untraceable_or_fabricated(tmp_path):
    evidence = "Campaign 111, 2025-03-01 to 2025-03-10: cost 1,101.10 over 10 days, 7,777 clicks lost."
    score = scored(tmp_path, declared_finding([agg("c", "1,101.10", "sum", "cost", ("111",))], evidence=evidence))
    rows_ = by_text(score)
    assert rows_["1,101.10"]["status"] == GROUNDED
    assert rows_["10"]["status"] == UNTRACEABLE and rows_["10"]["reason"].startswith("not declared in the finding's figures; by the prose rules:")
    assert rows_["7,777"]["status"] == FABRICATED and rows_["7,777"]["reason"].startswith("not declared in the finding's figures, and")
    assert (score.fabrication, score.untraceable) == (1, 1)


def test_declarations_the_text_does_not_print_are_checked_too(tmp_path):
    score = scored(tmp_path, declared_finding([
        agg("c", "1,101.10", "sum", "cost", ("111",)),
        agg("d", "10", "days"),  # an intermediate figure, right
        agg("e", "99", "days"),  # wrong
        {"label": "x", "printed": "5", "how": "aggregate", "stat": "sum"},  # not of the vocabulary
    ]))
    unprinted = [row for row in score.figures if row["field"] == "figures"]
    assert [(row["text"], row["status"]) for row in unprinted] == [("10", GROUNDED), ("99", FABRICATED), ("5", FABRICATED)]
    assert "not of the figures vocabulary" in unprinted[2]["reason"] and "'metric' is a required property" in unprinted[2]["reason"]


def test_a_prose_answer_is_judged_by_the_prose_rules_alone(tmp_path):
    score = scored(tmp_path, prose_finding("Campaign 111, 2025-03-01 to 2025-03-10: cost 1,101.10, 7,777 clicks lost."))
    assert {row["text"]: row["status"] for row in score.figures} == {"1,101.10": GROUNDED, "7,777": FABRICATED}
    assert all(row["declared"] is None for row in score.figures) and score.untraceable == 0


def test_how_computed_is_a_note_a_client_can_read():
    got = recomputed(agg("c", "1,001.00", "sum", "cost", ("111",), reading="duplicates_removed"),
                     budget("s", "920", "daily_sum", ("111",)), calc("u", "109%", "divide", "c", "s"),
                     agg("bad", "1", "sum", "cost", ("999",)))
    notes = {k: declared.how_computed(v) for k, v in got.items()}
    assert notes["c"] == ("The total cost of campaign Search | Generic (111), 2025-03-01 to 2025-03-10 "
                          "(duplicate rows removed).")
    assert notes["s"] == "The daily budget of campaign 111 times the 10 days 2025-03-01 to 2025-03-10."
    assert notes["u"] == "1,001.00 divided by 920."
    assert notes["bad"] == ""


# -- the hand-written declared answers, end to end -----------------------------------------------------


@pytest.mark.slow
def test_the_hand_written_declared_answers_pass_with_one_untraceable_figure(tmp_path, capsys):
    from reviewtui.commands.eval import main

    fixtures = ROOT / "tests" / "fixtures" / "declared"
    cases = tmp_path / "cases"
    for answer_file in fixtures.glob("c*.json"):
        shutil.copytree(ROOT / "cases" / answer_file.stem, cases / answer_file.stem)
    shutil.copytree(ROOT / "writeups", tmp_path / "writeups")  # the cases' sources, checked before a run
    code = main(["--backend", "replay", "--replay-dir", str(fixtures), "--cases", str(cases),
                 "--results-dir", str(tmp_path / "results")])
    out = capsys.readouterr().out
    assert code == 0, out
    run = load_run(tmp_path / "results" / "replay" / "declared" / assistant.PROMPT_VERSION)
    scores = [score for record in run.records.values() for score in record.scores]
    assert len(scores) == 5 and all(s.status == "ok" and s.recall == 1.0 for s in scores)
    assert sum(s.fabrication for s in scores) == 0
    assert [(s.case_id, s.untraceable) for s in scores if s.untraceable] == [("c39-law-invalid", 1)]
    declared_rows = [row for s in scores for row in s.figures if row["declared"] is not None]
    assert len(declared_rows) > 150


@pytest.mark.slow
def test_bad_declarations_through_eval_each_get_their_reason_and_the_rest_is_scored(tmp_path, capsys):
    """The issue's bad-input list in one answer, through ``reviewtui eval --backend replay`` on files: each bad
    declaration is a fabrication with its reason on that figure, the good figures are grounded, no crash."""
    from reviewtui.commands.eval import main

    case = make_case(tmp_path)
    bad = [agg("u", "1", "sum", "cost", ("999",)),  # unknown campaign
           value("p", "1", "/daily/999/cost"),  # unknown pointer
           agg("m", "1", "sum", "revenue", ("111",)),  # unknown metric
           calc("y", "1", "add", "y", "1"),  # a cycle
           calc("z", "1", "divide", "7", "0"),  # division by zero
           agg("r", "1", "sum", "cost", first="2025-01-01", last="2025-01-31")]  # a range outside the period
    first = declared_finding([agg("a", "1,101.10", "sum", "cost", ("111",)), *bad])
    many = declared_finding([agg("a", "1,101.10", "sum", "cost", ("111",)),
                             *(calc(f"x{i}", "2", "add", "1", "1") for i in range(9_999))])
    replay = tmp_path / "replay"
    replay.mkdir()
    (replay / f"{case.case_id}.json").write_text(answer(first, many), encoding="utf-8")
    main(["--backend", "replay", "--replay-dir", str(replay), "--cases", str(tmp_path / "cases"),
          "--results-dir", str(tmp_path / "results")])
    capsys.readouterr()
    [stored] = (tmp_path / "results").glob(f"replay/replay/*/cases/{case.case_id}.json")
    score = json.loads(stored.read_text(encoding="utf-8"))["score"]
    assert score["status"] == "ok" and score["recall"] == 1.0
    rows_ = score["figures"]
    assert [r["status"] for r in rows_ if r["text"] == "1,101.10"] == [GROUNDED, GROUNDED]  # both findings
    reasons = [r["reason"] for r in rows_ if r["status"] == FABRICATED]
    for says in ("no campaign '999' in the snapshot", "pointer '/daily/999/cost' does not resolve",
                 "not of the figures vocabulary", "'y' is this figure itself (a cycle)", "division by zero",
                 "is outside the period and the rows' dates",
                 "9,900 more declared figures past the limit of 100 a finding were not recomputed"):
        assert sum(says in reason for reason in reasons) == 1, (says, reasons)
    assert score["fabrication"] == len(reasons) == 7


def test_a_multiplier_in_the_text_is_its_declared_number_and_a_terms_number_needs_no_declaration(tmp_path):
    """"2.1 times" prints the declared "2.1" (a multiplier is its number with a word; 21% would not be);
    the 30 of "per 30 days" is the term's name, not an undeclared figure."""
    evidence = ("Campaign 111, 2025-03-01 to 2025-03-10: cost 1,101.10, 1.8 times the 600.60 of 2025-03-01 to "
                "2025-03-05, 60.06 per 30 days of nothing.")
    score = scored(tmp_path, declared_finding([
        agg("c", "1,101.10", "sum", "cost", ("111",)),
        agg("h", "600.60", "sum", "cost", ("111",), last="2025-03-05"),
        calc("r", "1.8", "divide", "c", "h"),
        calc("m", "60.06", "divide", "h", "10"),
    ], evidence=evidence))
    assert {row["text"]: row["status"] for row in score.figures if row["field"] != "figures"} == {
        "1,101.10": GROUNDED, "600.60": GROUNDED, "1.8 times": GROUNDED, "60.06": GROUNDED}
    assert (score.fabrication, score.untraceable) == (0, 0)
