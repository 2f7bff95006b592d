"""The derived index (DESIGN.md 7.5): figures an auditor computes from the rows.

``derived_index(snapshot_data)`` returns ``{name: value}`` with names a person
can read, e.g. ``"campaign 333: cost, last 7 complete days"`` or
``"pacing: projected month-end spend, straight line"``. Ratios are kept as
fractions (CTR 0.0125, share 0.62): grounding compares a printed percentage
with the fraction times 100.

Scopes: ``account`` and ``campaign <id>``. Windows: ``period`` (every row in
period.start..period.end), ``to last complete day`` (only when rows after the
last complete date exist), ``last 7 complete days``, ``previous 7 complete
days`` (the 7 before those) and ``last 14 complete days``. The last complete
date is ``period.last_complete_date``, else ``period.as_of`` minus one day,
else the last date with rows.

The snapshot is untrusted input (broken-data cases are the point): missing
sections, nulls, strings where numbers belong and rows with bad dates are
skipped, never raised on.
"""

from __future__ import annotations

import math
import threading
from datetime import date, timedelta
from typing import Any, Iterable

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")
_IMPR, _CLICKS, _COST, _CONV, _VALUE, _ALL = range(len(METRICS))
# The most a platform lets one day spend, as a multiple of the daily budget.
DAILY_CAP_MULTIPLE = {"google_ads": 2.0, "meta_ads": 1.25, "meta": 1.25, "facebook_ads": 1.25}


