"""The derived index's pacing figures: spend to date against the monthly budget and the budget
schedule, the month-end projections, each campaign against its own schedule, and each daily
budget against what its campaigns spent.

Each figure is put with the rows it comes from (``row_provenance.Rows``): the daily rows to the
last complete day, the monthly budget (or the budget schedule standing in for it), the budget
schedule (budgets with their history, the flight plan) and the period. The figures are put in a
fixed order: where two names hold the same value, grounding names the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot_reader import number
from ..domain.budgets import amount_on, budget_schedule, budget_steps, daily_cap_multiple, schedule_of, span_days
from ..domain.pacing import month_end_projection, monthly_budget, run_rate_projection, scheduled_spend, spread_on_schedule
from .daily_totals import COST, METRICS, DaySums, PeriodDates
from .named_values import NamedValues, SuffixedValues, ratio
from .row_provenance import BUDGET_FIGURE, NAMED, NAMED_BUDGET, PERIOD_ROWS, Rows

SCHEDULE_ROWS = (Rows("budgets", history=True), Rows("flight_plan"))
# The bases expected and projected spend are read on: each budget at its amount in force that day,
# and (with a flight plan) every flighted campaign at its planned spend instead of its budget
IN_FORCE = "budget schedule"
FLIGHTS_AT_PLAN = "budget schedule with flights at planned spend"

Schedule = dict[date, float]
RowsOf = tuple[Rows, ...]


@dataclass(frozen=True)
class Month:
    """The month being paced, to its last complete day."""

    start: date
    last_complete: date
    days: int  # days in the month
    as_of: date | None
    elapsed: int  # days from the start to the last complete day, within the month
    remaining: int


@dataclass(frozen=True)
class Spend:
    """The account's spend to date and over its last 7 complete days, with the rows it is summed from."""

    to_date: float
    last7: float
    rows: RowsOf


def pacing_figures(
    index: NamedValues, data: dict[str, Any], period: PeriodDates, account_day: dict[date, DaySums],
    by_campaign_day: dict[str, dict[date, DaySums]], targets: dict[str, Any], suffix: str = "",
    *, once_per_day: bool = False, per_campaign_and_budget: bool = True,
) -> None:
    """Pacing against the monthly budget and the budget schedule; ``suffix`` names a corrected
    reading of the rows (only the figures that depend on spend are repeated for it), whose
    daily rows are counted ``once_per_day`` when it is the reading without duplicates.
    Without ``per_campaign_and_budget``, only the account's ``pacing: `` names: not each campaign
    against its own schedule nor each daily budget (most of the work on a large account)."""
    if suffix:
        index = SuffixedValues(index, suffix)
    if not (period.start and period.last_complete and period.days):
        return
    month = _month(period.start, period.last_complete, period.days, period.as_of)
    _month_figures(index, month)
    spend = _spend_figures(index, month, account_day, once_per_day)
    schedules = {IN_FORCE: schedule_of(data, period)}  # kept on the snapshot: every reading and the ranges read it
    if _list(data.get("flight_plan")):
        schedules[FLIGHTS_AT_PLAN] = budget_schedule(data, period, flights_at_plan=True)
    budget, budget_rows = _monthly_budget(index, targets, schedules[IN_FORCE][0])
    # name -> (value, rows): spend expected by now, and spend projected to month end, on each basis
    expected: dict[str, tuple[float | None, RowsOf]] = {}
    projected: dict[str, tuple[float | None, RowsOf]] = {
        "straight line": (ratio(spend.to_date * month.days, month.elapsed), (*spend.rows, PERIOD_ROWS)),
        "last 7 days' rate": (run_rate_projection(spend.to_date, spend.last7, month.remaining), (*spend.rows, PERIOD_ROWS)),
    }
    if budget is not None:
        expected["straight line"] = (budget * month.elapsed / month.days, (*budget_rows, PERIOD_ROWS))
        _budget_figures(index, month, spend, budget, budget_rows)
    _schedule_day_figures(index, data, month, schedules[IN_FORCE][0])
    for basis, (schedule, _) in schedules.items():
        if schedule:
            _schedule_basis(index, basis, schedule, month, spend, budget, budget_rows, expected, projected)
    _expected_figures(index, spend, expected)
    _projected_figures(index, budget, budget_rows, projected)
    if not per_campaign_and_budget:
        return
    _campaign_schedule_figures(index, month, schedules[IN_FORCE][1], by_campaign_day, once_per_day)
    _daily_budget_figures(index, data, month, account_day, by_campaign_day, once_per_day)


