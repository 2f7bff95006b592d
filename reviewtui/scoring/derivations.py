"""Figures a careful auditor derives from the rows of what a finding names, beyond one scope's sums
and rates over one range (docs/scoring.md, "The prose rules").

For the campaigns and ranges one finding names (``named_scope.NamedScope``):

- sums and rates over the campaigns it lists together ("(2298569531, 1445207317, 2091472623)") and,
  when it speaks of the rest, others or excluding, over the account without a named campaign or
  list ("rest of the account, same dates: value 59,473.20");
- each named campaign's daily budget, and the account's, added up over each range it names and
  times each day count it states ("385 over 7 days"), and what the campaign spent of it ("about
  71% used");
- the monthly budget spread over each range on the budget schedule ("104,890 x 7/31 =
  23,684.84 expected"), and the schedule's own planned spend over it;
- with "expected", "due", "would": a conversion rate over one range it names times the clicks over
  another, as they are and lag-adjusted by the reference auditor's lag model ("about 516
  conversions were due");
- with "even" or "equal": one over the number of campaigns (an even share of 20%);
- with "micros": the micros factor, 1,000,000.

Each comes as a ``ranges.RangeValues`` table with the rows it is computed from.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Callable, Iterable

from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot import as_object as _dict
from ..caseset.snapshot_reader import number
from ..domain.budgets import budget_campaigns, daily_amounts, schedule_of
from .daily_totals import (
    ALL_CONVERSIONS, CLICKS, CONVERSIONS, COST, DUPLICATES_ONCE, METRICS, WIDTH, DailyTotals, calendar_days,
)
from .declared import lag_share
from .derived_index import window_numbers
from .named_scope import NamedScope
from .ranges import RangeValues, window_sums
from .row_provenance import Rows

MAX_EXPECTED_RANGES = 6  # ranges tried on each side of an expected count: a finding writes out a few


def derivations(data: dict[str, Any], totals: DailyTotals, readings: list[tuple[DailyTotals, str]],
                scope: NamedScope, cache: dict[Any, Any]) -> list[RangeValues]:
    """The derived figures of one finding's scope; ``readings``: the rows as they are and in each
    corrected reading (with its label); ``cache`` is kept per snapshot."""
    targets = _dict(data.get("targets"))
    target_cpa, target_roas = number(targets.get("target_cpa")), number(targets.get("target_roas"))
    tables: list[RangeValues] = []
    groups = _groups(scope, totals)
    for reading, label in readings:
        suffix = f" ({label})" if label else ""
        for group, name in groups:
            for (first, last), window in scope.windows.items():
                key = ("group", label, group, first, last)
                table = cache.get(key)
                if table is None:
                    table = cache[key] = _group_values(reading, group, name, first, last, window + suffix, target_cpa, target_roas)
                tables.append(table)
    tables += _budget_tables(data, totals, scope, cache)
    if "duplicates" in scope.words:
        tables += _duplicate_extra(totals, readings, scope, cache)
    if "expected" in scope.words:
        tables += _expected_counts(data, totals, scope, groups, cache)
    if "even" in scope.words:
        counts = cache.get("constant counts")
        if counts is None:
            counts = cache["constant counts"] = _constant_counts(data, totals)
        tables.append(RangeValues.of("the account", "an even split", [(f"even share of {n} campaigns", 1.0 / n) for n in counts if n],
                                     (Rows("campaigns"),)))
    if "micros" in scope.words:
        tables.append(RangeValues.of("a constant", "money in micros", [("micros factor", 1_000_000.0)]))
    return tables


Group = tuple[tuple[str, ...], bool]  # (campaigns, True for the account without them)


def _groups(scope: NamedScope, totals: DailyTotals) -> list[tuple[Group, str]]:
    """The campaign groups a finding's figures may be over, beyond the account and one campaign:
    the lists it writes, every campaign it names together, and with a word of the rest, the account
    without each named campaign and each list."""
    known = [c for c in scope.campaigns if c in totals.by_campaign]
    lists = [tuple(c for c in group if c in totals.by_campaign) for group in scope.subsets]
    lists = [group for group in lists if len(group) > 1]
    if len(known) > 1:
        lists.append(tuple(known))
    out: list[tuple[Group, str]] = [((group, False), "campaigns " + ", ".join(group)) for group in dict.fromkeys(lists)]
    if "rest" in scope.words:
        for group in dict.fromkeys([*((c,) for c in known), *lists]):
            out.append(((group, True), "the account without campaign" + ("s " if len(group) > 1 else " ") + ", ".join(group)))
    return out


def _group_sums(totals: DailyTotals, group: Group, first: date, last: date) -> tuple[list[float], int]:
    campaigns, complement = group
    if complement:
        sums, active = window_sums(totals, "account", first, last)
        sums = list(sums)
        for cid in campaigns:
            theirs, _ = window_sums(totals, cid, first, last)
            sums = [a - b for a, b in zip(sums, theirs)]
        return sums, active
    sums = [0.0] * WIDTH
    active = 0
    for cid in campaigns:
        theirs, days = window_sums(totals, cid, first, last)
        sums = [a + b for a, b in zip(sums, theirs)]
        active = max(active, days)
    return sums, active


def _group_values(totals: DailyTotals, group: Group, name: str, first: date, last: date, label: str,
                  target_cpa: float | None, target_roas: float | None) -> RangeValues:
    sums, active = _group_sums(totals, group, first, last)
    account = window_sums(totals, "account", first, last)[0]
    numbers = window_numbers(sums, active, calendar_days(first, last, totals.last_row), target_cpa, target_roas, account)
    return RangeValues.of(name, label, numbers, (Rows("daily", _members(totals, group), first, last),))


def _members(totals: DailyTotals, group: Group) -> tuple[str, ...]:
    campaigns, complement = group
    return tuple(c for c in totals.by_campaign if c not in campaigns) if complement else campaigns


def _duplicate_extra(totals: DailyTotals, readings: list[tuple[DailyTotals, str]], scope: NamedScope,
                     cache: dict[Any, Any]) -> list[RangeValues]:
    """What the duplicate rows add over each range: the rows as they are less the rows counted once
    ("2,196.16 double-counted, with 143 conversions")."""
    once = next((reading for reading, label in readings if label == DUPLICATES_ONCE), None)
    if once is None:
        return []
    tables = []
    for (first, last), window in scope.windows.items():
        key = ("duplicates", first, last)
        table = cache.get(key)
        if table is None:
            extra = [a - b for a, b in zip(totals.window("account", first, last)[0], once.window("account", first, last)[0])]
            table = cache[key] = RangeValues.of("the account", window, [(f"{m} of the duplicate rows", extra[i]) for i, m in enumerate(METRICS)],
                                                (Rows("daily", None, first, last, only="duplicated"),))
        tables.append(table)
    return tables


def _budget_tables(data: dict[str, Any], totals: DailyTotals, scope: NamedScope, cache: dict[Any, Any]) -> list[RangeValues]:
    """The daily budgets of each named campaign and of the account added up over each range and
    day count, what each campaign spent of them, and the monthly budget spread on the schedule."""
    period = totals.period
    budgets = cache.get("budgets")
    if budgets is None:
        budgets = cache["budgets"] = [b for b in _list(data.get("budgets")) if isinstance(b, dict)]
    owners: list[tuple[str, list[dict[str, Any]], tuple[str, ...] | None]] = [("the account", budgets, None)]
    for cid in scope.campaigns:
        paying_for = cache.get("paying for")
        if paying_for is None:
            paying_for = cache["paying for"] = _budgets_paying_for_each(data)
        paying = paying_for.get(cid)
        if paying:
            owners.append((f"campaign {cid}", paying, (cid,)))
    tables = []
    lc = period.last_complete or period.end
    rows = (Rows("budgets", history=True),)
    for owner, paying, campaigns in owners:
        key: tuple[Any, ...] = ("budgets", owner, tuple(scope.windows), tuple(scope.day_counts))
        table = cache.get(key)
        if table is None:
            numbers: list[tuple[str, float | None]] = []
            on = cache.get(("in force", owner))
            if on is None:  # one reader per owner for every finding's ranges
                on = cache[("in force", owner)] = _amounts_in_force(paying, period.days)
            for (first, last) in scope.windows:
                over = cache.get(("budgets over", owner, first, last))  # each range's, for every finding that names it
                if over is None:
                    over = cache[("budgets over", owner, first, last)] = _budgets_over(totals, on, campaigns, first, last)
                numbers += over
            if lc is not None:
                for n in {*scope.day_counts, *(period.days and (period.days,) or ())}:
                    numbers.append((f"daily budget in force on {lc} x {n} days", on(lc) * n))
            table = cache[key] = RangeValues.of(owner, "its daily budgets", numbers,
                                                rows + ((Rows("daily", campaigns),) if campaigns else ()))
        tables.append(table)
    key = ("schedule", tuple(scope.windows))
    table = cache.get(key)
    if table is None:
        table = cache[key] = _schedule_table(data, totals, scope.windows, cache)
    if table is not None:
        tables.append(table)
    return tables


def _budgets_over(totals: DailyTotals, on: Callable[[date], float], campaigns: tuple[str, ...] | None,
                  first: date, last: date) -> list[tuple[str, float | None]]:
    """The daily budgets in force added up over one range, and what ``campaigns`` (else the account) spent of them."""
    days = (last - first).days + 1
    added = sum(on(first + timedelta(days=k)) for k in range(days))
    numbers: list[tuple[str, float | None]] = [(f"daily budget in force, added up over {first} to {last}", added)]
    if added and last > first:  # a day's use is the index's "cost over daily budget on <day>"
        spent = sum(window_sums(totals, cid, first, last)[0][COST] for cid in (campaigns or ("account",)))
        numbers.append((f"cost over daily budget added up, {first} to {last}", spent / added))
    return numbers


def _budgets_paying_for_each(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The budgets that pay for each campaign, in the snapshot's order (``budgets_paying_for`` of
    one campaign, for every campaign in one pass over the budgets)."""
    campaign_list = _list(data.get("campaigns"))
    out: dict[str, list[dict[str, Any]]] = {}
    for budget in _list(data.get("budgets")):
        if isinstance(budget, dict):
            for cid in dict.fromkeys(budget_campaigns(budget, campaign_list)):
                out.setdefault(cid, []).append(budget)
    return out