def number(value: Any) -> float | None:
    """A finite float from a JSON value (numbers and numeric strings), else None."""
    if type(value) is float:  # the common case, first
        return value if value - value == 0 else None  # False for inf and nan
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            f = float(value)
        except OverflowError:  # an int beyond float range
            return None
    elif isinstance(value, str):
        try:
            f = float(value.strip().replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def parse_day(value: Any, _cache: dict[str, date | None] = {}) -> date | None:  # noqa: B006 - deliberate memo
    """The calendar date of ``2025-03-09`` or ``2025-03-09T10:00...``; None when it is not one."""
    if not isinstance(value, str):
        return None
    key = value[:10]
    if key not in _cache:
        try:
            _cache[key] = date.fromisoformat(key)
        except ValueError:
            _cache[key] = None
        if len(_cache) > 100_000:  # a hostile snapshot must not grow the memo without end
            _cache.clear()
    return _cache[key]


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


class _Index:
    """Accumulates named values, dropping the ones that could not be computed."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def put(self, name: str, value: float | None) -> None:
        if value is not None and math.isfinite(value):
            self.values[name] = value


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _span_days(first: date, last: date) -> int:
    return (last - first).days + 1


class _Period:
    """The period's dates, tolerant of missing or malformed fields."""

    def __init__(self, data: dict[str, Any], dates_with_rows: Iterable[date]) -> None:
        period = _dict(data.get("period"))
        seen = sorted(dates_with_rows)
        self.start = parse_day(period.get("start")) or (seen[0] if seen else None)
        self.end = parse_day(period.get("end")) or (seen[-1] if seen else None)
        self.as_of = parse_day(period.get("as_of"))
        last = parse_day(period.get("last_complete_date"))
        if last is None and self.as_of is not None:
            last = self.as_of - timedelta(days=1)
        if last is None and seen:
            last = seen[-1]
        self.last_complete = last
        days = number(period.get("days_in_month"))
        if days is None and self.start and self.end:
            days = _span_days(self.start, self.end)
        self.days = int(days) if days and days > 0 else None

    def windows(self, last_row_date: date | None) -> dict[str, tuple[date, date]]:
        out: dict[str, tuple[date, date]] = {}
        if self.start and self.end:
            out["period"] = (self.start, self.end)
            if self.last_complete and last_row_date and last_row_date > self.last_complete:
                out["to last complete day"] = (self.start, self.last_complete)
        lc = self.last_complete
        if lc:
            out["last 7 complete days"] = (lc - timedelta(days=6), lc)
            out["previous 7 complete days"] = (lc - timedelta(days=13), lc - timedelta(days=7))
            out["last 14 complete days"] = (lc - timedelta(days=13), lc)
        return out


class _RecentIndexes:
    """The last few indexes, by snapshot object: the rules backend and the scoring of the same
    case ask for the same snapshot's index one after the other, and it costs milliseconds.

    Entries hold the snapshot dict itself, so its id cannot be reused while cached; snapshots
    are never modified after loading (DESIGN.md section 3), so an entry never goes stale.
    """

    MAX_ENTRIES = 8
    MAX_VALUES = 1_000_000  # a few 100,000-row snapshots at most

    def __init__(self) -> None:
        self._entries: dict[int, tuple[dict[str, Any], dict[str, float]]] = {}
        self._lock = threading.Lock()

    def get(self, data: dict[str, Any]) -> dict[str, float] | None:
        with self._lock:
            entry = self._entries.get(id(data))
            return entry[1] if entry is not None and entry[0] is data else None

    def put(self, data: dict[str, Any], values: dict[str, float]) -> None:
        with self._lock:
            self._entries.pop(id(data), None)
            self._entries[id(data)] = (data, values)
            while len(self._entries) > self.MAX_ENTRIES or (
                len(self._entries) > 1 and sum(len(v) for _, v in self._entries.values()) > self.MAX_VALUES
            ):
                del self._entries[next(iter(self._entries))]  # the oldest


_recent = _RecentIndexes()


def derived_index(data: dict[str, Any]) -> dict[str, float]:
    """Every derived figure of one snapshot, by name. Never raises on bad data.

    The result is shared between callers for the same snapshot object: read it, do not modify it.
    """
    if not isinstance(data, dict):
        return {}
    cached = _recent.get(data)
    if cached is None:
        cached = compute_derived_index(data)
        _recent.put(data, cached)
    return cached


def compute_derived_index(data: dict[str, Any]) -> dict[str, float]:
    """``derived_index`` without the cache: always computed afresh."""
    if not isinstance(data, dict):
        return {}
    index = _Index()
    # (campaign id, date) -> metric sums; rows with no usable date are skipped.
    by_campaign_day: dict[str, dict[date, list[float]]] = {}
    row_count: dict[tuple[str, date], int] = {}
    for row in _list(data.get("daily")):
        if not isinstance(row, dict):
            continue
        day = parse_day(row.get("date"))
        if day is None:
            continue
        cid = str(row.get("campaign_id")) if row.get("campaign_id") is not None else "(no campaign)"
        sums = by_campaign_day.setdefault(cid, {}).setdefault(day, [0.0] * len(METRICS))
        for i, metric in enumerate(METRICS):
            v = row.get(metric)
            kind = type(v)
            if not ((kind is float and v - v == 0) or (kind is int and -1e300 < v < 1e300)):
                v = number(v)  # the slow way: strings, nulls, inf, bools
                if v is None:
                    continue
            sums[i] += v
        row_count[(cid, day)] = row_count.get((cid, day), 0) + 1

    account_day: dict[date, list[float]] = {}
    for days in by_campaign_day.values():
        for day, sums in days.items():
            acc = account_day.setdefault(day, [0.0] * len(METRICS))
            for i in range(len(METRICS)):
                acc[i] += sums[i]

    period = _Period(data, account_day)
    targets = _dict(data.get("targets"))
    target_cpa = number(targets.get("target_cpa"))
    target_roas = number(targets.get("target_roas"))
    last_row = max(account_day) if account_day else None
    windows = period.windows(last_row)

    account_totals: dict[str, list[float]] = {}
    for window, (first, last) in windows.items():
        account_totals[window] = _window_sums(account_day, first, last)
    for window, (first, last) in windows.items():
        total = account_totals[window]
        # Calendar days for daily averages: the window, cut at the last date with any rows.
        cut = min(last, last_row) if last_row else last
        calendar_days = _span_days(first, cut) if cut >= first else 0
        scopes = [("account", account_day, None)] + [(f"campaign {c}", d, total) for c, d in by_campaign_day.items()]
        for scope, days, account in scopes:
            sums = total if account is None else _window_sums(days, first, last)
            _scope_figures(index, f"{scope}: {{}}, {window}", sums, days, first, last, calendar_days,
                           target_cpa, target_roas, account)

    for day in sorted(account_day):
        _day_figures(index, f"account: {{}} on {day.isoformat()}", account_day[day])
    # A campaign's day is a row (its sums are snapshot values already); its rates are not.
    for cid, days in by_campaign_day.items():
        for day, sums in days.items():
            _rates(index, f"campaign {cid}: {{}} on {day.isoformat()}", sums)

    _count_figures(index, data, by_campaign_day, account_day, row_count, period)
    _pacing_figures(index, data, period, account_day, by_campaign_day, targets)
    _search_term_figures(index, data, account_totals.get("period"), by_campaign_day, period)
    return index.values


def _window_sums(days: dict[date, list[float]], first: date, last: date) -> list[float]:
    sums = [0.0] * len(METRICS)
    for day, row in days.items():
        if first <= day <= last:
            for i in range(len(METRICS)):
                sums[i] += row[i]
    return sums


def _rates(index: _Index, fmt: str, sums: list[float]) -> None:
    """CTR, CPC, CVR, CPA, ROAS and value per conversion of one set of sums."""
    index.put(fmt.format("CTR"), _ratio(sums[_CLICKS], sums[_IMPR]))
    index.put(fmt.format("CPC"), _ratio(sums[_COST], sums[_CLICKS]))
    index.put(fmt.format("CVR"), _ratio(sums[_CONV], sums[_CLICKS]))
    index.put(fmt.format("CPA"), _ratio(sums[_COST], sums[_CONV]))
    index.put(fmt.format("ROAS"), _ratio(sums[_VALUE], sums[_COST]))
    index.put(fmt.format("value per conversion"), _ratio(sums[_VALUE], sums[_CONV]))


def _day_figures(index: _Index, fmt: str, sums: list[float]) -> None:
    for i, metric in enumerate(METRICS):
        index.put(fmt.format(metric), sums[i])
    _rates(index, fmt, sums)


def _scope_figures(
    index: _Index, fmt: str, sums: list[float], days: dict[date, list[float]], first: date, last: date,
    calendar_days: int, target_cpa: float | None, target_roas: float | None, account: list[float] | None,
) -> None:
    """Sums, rates, daily averages, zero-conversion days, target ratios and shares of one scope and window."""
    _day_figures(index, fmt, sums)
    # Daily averages: over the window's calendar days, and over the days this scope has rows.
    active = [d for d in days if first <= d <= last]
    if active:
        for i, metric in enumerate(METRICS):
            index.put(fmt.format(f"{metric} per day"), _ratio(sums[i], calendar_days))
            if len(active) != calendar_days:
                index.put(fmt.format(f"{metric} per day with data"), _ratio(sums[i], len(active)))
        index.put(fmt.format("days with data"), float(len(active)))
        zero_days = sum(1 for d in active if days[d][_CONV] == 0)
        index.put(fmt.format("zero-conversion days"), float(zero_days))
    cpa = _ratio(sums[_COST], sums[_CONV])
    roas = _ratio(sums[_VALUE], sums[_COST])
    if target_cpa:
        index.put(fmt.format("CPA over target"), _ratio(cpa, target_cpa))
        index.put(fmt.format("CPA minus target"), None if cpa is None else cpa - target_cpa)
    if target_roas:
        index.put(fmt.format("ROAS over target"), _ratio(roas, target_roas))
        index.put(fmt.format("ROAS minus target"), None if roas is None else roas - target_roas)
    if account is not None:
        index.put(fmt.format("share of account cost"), _ratio(sums[_COST], account[_COST]))
        index.put(fmt.format("share of account conversions"), _ratio(sums[_CONV], account[_CONV]))
        index.put(fmt.format("share of account conversion value"), _ratio(sums[_VALUE], account[_VALUE]))


def _count_figures(
    index: _Index, data: dict[str, Any], by_campaign_day: dict[str, dict[date, list[float]]],
    account_day: dict[date, list[float]], row_count: dict[tuple[str, date], int], period: _Period,
) -> None:
    campaigns = [c for c in _list(data.get("campaigns")) if isinstance(c, dict)]
    index.put("count: campaigns", float(len(campaigns) or len(by_campaign_day)))
    index.put("count: enabled campaigns", float(sum(1 for c in campaigns if str(c.get("status", "")).upper() == "ENABLED")))
    index.put("count: campaigns with cost in the data",
              float(sum(1 for days in by_campaign_day.values() if any(s[_COST] > 0 for s in days.values()))))
    duplicated = [n for n in row_count.values() if n > 1]
    index.put("count: (date, campaign) pairs with more than one row", float(len(duplicated)))
    index.put("count: extra duplicate rows", float(sum(n - 1 for n in duplicated)))
    if period.start and period.last_complete and period.last_complete >= period.start:
        span = _span_days(period.start, period.last_complete)
        index.put("count: days to last complete day", float(span))
        present = sum(1 for d in account_day if period.start <= d <= period.last_complete)
        index.put("count: days with no rows up to last complete day", float(span - present))
    # Trailing runs of zero-conversion days: "no conversions for the last 9 days".
    for scope, days in [("account", account_day), *((f"campaign {c}", d) for c, d in by_campaign_day.items())]:
        run = 0
        for day in sorted(days, reverse=True):
            if days[day][_CONV] != 0:
                break
            run += 1
        index.put(f"{scope}: zero-conversion days at the end of the data", float(run))
    ads = [a for a in _list(data.get("ads")) if isinstance(a, dict)]
    disapproved: dict[str, int] = {}
    for ad in ads:
        if str(ad.get("approval_status", "")).upper() == "DISAPPROVED":
            cid = str(ad.get("campaign_id"))
            disapproved[cid] = disapproved.get(cid, 0) + 1
    if ads:
        index.put("count: disapproved ads", float(sum(disapproved.values())))
        for cid, n in disapproved.items():
            index.put(f"campaign {cid}: disapproved ads", float(n))


def _budget_schedule(data: dict[str, Any], period: _Period) -> tuple[dict[date, float], dict[str, dict[date, float]]]:
    """Planned spend per day of the period (account) and per campaign, from budgets and flight plans.

    A daily budget counts at the amount in force that day (its history applied
    from the change date on); a MONTHLY budget counts amount / days in month.
    A campaign with a flight plan counts its planned spend spread evenly over
    the flight's days instead of its budget.
    """
    account: dict[date, float] = {}
    per_campaign: dict[str, dict[date, float]] = {}
    if not (period.start and period.end) or period.end < period.start:
        return account, per_campaign
    days = [period.start + timedelta(days=i) for i in range(_span_days(period.start, period.end))]
    flights = [f for f in _list(data.get("flight_plan")) if isinstance(f, dict)]
    flighted = {str(f.get("campaign_id")) for f in flights}

    def add(cid: str, day: date, amount: float) -> None:
        account[day] = account.get(day, 0.0) + amount
        camp = per_campaign.setdefault(cid, {})
        camp[day] = camp.get(day, 0.0) + amount

    for budget in _list(data.get("budgets")):
        if not isinstance(budget, dict):
            continue
        cids = [str(c) for c in _list(budget.get("campaign_ids"))] or [f"budget {budget.get('budget_id')}"]
        if all(c in flighted for c in cids):
            continue
        kind = str(budget.get("period") or "DAILY").upper()
        steps = budget_steps(budget)
        for day in days:
            amount = amount_on(steps, day)
            if amount is None:
                continue
            if kind == "MONTHLY":
                amount /= period.days or len(days)
            elif kind != "DAILY":
                continue
            # A shared budget is split evenly over its (unflighted) campaigns for the per-campaign view.
            share = [c for c in cids if c not in flighted]
            for cid in share:
                add(cid, day, amount / len(share))
    for flight in flights:
        first, last = parse_day(flight.get("start")), parse_day(flight.get("end"))
        planned = number(flight.get("planned_spend"))
        if not first or not last or planned is None or last < first:
            continue
        per_day = planned / _span_days(first, last)
        for day in days:
            if first <= day <= last:
                add(str(flight.get("campaign_id")), day, per_day)
    return account, per_campaign


def budget_steps(budget: dict[str, Any]) -> list[tuple[date | None, float | None]]:
    """The budget's amounts over time: ``[(None, first amount), (change date, new amount), ...]``.

    Before the first recorded change the budget stood at that change's
    old_amount; each change applies from its date on.
    """
    changes = []
    for change in _list(budget.get("history")):
        if isinstance(change, dict):
            changed_on = parse_day(change.get("changed_at"))
            if changed_on is not None:
                changes.append((changed_on, change))
    changes.sort(key=lambda c: c[0])
    amount = number(budget.get("amount"))
    if not changes:
        return [(None, amount)]
    first_old = number(changes[0][1].get("old_amount"))
    steps: list[tuple[date | None, float | None]] = [(None, first_old if first_old is not None else amount)]
    for changed_on, change in changes:
        new = number(change.get("new_amount"))
        steps.append((changed_on, new if new is not None else steps[-1][1]))
    return steps


def amount_on(steps: list[tuple[date | None, float | None]], day: date) -> float | None:
    """The amount in force on ``day`` from ``budget_steps``."""
    current = steps[0][1]
    for changed_on, amount in steps[1:]:
        if changed_on is not None and changed_on <= day:
            current = amount
    return current


def budget_in_force(budget: dict[str, Any], day: date) -> float | None:
    """The budget's amount on ``day``: history changes apply from their date on."""
    return amount_on(budget_steps(budget), day)


def _pacing_figures(
    index: _Index, data: dict[str, Any], period: _Period, account_day: dict[date, list[float]],
    by_campaign_day: dict[str, dict[date, list[float]]], targets: dict[str, Any],
) -> None:
    if not (period.start and period.last_complete and period.days):
        return
    start, lc, month_days = period.start, period.last_complete, period.days
    elapsed = max(0, min(month_days, _span_days(start, lc)))
    remaining = month_days - elapsed
    index.put("pacing: days in month", float(month_days))
    index.put("pacing: days elapsed", float(elapsed))
    index.put("pacing: days remaining", float(remaining))
    if period.as_of:
        to_as_of = max(0, min(month_days, _span_days(start, period.as_of)))
        index.put("pacing: days elapsed including as_of", float(to_as_of))
        index.put("pacing: days remaining after as_of", float(month_days - to_as_of))
    index.put("pacing: share of month elapsed", elapsed / month_days)
    spend = sum(s[_COST] for d, s in account_day.items() if start <= d <= lc)
    index.put("pacing: spend to date", spend)
    last7 = sum(s[_COST] for d, s in account_day.items() if lc - timedelta(days=6) <= d <= lc)

    schedule, per_campaign = _budget_schedule(data, period)
    schedule_to_date = sum(v for d, v in schedule.items() if d <= lc)
    schedule_total = sum(schedule.values())
    budget = number(targets.get("monthly_budget"))
    if budget is None and schedule_total:
        budget = schedule_total
        index.put("pacing: monthly budget from the budget schedule", budget)

    projections: dict[str, float | None] = {
        "straight line": _ratio(spend * month_days, elapsed),
        "last 7 days' rate": spend + last7 / 7 * remaining,
    }
    expectations: dict[str, float | None] = {}
    if budget is not None:
        expectations["straight line"] = budget * elapsed / month_days
        index.put("pacing: remaining budget", budget - spend)
        index.put("pacing: remaining budget per remaining day", _ratio(budget - spend, remaining))
        index.put("pacing: budget per day, straight line", budget / month_days)
        index.put("pacing: spend to date over monthly budget", _ratio(spend, budget))
    if schedule:
        expectations["budget schedule"] = schedule_to_date
        index.put("pacing: budget schedule, whole month", schedule_total)
        projections["budget schedule"] = spend + (schedule_total - schedule_to_date)
        if budget is not None and schedule_total:
            expectations["monthly budget spread on the budget schedule"] = budget * schedule_to_date / schedule_total
    for name, expected in expectations.items():
        index.put(f"pacing: expected spend to date, {name}", expected)
        index.put(f"pacing: spend to date over expected, {name}", _ratio(spend, expected))
        if expected is not None:
            index.put(f"pacing: spend to date minus expected, {name}", spend - expected)
            index.put(f"pacing: spend gap over expected, {name}", _ratio(spend - expected, expected))
    for name, projected in projections.items():
        index.put(f"pacing: projected month-end spend, {name}", projected)
        if budget is not None and projected is not None:
            index.put(f"pacing: projected gap to budget, {name}", projected - budget)
            index.put(f"pacing: projected gap to budget as share, {name}", _ratio(projected - budget, budget))
            index.put(f"pacing: projected spend over budget, {name}", _ratio(projected, budget))

    # Per campaign against its own schedule, and each day's cost against the daily budget in force.
    for cid, planned in per_campaign.items():
        days = by_campaign_day.get(cid, {})
        spent = sum(s[_COST] for d, s in days.items() if start <= d <= lc)
        expected = sum(v for d, v in planned.items() if d <= lc)
        index.put(f"campaign {cid}: expected spend to date on its schedule", expected)
        index.put(f"campaign {cid}: planned spend, whole month", sum(planned.values()))
        index.put(f"campaign {cid}: spend to date over its schedule", _ratio(spent, expected))
        index.put(f"campaign {cid}: spend to date minus its schedule", spent - expected)
    cap = DAILY_CAP_MULTIPLE.get(str(data.get("platform", "")).lower(), 2.0)
    if _list(data.get("budgets")):
        index.put("platform: most a day may spend, as a multiple of the daily budget", cap)
    for budget_row in _list(data.get("budgets")):
        if not isinstance(budget_row, dict) or str(budget_row.get("period") or "DAILY").upper() != "DAILY":
            continue
        bid = budget_row.get("budget_id")
        cids = [str(c) for c in _list(budget_row.get("campaign_ids"))]
        steps = budget_steps(budget_row)
        for amount in {a for _, a in steps if a is not None}:
            index.put(f"budget {bid}: platform daily maximum ({cap:g}x) of {amount:g}", amount * cap)
        for day in account_day:
            amount = amount_on(steps, day)
            cost = sum(by_campaign_day.get(c, {}).get(day, [0.0] * len(METRICS))[_COST] for c in cids)
            if amount and cost:
                index.put(f"budget {bid}: cost over daily budget on {day.isoformat()}", cost / amount)


def _search_term_figures(
    index: _Index, data: dict[str, Any], account_period: list[float] | None,
    by_campaign_day: dict[str, dict[date, list[float]]], period: _Period,
) -> None:
    terms = [t for t in _list(data.get("search_terms")) if isinstance(t, dict)]
    if not terms:
        return
    groups: dict[str, list[dict[str, Any]]] = {"account": terms}
    for term in terms:
        groups.setdefault(f"campaign {term.get('campaign_id')}", []).append(term)
    for scope, rows in groups.items():
        zero = [t for t in rows if number(t.get("conversions")) == 0]
        fmt = f"{scope}: search terms, {{}}"
        index.put(fmt.format("count"), float(len(rows)))
        index.put(fmt.format("zero-conversion count"), float(len(zero)))
        term_cost = _total(rows, "cost")
        zero_cost = _total(zero, "cost")
        index.put(fmt.format("cost"), term_cost)
        index.put(fmt.format("zero-conversion cost"), zero_cost)
        index.put(fmt.format("zero-conversion clicks"), _total(zero, "clicks"))
        index.put(fmt.format("zero-conversion impressions"), _total(zero, "impressions"))
        index.put(fmt.format("zero-conversion share of search term cost"), _ratio(zero_cost, term_cost))
        if scope == "account":
            scope_cost = account_period[_COST] if account_period else None
        else:
            days = by_campaign_day.get(scope.removeprefix("campaign "), {})
            scope_cost = sum(s[_COST] for d, s in days.items() if period.start and period.end and period.start <= d <= period.end)
        index.put(fmt.format("zero-conversion share of cost, period"), _ratio(zero_cost, scope_cost))


def _total(rows: list[dict[str, Any]], key: str) -> float:
    return float(sum(number(r.get(key)) or 0.0 for r in rows))