def _month(start: date, last_complete: date, days: int, as_of: date | None) -> Month:
    elapsed = max(0, min(days, span_days(start, last_complete)))
    return Month(start, last_complete, days, as_of, elapsed, days - elapsed)


def _month_figures(index: NamedValues, month: Month) -> None:
    """Days in the month, elapsed and remaining, to the last complete day and to as_of."""
    index.put("pacing: days in month", float(month.days))
    index.put("pacing: days elapsed", float(month.elapsed))
    index.put("pacing: days remaining", float(month.remaining))
    for name in ("days in month", "days elapsed", "days remaining", "share of month elapsed",
                 "days elapsed including as_of", "days remaining after as_of"):
        index.exact(f"pacing: {name}", PERIOD_ROWS)
    if month.as_of:
        to_as_of = max(0, min(month.days, span_days(month.start, month.as_of)))
        index.put("pacing: days elapsed including as_of", float(to_as_of))
        index.put("pacing: days remaining after as_of", float(month.days - to_as_of))
    index.put("pacing: share of month elapsed", month.elapsed / month.days)


def _spend_figures(index: NamedValues, month: Month, account_day: dict[date, DaySums],
                   once_per_day: bool) -> Spend:
    start, lc = month.start, month.last_complete
    rows = (Rows("daily", first=start, last=lc, once_per_day=once_per_day),)
    to_date = sum(s[COST] for d, s in account_day.items() if start <= d <= lc)
    index.put("pacing: spend to date", to_date)
    index.exact("pacing: spend to date", *rows)
    last7 = sum(s[COST] for d, s in account_day.items() if lc - timedelta(days=6) <= d <= lc)
    return Spend(to_date, last7, rows)


def _monthly_budget(index: NamedValues, targets: dict[str, Any], schedule: Schedule) -> tuple[float | None, RowsOf]:
    """The monthly budget and its rows: ``targets.monthly_budget``, else the budget schedule's month."""
    if number(targets.get("monthly_budget")) is not None:
        return monthly_budget(targets, schedule), (Rows("targets", fields=("monthly_budget",)),)
    scheduled = monthly_budget(targets, schedule)
    if scheduled is None:
        return None, (Rows("targets", fields=("monthly_budget",)),)
    index.put("pacing: monthly budget from the budget schedule", scheduled)
    index.exact("pacing: monthly budget from the budget schedule", *SCHEDULE_ROWS, PERIOD_ROWS)
    return scheduled, SCHEDULE_ROWS


def _budget_figures(index: NamedValues, month: Month, spend: Spend, budget: float, budget_rows: RowsOf) -> None:
    """What is left of the monthly budget, and spend so far against it."""
    index.put("pacing: remaining budget", budget - spend.to_date)
    index.put("pacing: remaining budget per remaining day", ratio(budget - spend.to_date, month.remaining))
    index.put("pacing: budget per day, straight line", budget / month.days)
    index.put("pacing: spend to date over monthly budget", ratio(spend.to_date, budget))
    index.exact("pacing: remaining budget", *budget_rows, *spend.rows)
    index.exact("pacing: remaining budget per remaining day", *budget_rows, *spend.rows, PERIOD_ROWS)
    index.exact("pacing: budget per day, straight line", *budget_rows, PERIOD_ROWS)
    index.exact("pacing: spend to date over monthly budget", *spend.rows, *budget_rows)


