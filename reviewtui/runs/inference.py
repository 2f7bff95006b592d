"""The statistics behind the summary and the comparison: pure functions, standard library only.

- ``bootstrap_means``: percentile intervals of column means from a
  task-level bootstrap (resample whole cases with replacement, seeded). A
  case run several times enters as one value (the mean of its repeats), so
  its repeats stay together in every resample.
- ``binomial_two_sided``: the exact two-sided p-value of ``k`` successes in
  ``n`` fair coin tosses; ``sign_test`` and ``mcnemar_exact`` are that test on
  the discordant pairs.
- ``benjamini_hochberg``: step-up adjusted p-values (false discovery rate).
- ``noise_verdict``: where a threshold sits against an interval, in words.

docs/eval.md says why each method is the one used.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 13
DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean and its bootstrap percentile interval."""

    mean: float
    low: float
    high: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, float]:
        return {"mean": round(self.mean, 6), "low": round(self.low, 6), "high": round(self.high, 6)}


def percentile_bounds(sorted_values: Sequence[float], level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """The (1-level)/2 and (1+level)/2 order statistics of an ascending list.

    With B values, the lower bound is the value at index floor(B * alpha/2)
    and the upper the value at index ceil(B * (1 - alpha/2)) - 1 (0-based),
    alpha = 1 - level: for B = 10,000 and 95%, indexes 250 and 9749.
    """
    count = len(sorted_values)
    if not count:
        raise ValueError("no values")
    alpha = 1.0 - level
    low_index = min(count - 1, math.floor(count * alpha / 2))
    high_index = max(0, math.ceil(count * (1 - alpha / 2)) - 1)
    return sorted_values[low_index], sorted_values[high_index]


def bootstrap_means(columns: Sequence[Sequence[float]], *, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> list[Interval]:
    """One interval per column; every column has one value per case, in the same case order.

    Each resample draws n case indexes with replacement (``random.Random(seed).choices``)
    and takes every column's mean over those same cases, so columns resampled
    together (recall and precision, or the two runs of a paired comparison)
    keep their pairing. An empty column set of cases gives no interval (ValueError).
    """
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    count = len(columns[0]) if columns else 0
    if not count or any(len(c) != count for c in columns):
        raise ValueError("every column needs the same, non-zero number of values")
    rng = random.Random(seed)
    indexes = range(count)
    means: list[list[float]] = [[] for _ in columns]
    getters = [list(c).__getitem__ for c in columns]
    for _ in range(resamples):
        pick = rng.choices(indexes, k=count)
        for get, out in zip(getters, means):
            out.append(math.fsum(map(get, pick)) / count)
    intervals = []
    for column, resampled in zip(columns, means):
        resampled.sort()
        low, high = percentile_bounds(resampled, level)
        intervals.append(Interval(math.fsum(column) / count, low, high))
    return intervals


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` of ``n`` under p = 1/2: twice the smaller tail, at most 1.

    The distribution is symmetric, so doubling the smaller tail is the same as
    summing every outcome no more likely than the one seen. n = 0 gives 1.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    smaller = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(smaller + 1))
    return min(1.0, 2 * tail / float(2**n))


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided sign test on the pairs that changed (ties are left out before calling)."""
    return binomial_two_sided(better, better + worse)


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Exact McNemar test: only the discordant pairs (yes/no and no/yes) carry information."""
    return binomial_two_sided(only_first, only_first + only_second)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values, in the order given.

    The i-th smallest of m gets p * m / i, then each is lowered to the
    smallest adjusted value at or above its rank (so they stay monotone),
    capped at 1.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


def noise_verdict(interval: Interval, threshold: float) -> str:
    """``"a pass within noise"`` and its three siblings: pass or fail by the mean, noise by the interval."""
    verdict = "a pass" if interval.mean >= threshold else "a fail"
    if interval.contains(threshold) and interval.low != interval.high:
        return f"{verdict} within noise"
    return f"{verdict} clear of the noise"
