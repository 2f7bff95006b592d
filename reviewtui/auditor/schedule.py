"""Budgets as the snapshot states them: amounts in force by day, changes, serving windows.

Every rule here is the domain's (``reviewtui.domain.budgets``: the amount in force, the budget a
day's cap is read against, the campaigns a budget pays for, the serving window), read once per
budget, so the auditor's figures and the derived index agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from ..caseset.snapshot import as_array
from ..domain.budgets import amount_on, amounts_on, budget_campaigns, budget_steps, cap_budget_on, serving_windows
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
        """The daily budget in force on ``day``."""
        return amount_on(self.steps, day)

    def cap_budget(self, day: date) -> float | None:
        """The daily budget ``day``'s cap is read against (the higher amount on the day of a change)."""
        return cap_budget_on(self.steps, day)

    def cap_budgets(self, days: list[date]) -> list[float | None]:
        """``cap_budget`` of each of ``days`` (sorted), in one sweep through the budget's changes."""
        steps = self.steps
        changed = {changed_on for changed_on, _ in steps[1:]}
        # off a change day, the cap is read against the amount in force (``cap_budget_on``)
        return [cap_budget_on(steps, day) if day in changed else amount
                for day, amount in zip(days, amounts_on(steps, days))]


def read_budgets(series: Series) -> list[Budget]:
    """The snapshot's budgets, read once per series (pacing and the budget checks each ask): read
    them, do not modify them."""
    budgets = series.memo.get("budgets")
    if budgets is None:
        budgets = series.memo["budgets"] = _read_budgets(series)
    return budgets


def _read_budgets(series: Series) -> list[Budget]:
    budgets = []
    campaigns = as_array(series.data.get("campaigns"))
    for index, raw in series.indexed("budgets"):
        history = as_array(raw.get("history"))
        changes = sorted({d for d in (parse_day(h.get("changed_at")) for h in history if isinstance(h, dict)) if d})
        budgets.append(Budget(str(raw.get("budget_id", index)), index, budget_campaigns(raw, campaigns),
                              str(raw.get("period") or "DAILY").upper(), raw, changes))
    return budgets


def serving_window(series: Series, campaign_id: str) -> tuple[date | None, date | None]:
    """First and last day a campaign may serve: its start/end dates, narrowed by its flight."""
    return serving_windows(series.data).get(campaign_id, (None, None))


def changed_days(series: Series) -> list[date]:
    """Days on which a budget changed inside the period."""
    days = {d for b in read_budgets(series) for d in b.changes}
    if series.period_start and series.period_end:
        days = {d for d in days if series.period_start <= d <= series.period_end}
    return sorted(days)