def _schedule_day_figures(index: NamedValues, data: dict[str, Any], month: Month, schedule: Schedule) -> None:
    """The budget schedule on the last complete day and on as_of, the daily budgets added up, and
    each day the schedule changed against the day before."""
    for label, day in (("the last complete day", month.last_complete), ("as_of", month.as_of)):
        if day in schedule:
            index.put(f"pacing: budget schedule on {label}", schedule[day])
            index.exact(f"pacing: budget schedule on {label}", *SCHEDULE_ROWS)
    daily = [number(b.get("amount")) for b in _list(data.get("budgets"))
             if isinstance(b, dict) and str(b.get("period") or "DAILY").upper() == "DAILY"]
    if any(a is not None for a in daily):  # "the six daily budgets add up to 715.00 a day, 22,165.00 for March"
        total = sum(a for a in daily if a is not None)
        index.put("pacing: daily budgets, current amounts added up", total)
        index.put("pacing: daily budgets, current amounts added up, times days in month", total * month.days)
        index.exact("pacing: daily budgets, current amounts added up", Rows("budgets", only="daily"))
        index.exact("pacing: daily budgets, current amounts added up, times days in month",
                    Rows("budgets", only="daily"), PERIOD_ROWS)
    for day in sorted(schedule):  # "budgets changed by 1.9x on 2025-07-11"
        before = schedule.get(day - timedelta(days=1))
        if before and schedule[day] != before:
            index.put(f"pacing: budget schedule on {day.isoformat()} over the day before", schedule[day] / before)
            index.exact(f"pacing: budget schedule on {day.isoformat()} over the day before", *SCHEDULE_ROWS)


def _schedule_basis(
    index: NamedValues, basis: str, schedule: Schedule, month: Month, spend: Spend, budget: float | None,
    budget_rows: RowsOf, expected: dict[str, tuple[float | None, RowsOf]],
    projected: dict[str, tuple[float | None, RowsOf]],
) -> None:
    """The whole month on one basis, and what it adds to the expected and projected spend."""
    lc = month.last_complete
    to_date = scheduled_spend(schedule, last=lc)
    whole = scheduled_spend(schedule)
    expected[basis] = (to_date, SCHEDULE_ROWS)
    index.put(f"pacing: {basis}, whole month", whole)
    index.exact(f"pacing: {basis}, whole month", *SCHEDULE_ROWS, PERIOD_ROWS)
    rows = (*spend.rows, *SCHEDULE_ROWS)
    projected[basis] = (spend.to_date + (whole - to_date), rows)
    projection = month_end_projection(spend.to_date, spend.last7, schedule, lc)
    if projection is not None:
        projected[f"last 7 days' share of the {basis}"] = (projection, rows)
    spread = spread_on_schedule(budget, schedule, lc) if budget is not None else None
    if spread is not None:
        expected[f"monthly budget spread on the {basis}"] = (spread, (*budget_rows, *SCHEDULE_ROWS))


def _expected_figures(index: NamedValues, spend: Spend, expected: dict[str, tuple[float | None, RowsOf]]) -> None:
    for name, (value, rows) in expected.items():
        index.put(f"pacing: expected spend to date, {name}", value)
        index.put(f"pacing: spend to date over expected, {name}", ratio(spend.to_date, value))
        index.exact(f"pacing: expected spend to date, {name}", *rows)
        for what in ("spend to date over expected", "spend to date minus expected", "spend gap over expected"):
            index.exact(f"pacing: {what}, {name}", *spend.rows, *rows)
        if value is not None:
            index.put(f"pacing: spend to date minus expected, {name}", spend.to_date - value)
            index.put(f"pacing: spend gap over expected, {name}", ratio(spend.to_date - value, value))