def _amounts_in_force(paying: list[dict[str, Any]], days_in_month: int | None) -> Callable[[date], float]:
    """The daily budget in force of ``paying`` on a day, read once a day for all the ranges that hold it."""
    in_force: dict[date, float] = {}
    amount = daily_amounts(paying, days_in_month)

    def on(day: date) -> float:
        if day not in in_force:
            in_force[day] = amount(day)
        return in_force[day]

    return on


def _schedule_table(data: dict[str, Any], totals: DailyTotals, windows: Iterable[tuple[date, date]],
                    cache: dict[Any, Any]) -> RangeValues | None:
    period = totals.period
    if not (period.start and period.days):
        return None
    account, _ = schedule_of(data, period)
    month_end = period.start + timedelta(days=period.days - 1)
    month = cache.get(("planned", period.start, month_end))
    if month is None:
        month = cache[("planned", period.start, month_end)] = sum(v for d, v in account.items() if period.start <= d <= month_end)
    monthly = number(_dict(data.get("targets")).get("monthly_budget"))
    numbers: list[tuple[str, float | None]] = []
    for first, last in windows:
        planned = cache.get(("planned", first, last))  # the schedule's days added up in its own order, once a range
        if planned is None:
            planned = cache[("planned", first, last)] = sum(v for d, v in account.items() if first <= d <= last)
        numbers.append((f"budget schedule's planned spend, {first} to {last}", planned))
        if month and monthly is not None:
            numbers.append((f"monthly budget spread on the budget schedule, {first} to {last}", monthly * planned / month))
    return RangeValues.of("the account", "the budget schedule", numbers,
                          (Rows("targets", fields=("monthly_budget",)), Rows("budgets", history=True), Rows("flight_plan")))


