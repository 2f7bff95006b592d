"""Pacing against the budget schedule: the scheduled spend over a range, the monthly budget spread
on the schedule, and the month-end projection. The derived index computes its pacing figures with
these (the reference auditor reads them there), and the glossary's "scheduled spend", "expected
spend to date" and "month-end projection" are these functions.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from ..caseset.snapshot_reader import number

Schedule = dict[date, float]  # planned spend per day of the period (budgets.budget_schedule)


def scheduled_spend(schedule: Schedule, first: date | None = None, last: date | None = None) -> float:
    """The schedule's planned spend from ``first`` to ``last`` (both included; None: open-ended)."""
    return sum(v for d, v in schedule.items() if (first is None or d >= first) and (last is None or d <= last))


def spread_on_schedule(budget: float, schedule: Schedule, last: date, first: date | None = None) -> float | None:
    """The monthly budget spread over the period in proportion to the schedule, up to ``last``:
    ``budget x scheduled(first..last) / scheduled(whole period)``; None when nothing is scheduled."""
    whole = scheduled_spend(schedule)
    if not whole:
        return None
    return budget * scheduled_spend(schedule, first, last) / whole


def monthly_budget(targets: dict[str, Any], schedule: Schedule) -> float | None:
    """targets.monthly_budget; without it, the schedule's planned spend over the whole period (None when nothing is scheduled)."""
    budget = number(targets.get("monthly_budget"))
    if budget is not None:
        return budget
    return scheduled_spend(schedule) or None


def last_seven_days(last_complete: date) -> tuple[date, date]:
    """The 7 calendar days ending on the last complete day."""
    return last_complete - timedelta(days=6), last_complete


def month_end_projection(spend_to_date: float, last7_spend: float, schedule: Schedule,
                         last_complete: date) -> float | None:
    """Spend to date plus the rest of the schedule (after the last complete day) at the share of its
    schedule the account spent over the last 7 complete days; None when those days had no schedule."""
    first7, last7 = last_seven_days(last_complete)
    planned7 = scheduled_spend(schedule, first7, last7)
    if not planned7:
        return None
    rate = last7_spend / planned7
    to_date = scheduled_spend(schedule, last=last_complete)
    return spend_to_date + rate * (scheduled_spend(schedule) - to_date)


def run_rate_projection(spend_to_date: float, last7_spend: float, remaining_days: int) -> float:
    """Without a schedule: spend to date plus the last 7 complete days' daily average for each remaining day."""
    return spend_to_date + last7_spend / 7 * remaining_days