def _projected_figures(index: NamedValues, budget: float | None, budget_rows: RowsOf,
                       projected: dict[str, tuple[float | None, RowsOf]]) -> None:
    for name, (value, rows) in projected.items():
        index.put(f"pacing: projected month-end spend, {name}", value)
        index.exact(f"pacing: projected month-end spend, {name}", *rows)
        if budget is not None and value is not None:
            index.put(f"pacing: projected gap to budget, {name}", value - budget)
            index.put(f"pacing: projected gap to budget as share, {name}", ratio(value - budget, budget))
            index.put(f"pacing: projected spend over budget, {name}", ratio(value, budget))
            for what in ("projected gap to budget", "projected gap to budget as share", "projected spend over budget"):
                index.exact(f"pacing: {what}, {name}", *rows, *budget_rows)


def _campaign_schedule_figures(index: NamedValues, month: Month, per_campaign: dict[str, Schedule],
                               by_campaign_day: dict[str, dict[date, DaySums]], once_per_day: bool) -> None:
    """Each campaign against its own share of the budget schedule."""
    start, lc = month.start, month.last_complete
    for cid, planned in per_campaign.items():
        days = by_campaign_day.get(cid, {})
        spent = sum(s[COST] for d, s in days.items() if start <= d <= lc)
        expected = sum(v for d, v in planned.items() if d <= lc)
        index.put(f"campaign {cid}: expected spend to date on its schedule", expected)
        index.put(f"campaign {cid}: planned spend, whole month", sum(planned.values()))
        index.put(f"campaign {cid}: spend to date over its schedule", ratio(spent, expected))
        index.put(f"campaign {cid}: spend to date minus its schedule", spent - expected)
    own_schedule = (Rows("budgets", NAMED, history=True), Rows("flight_plan", NAMED))
    own_spend = Rows("daily", NAMED, start, lc, once_per_day=once_per_day)
    index.family("campaign ", ": expected spend to date on its schedule", *own_schedule)
    index.family("campaign ", ": planned spend, whole month", *own_schedule)
    index.family("campaign ", ": spend to date over its schedule", own_spend, *own_schedule)
    index.family("campaign ", ": spend to date minus its schedule", own_spend, *own_schedule)


def _daily_budget_figures(index: NamedValues, data: dict[str, Any], month: Month, account_day: dict[date, DaySums],
                          by_campaign_day: dict[str, dict[date, DaySums]], once_per_day: bool) -> None:
    """Each daily budget: the platform's daily maximum of each amount it had, each change as new over
    old, and each day's cost of its campaigns over the amount in force that day."""
    cap = daily_cap_multiple(str(data.get("platform", "")), month.last_complete)
    if _list(data.get("budgets")):
        index.put("platform: most a day may spend, as a multiple of the daily budget", cap)
        index.exact("platform: most a day may spend, as a multiple of the daily budget", Rows("", fields=("platform",)))
        # "budget <id>: ..." names: the budget (read from the name), its history, and what each figure adds.
        index.family("budget ", "", Rows(BUDGET_FIGURE, budget=NAMED_BUDGET, once_per_day=once_per_day))
    for budget_row in _list(data.get("budgets")):
        if not isinstance(budget_row, dict) or str(budget_row.get("period") or "DAILY").upper() != "DAILY":
            continue
        bid = budget_row.get("budget_id")
        cids = [str(c) for c in _list(budget_row.get("campaign_ids"))]
        steps = budget_steps(budget_row)
        for amount in {a for _, a in steps if a is not None}:
            index.put(f"budget {bid}: platform daily maximum ({cap:g}x) of {amount:g}", amount * cap)
        for (_, old), (changed_on, new) in zip(steps, steps[1:]):
            if old and new is not None and changed_on is not None:
                index.put(f"budget {bid}: new amount over old on {changed_on.isoformat()}", new / old)
        for day in account_day:
            in_force = amount_on(steps, day)
            day_cost = sum(by_campaign_day.get(c, {}).get(day, [0.0] * len(METRICS))[COST] for c in cids)
            if in_force and day_cost:
                index.put(f"budget {bid}: cost over daily budget on {day.isoformat()}", day_cost / in_force)
