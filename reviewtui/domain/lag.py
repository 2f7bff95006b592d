"""Conversion lag: how much of a day's conversions is already recorded by as_of.

Conversions are credited to the click date, so the last days before as_of
fill in later, more slowly with a long click-through lookback window. The
model: a day clicked ``k`` days before as_of has ``1 - exp(-k / tau)`` of its
eventual conversions recorded, where ``tau`` grows with the lookback window
(``lag_tau_days`` for a 30-day window, in proportion for others). The
parameters are thresholds of ``tracking.conversions_stopped`` in
taxonomy.yaml. The glossary's "lookback window", "recorded share", "settled
day", "lag-adjusted" and "expected conversions" are these functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Any, Iterable

from ..caseset.snapshot_reader import number

REFERENCE_LOOKBACK_DAYS = 30.0


def lookback_days(conversion_actions: Iterable[Any]) -> float:
    """The longest click-through lookback window of the primary conversion actions (an action is
    primary unless ``primary_for_goal`` is false); 30 days when none gives one."""
    lookbacks = []
    for action in conversion_actions:
        if not isinstance(action, dict):
            continue
        window = number(action.get("click_through_lookback_window_days"))
        if window and action.get("primary_for_goal") is not False:
            lookbacks.append(window)
    return max(lookbacks) if lookbacks else REFERENCE_LOOKBACK_DAYS


@dataclass(frozen=True)
class LagModel:
    as_of: date | None
    tau: float  # days
    complete_share: float  # a day counts as filled in once this share is recorded

    @classmethod
    def for_actions(cls, as_of: date | None, conversion_actions: Iterable[Any], tau_30d: float,
                    complete_share: float) -> "LagModel":
        """The model of a snapshot: its as_of and the lookback window of its conversion actions."""
        return cls(as_of, tau_30d * lookback_days(conversion_actions) / REFERENCE_LOOKBACK_DAYS, complete_share)

    def credited(self, day: date) -> float:
        """Share of ``day``'s eventual conversions recorded by as_of (1.0 when as_of is unknown)."""
        if self.as_of is None:
            return 1.0
        age = (self.as_of - day).days
        if age <= 0:
            return 0.0
        return 1.0 - math.exp(-age / self.tau) if self.tau > 0 else 1.0

    def settled(self, day: date) -> bool:
        return self.credited(day) >= self.complete_share

    def adjusted(self, values: Iterable[tuple[date, float]]) -> float:
        """A lag-adjusted sum: each day's value times the share of that day's conversions recorded."""
        return sum(value * self.credited(day) for day, value in values)

    def expected(self, clicks: Iterable[tuple[date, float]], rate: float) -> float:
        """Expected conversions: each day's clicks times the conversion rate times its recorded share."""
        return sum(c * rate * self.credited(day) for day, c in clicks)


def settled_after_days(lookback_days: float, tau_30d: float, complete_share: float) -> int:
    """Whole days after which a day's conversions count as settled: the last settled day is as_of
    minus this many days (the lag model above, at ``complete_share``)."""
    tau = tau_30d * lookback_days / REFERENCE_LOOKBACK_DAYS
    return max(1, math.ceil(tau * math.log(1 / (1 - complete_share)) - 1e-9))
