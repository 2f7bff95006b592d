"""Conversion lag: how much of a day's conversions is already recorded by as_of.

Conversions are credited to the click date, so the last days before as_of
fill in later, more slowly with a long click-through lookback window. The
model: a day clicked ``k`` days before as_of has ``1 - exp(-k / tau)`` of its
eventual conversions recorded, where ``tau`` grows with the lookback window
(``lag_tau_days`` for a 30-day window, in proportion for others). The
parameters are thresholds of ``tracking.conversions_stopped`` in
taxonomy.yaml.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from .series import Series, number

REFERENCE_LOOKBACK_DAYS = 30.0


@dataclass(frozen=True)
class LagModel:
    as_of: date | None
    tau: float  # days
    complete_share: float  # a day counts as filled in once this share is recorded

    @classmethod
    def for_series(cls, series: Series, tau_30d: float, complete_share: float) -> "LagModel":
        lookbacks = []
        for action in series.section("conversion_actions"):
            primary = action.get("primary_for_goal")
            window = number(action.get("click_through_lookback_window_days"))
            if window and primary is not False:
                lookbacks.append(window)
        lookback = max(lookbacks) if lookbacks else REFERENCE_LOOKBACK_DAYS
        return cls(series.as_of, tau_30d * lookback / REFERENCE_LOOKBACK_DAYS, complete_share)

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


def poisson_zero(expected: float) -> float:
    """Chance of seeing no event when ``expected`` are due."""
    return math.exp(-expected)
