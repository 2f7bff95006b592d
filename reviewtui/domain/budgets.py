"""Budgets over time: each budget's amount on a day, the days a campaign may serve, the planned
spend per day of the period (the budget schedule) and the platform's daily cap.

The glossary's terms "daily budget in force", "serving window", "budget schedule", "allowed
multiple" and "daily cap" are these functions; the reference auditor, the derived index and the
declared figures all call them.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Callable, Protocol

from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot_cache import cache_of
from ..caseset.snapshot_reader import number, parse_day
from .thresholds import DAILY_CAP, KindThresholds, Thresholds, cap_multiple

META_PLATFORMS = ("meta", "facebook", "instagram")


class PeriodLike(Protocol):
    """What the schedule reads of a period: its first and last day and its days in the month."""

    start: date | None
    end: date | None
    days: int | None


def span_days(first: date, last: date) -> int:
    """Calendar days from ``first`` to ``last``, both included."""
    return (last - first).days + 1


def is_meta(platform: str) -> bool:
    return any(word in platform.lower() for word in META_PLATFORMS)


def daily_cap_multiple(platform: str, day: date | None, thresholds: KindThresholds | None = None) -> float:
    """The most a platform lets one day spend, as a multiple of the daily budget, on ``day``
    (taxonomy.yaml, pacing.daily_cap_exceeded: Meta's allowance changed on a date)."""
    t = thresholds if thresholds is not None else Thresholds().of(DAILY_CAP)
    return cap_multiple(t, is_meta(platform), day or date.today())


def serving_windows(data: dict[str, Any]) -> dict[str, tuple[date | None, date | None]]:
    """First and last day each campaign may serve: its start/end dates, narrowed by its flight plan."""
    windows: dict[str, tuple[date | None, date | None]] = {}
    for camp in _list(data.get("campaigns")):
        if isinstance(camp, dict) and camp.get("id") is not None:
            windows[str(camp["id"])] = (parse_day(camp.get("start_date")), parse_day(camp.get("end_date")))
    for flight in _list(data.get("flight_plan")):
        if isinstance(flight, dict) and flight.get("campaign_id") is not None:
            cid = str(flight["campaign_id"])
            first, last = windows.get(cid, (None, None))
            f_first, f_last = parse_day(flight.get("start")), parse_day(flight.get("end"))
            windows[cid] = (max((d for d in (first, f_first) if d), default=None),
                            min((d for d in (last, f_last) if d), default=None))
    return windows


def budget_campaigns(budget: dict[str, Any], campaigns: list[Any]) -> list[str]:
    """The campaigns a budget pays for: its campaign_ids, else the campaigns naming its budget_id."""
    ids = [str(c) for c in _list(budget.get("campaign_ids"))]
    if ids:
        return ids
    bid = budget.get("budget_id")
    return [str(c.get("id")) for c in campaigns
            if isinstance(c, dict) and bid is not None and str(c.get("budget_id")) == str(bid)]


def budget_schedule(
    data: dict[str, Any], period: PeriodLike, *, flights_at_plan: bool = False,
) -> tuple[dict[date, float], dict[str, dict[date, float]]]:
    """Planned spend per day of the period (account) and per campaign: the budget schedule in force.

    A daily budget counts at the amount in force that day (its history applied
    from the change date on), on the days one of its campaigns serves (start
    and end dates, flight plans); a MONTHLY budget counts amount / days in
    month. A flighted campaign with no budget counts its planned spend spread
    evenly over the flight; with ``flights_at_plan`` every flighted campaign
    does, instead of its budget.
    """
    account: dict[date, float] = {}
    per_campaign: dict[str, dict[date, float]] = {}
    if not (period.start and period.end) or period.end < period.start:
        return account, per_campaign
    days = [period.start + timedelta(days=i) for i in range(span_days(period.start, period.end))]
    windows = serving_windows(data)
    campaigns = _list(data.get("campaigns"))
    flights = {}
    for flight in _list(data.get("flight_plan")):
        if isinstance(flight, dict):
            first, last = parse_day(flight.get("start")), parse_day(flight.get("end"))
            planned = number(flight.get("planned_spend"))
            if first and last and planned is not None and first <= last:
                flights[str(flight.get("campaign_id"))] = (first, last, planned / span_days(first, last))

    def add(cid: str | None, day: date, amount: float) -> None:
        account[day] = account.get(day, 0.0) + amount
        if cid is not None:
            camp = per_campaign.setdefault(cid, {})
            camp[day] = camp.get(day, 0.0) + amount

    with_budget: set[str] = set()
    for budget in _list(data.get("budgets")):
        if not isinstance(budget, dict):
            continue
        kind = str(budget.get("period") or "DAILY").upper()
        if kind not in ("DAILY", "MONTHLY"):
            continue
        cids = budget_campaigns(budget, campaigns)
        with_budget.update(cids)
        # Each campaign's serving window, read once per budget: an account has thousands of budgets
        spans = [(cid, *windows.get(cid, (None, None))) for cid in cids if not (flights_at_plan and cid in flights)]
        # campaigns that may serve on every day of the period (most): they need no reading day by day
        always = [cid for cid, first, last in spans if (first is None or first <= days[0]) and (last is None or days[-1] <= last)]
        if len(always) < len(spans):
            always = []
        # ``add`` spelled out below: this runs for every day of every budget
        for day, amount in zip(days, amounts_on(budget_steps(budget), days)):
            if amount is None:
                continue
            if kind == "MONTHLY":
                amount /= period.days or len(days)
            if not cids:  # a budget tied to no campaign we know: it may serve every day
                account[day] = account.get(day, 0.0) + amount
                continue
            serving = always or [cid for cid, first, last in spans
                                 if (first is None or first <= day) and (last is None or day <= last)]
            for cid in serving:  # a shared budget is split evenly for the per-campaign view
                share = amount / len(serving)
                account[day] = account.get(day, 0.0) + share
                if (camp := per_campaign.get(cid)) is None:
                    camp = per_campaign[cid] = {}
                camp[day] = camp.get(day, 0.0) + share
    for cid, (first, last, per_day) in flights.items():
        if flights_at_plan or cid not in with_budget:
            for day in days:
                if first <= day <= last:
                    add(cid, day, per_day)
    return account, per_campaign


def schedule_of(data: dict[str, Any], period: PeriodLike) -> tuple[dict[date, float], dict[str, dict[date, float]]]:
    """``budget_schedule(data, period)``, kept on the snapshot (the declared figures and the prose
    rules read it for many ranges)."""
    return cache_of(data).get(("budget schedule", period.start, period.end, period.days),
                              lambda: budget_schedule(data, period))


def budgets_paying_for(data: dict[str, Any], campaigns: list[str]) -> list[tuple[int, dict[str, Any]]]:
    """The budgets (place in ``budgets``, budget) that pay for any of ``campaigns``."""
    campaign_list = _list(data.get("campaigns"))
    return [(i, b) for i, b in enumerate(_list(data.get("budgets")))
            if isinstance(b, dict) and set(budget_campaigns(b, campaign_list)) & set(campaigns)]


def daily_amount(budgets: list[dict[str, Any]], day: date, days_in_month: int | None, *, cap_day: bool = False) -> float:
    """The budgets' daily amounts in force on ``day``, added up: the glossary's "daily budget in
    force" of a campaign or of the account. A monthly budget counts its share of one day, as
    ``budget_schedule`` counts it; with ``cap_day``, a daily budget changed that day counts the
    higher of its old and new amount (``cap_budget_on``, the amount a day's cap is read against)."""
    return daily_amounts(budgets, days_in_month, cap_day=cap_day)(day)


def daily_amounts(budgets: list[dict[str, Any]], days_in_month: int | None, *,
                  cap_day: bool = False) -> Callable[[date], float]:
    """``daily_amount`` of ``budgets`` for any day, each budget's history read once (an account of
    thousands of budgets is asked for every day of many ranges)."""
    read = [(budget_steps(b), str(b.get("period") or "DAILY").upper() == "MONTHLY") for b in budgets]

    def on(day: date) -> float:
        total = 0.0
        for steps, monthly in read:
            amount = cap_budget_on(steps, day) if cap_day and not monthly else amount_on(steps, day)
            if amount is None:
                continue
            total += amount / (days_in_month or 30) if monthly else amount
        return total

    return on


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


def amounts_on(steps: list[tuple[date | None, float | None]], days: list[date]) -> list[float | None]:
    """``amount_on(steps, day)`` of each of ``days`` (in date order), in one sweep through the steps."""
    amounts: list[float | None] = []
    current, following = steps[0][1], 1
    for day in days:
        # the last change on or before the day (steps are in date order, and only the first has no date)
        while following < len(steps) and (changed_on := steps[following][0]) is not None and changed_on <= day:
            current, following = steps[following][1], following + 1
        amounts.append(current)
    return amounts


def budget_in_force(budget: dict[str, Any], day: date) -> float | None:
    """The budget's amount on ``day``: history changes apply from their date on."""
    return amount_on(budget_steps(budget), day)


def cap_budget_on(steps: list[tuple[date | None, float | None]], day: date) -> float | None:
    """The daily budget a day's cap is read against: the amount in force that day, and on the day
    of a change the higher of the old and the new amount (either may have been in force)."""
    amounts = [amount_on(steps, day)]
    if any(changed_on == day for changed_on, _ in steps[1:]):
        amounts.append(amount_on(steps, day - timedelta(days=1)))
    known = [a for a in amounts if a is not None]
    return max(known) if known else None


def exceeds_daily_cap(cost: float, budget: float, multiple: float, margin: float) -> bool:
    """A day's cost above the allowed multiple of its daily budget, beyond the rounding margin:
    ``cost > budget x multiple x (1 + margin)``."""
    return cost > budget * multiple * (1 + margin)
