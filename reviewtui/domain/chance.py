"""The chance tests the thresholds use: an exact Poisson tail, a Poisson z, the trend score test
and the two-rate likelihood ratio of a change point.

Conversions may be fractional (data-driven attribution). The tail counts whole events: the
chance of at most ``floor(observed)`` events, with ``expected`` continuous; the z, the trend
score and the likelihood ratio take the fractions as they are. The glossary's "chance", "chance
of none", "z", "trend score" and "change point" are these functions.
"""

from __future__ import annotations

import math
from typing import Sequence


def poisson_at_most(observed: float, expected: float) -> float:
    """Chance of ``observed`` or fewer events when ``expected`` are due (exact Poisson, in log space;
    ``observed`` rounded down to a whole number of events)."""
    if expected <= 0:
        return 1.0
    n = int(math.floor(observed + 1e-9))
    term = -expected  # log P(X = 0)
    total = math.exp(term)
    for k in range(1, n + 1):
        term += math.log(expected) - math.log(k)
        total += math.exp(term)
        if total >= 1.0:
            return 1.0
    return total


def poisson_zero(expected: float) -> float:
    """Chance of seeing no event when ``expected`` are due: ``exp(-expected)``."""
    return math.exp(-expected)


def poisson_z(observed: float, expected: float) -> float:
    """Poisson standard deviations between observed and expected events: ``(observed - expected) / sqrt(expected)``."""
    if expected <= 0:
        return 0.0
    return (observed - expected) / math.sqrt(expected)


def trend_z(days: Sequence[tuple[float, float]]) -> float:
    """Score test for a trend in conversions per unit of cost across ``days``, a list of
    (cost, conversions) per day in date order (Poisson, log-linear in the day's position).

    Negative when conversions per cost fall through the days, i.e. CPA rises.
    Every day counts, weighted by its cost, so a steady drift shows even when
    two short windows at the ends are too noisy to tell.
    """
    cost = sum(c for c, _ in days)
    conversions = sum(v for _, v in days)
    if cost <= 0 or conversions <= 0:
        return 0.0
    rate = conversions / cost
    due = [(i, c * rate, v) for i, (c, v) in enumerate(days)]
    mean_t = sum(i * m for i, m, _ in due) / conversions
    score = sum((i - mean_t) * (observed - m) for i, m, observed in due)
    variance = sum((i - mean_t) ** 2 * m for i, m, _ in due)
    return score / math.sqrt(variance) if variance > 0 else 0.0


def log_likelihood_ratio(before: tuple[float, float], after: tuple[float, float]) -> float:
    """Two conversion rates, (conversions, clicks) before and after a date, against one rate for the
    whole span: the change point is the date where this peaks. Unlike the z it weighs the noise on
    both sides, so it does not drift towards a split with a short, lucky "before"."""
    (b_conv, b_clicks), (a_conv, a_clicks) = before, after
    pooled = (b_conv + a_conv) / (b_clicks + a_clicks) if b_clicks + a_clicks > 0 else 0.0
    if pooled <= 0:
        return 0.0
    return sum(c * math.log(c / (k * pooled)) for c, k in ((b_conv, b_clicks), (a_conv, a_clicks)) if c > 0 and k > 0)
