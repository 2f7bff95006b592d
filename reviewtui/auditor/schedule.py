"""Budgets as the snapshot states them: amounts in force by day, changes, serving windows.

The amount in force on a day is read with the scoring's own rule
(``derived.budget_in_force``: a history change applies from its date on, read
through ``budget_steps`` and ``amount_on`` as that function does), so
the auditor's figures and the derived index agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from ..caseset.snapshot import as_array
from ..scoring.budget_schedule import amount_on, budget_steps
from .series import Series, parse_day


@dataclass
class Budget:
    budget_id: str
    index: int  # position in ``budgets``
    campaign_ids: list[str]
    period: str
    raw: dict[str, Any]
    changes: list[date] = field(default_factory=list)  # days on which the amount changed

    @property
    def pointer(self) -> str:
        return f"/budgets/{self.index}"

    @cached_property
    def steps(self) -> list[tuple[date | None, float | None]]:
        # Read once: the daily-cap check asks for every day of every budget
        return budget_steps(self.raw)

    def on(self, day: date) -> float | None:
        """``derived.budget_in_force``: the amount in force on ``day``."""
        return amount_on(self.steps, day)

    def highest_on(self, day: date) -> float | None:
        """On the day of a change either amount may have been in force; the higher one is the fair cap."""
        amounts = [self.on(day)]
        if day in self.changes:
            amounts.append(self.on(date.fromordinal(day.toordinal() - 1)))
        known = [a for a in amounts if a is not None]
        return max(known) if known else None


def read_budgets(series: Series) -> list[Budget]:
    budgets = []
    for index, raw in series.indexed("budgets"):
        ids = raw.get("campaign_ids")
        campaign_ids = [str(c) for c in ids] if isinstance(ids, list) else []
        if not campaign_ids:
            campaign_ids = [cid for cid, c in series.campaigns.items() if str(c.raw.get("budget_id")) == str(raw.get("budget_id"))]
        history = as_array(raw.get("history"))
        changes = sorted({d for d in (parse_day(h.get("changed_at")) for h in history if isinstance(h, dict)) if d})
        budgets.append(Budget(str(raw.get("budget_id", index)), index, campaign_ids, str(raw.get("period") or "DAILY").upper(), raw, changes))
    return budgets


def serving_window(series: Series, campaign_id: str) -> tuple[date | None, date | None]:
    """First and last day a campaign may serve: its start/end dates, narrowed by its flight."""
    camp = series.campaigns.get(campaign_id)
    raw: dict[str, Any] = camp.raw if camp else {}
    firsts = [parse_day(raw.get("start_date"))]
    lasts = [parse_day(raw.get("end_date"))]
    for flight in series.section("flight_plan"):
        if str(flight.get("campaign_id")) == campaign_id:
            firsts.append(parse_day(flight.get("start")))
            lasts.append(parse_day(flight.get("end")))
    first = max((d for d in firsts if d), default=None)
    last = min((d for d in lasts if d), default=None)
    return first, last


def changed_days(series: Series) -> list[date]:
    """Days on which a budget changed inside the period."""
    days = {d for b in read_budgets(series) for d in b.changes}
    if series.period_start and series.period_end:
        days = {d for d in days if series.period_start <= d <= series.period_end}
    return sorted(days)