def _expected_counts(data: dict[str, Any], totals: DailyTotals, scope: NamedScope, groups: list[tuple[Group, str]],
                     cache: dict[Any, Any]) -> list[RangeValues]:
    """A conversion rate over one range the finding writes out times the clicks over another (or
    the same range of another scope), as they are and lag-adjusted: expected conversions."""
    ranges = list(dict.fromkeys(scope.explicit))[:MAX_EXPECTED_RANGES]
    if not ranges:
        return []
    named = [((cid,), False) for cid in scope.campaigns if cid in totals.by_campaign]
    rate_scopes: list[Group] = [((), True), *named, *(group for group, _ in groups)]
    count_scopes: list[Group] = [((), True), *named, *(group for group, _ in groups if not group[1])]
    key = ("expected", tuple(ranges), tuple(rate_scopes))
    cached = cache.get(key)
    if cached is not None:
        return cached
    clicks: dict[tuple[Group, tuple[date, date]], tuple[float, float]] = {}
    for group in count_scopes:
        for first, last in ranges:
            plain = weighted = 0.0
            for day, sums in _days_of(totals, group, first, last):
                plain += sums[CLICKS]
                weighted += sums[CLICKS] * lag_share(data, day)
            clicks[group, (first, last)] = (plain, weighted)
    numbers: list[tuple[str, float | None]] = []
    for rate_group in rate_scopes:
        for a in ranges:
            sums, _ = _group_sums(totals, rate_group, *a)
            if not sums[CLICKS]:
                continue
            for metric, at in (("conversions", CONVERSIONS), ("all_conversions", ALL_CONVERSIONS)):
                rate = sums[at] / sums[CLICKS]
                for (count_group, b), (plain, weighted) in clicks.items():
                    # the earlier rate of the same scope, or the rate of other campaigns on a named one's traffic
                    same = count_group == rate_group
                    if (same and not a[1] < b[0]) or (not same and (not rate_group[0] or len(count_group[0]) != 1
                                                                    or count_group[1] or count_group[0][0] in rate_group[0])):
                        continue
                    name = (f"{metric} expected at the rate of {_group_name(rate_group)}, {a[0]} to {a[1]}, "
                            f"for the traffic of {_group_name(count_group)}, {b[0]} to {b[1]}")
                    numbers.append((name, rate * plain))
                    numbers.append((name + ", lag-adjusted", rate * weighted))
    result = [RangeValues.of("the finding's ranges", "rate times clicks", numbers, (Rows("daily"),))]
    cache[key] = result
    return result


def _group_name(group: Group) -> str:
    campaigns, complement = group
    if not campaigns:
        return "the account"
    return ("the account without " if complement else "") + "campaign" + ("s " if len(campaigns) > 1 else " ") + ", ".join(campaigns)


def _days_of(totals: DailyTotals, group: Group, first: date, last: date) -> list[tuple[date, list[float]]]:
    campaigns, complement = group
    members = [c for c in totals.by_campaign if c not in campaigns] if complement else list(campaigns)
    days: dict[date, list[float]] = {}
    for cid in members:
        for day, sums in totals.days(cid).items():
            if first <= day <= last:
                days.setdefault(day, [0.0] * WIDTH)[CLICKS] += sums[CLICKS]
    return sorted(days.items())


def _constant_counts(data: dict[str, Any], totals: DailyTotals) -> list[int]:
    campaigns = [c for c in _list(data.get("campaigns")) if isinstance(c, dict)]
    enabled = sum(1 for c in campaigns if str(c.get("status", "")).upper() == "ENABLED")
    with_cost = sum(1 for days in totals.by_campaign.values() if any(s[COST] > 0 for s in days.values()))
    return sorted({len(campaigns) or len(totals.by_campaign), enabled, with_cost} - {0})
