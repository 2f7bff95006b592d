"""Date ranges a finding names, and the figures over them.

An auditor writes "conversions are 0 on every day from 2025-03-11 (8 days,
12,129 clicks)" or "CPA 30.96 from 2025-11-01 to 2025-11-07": sums and rates
over a range the finding itself names, not one of the derived index's fixed
windows. Grounding looks here for a figure nothing else grounded, with the
ranges built from the finding's own dates and day counts:

- on each date it names, and between any two (both included);
- from a date it names to the last complete day (or one to three days
  before it, leaving out the days whose conversions are still coming in, or
  to the last date with rows), from the day after it, and from the period
  start to it or to the day before it;
- N days ending at, ending the day before, starting at or starting the day
  after each date it names, the last complete day, as_of and the period
  start, for each day count N it states ("8 days", "the 10 days before").

Each day of a range of a week or less counts too; a finding that speaks
of weeks gets the 7-day blocks of the period, and one that names a weekday
the average day of each weekday.

For each range and each campaign the finding names (by scope, id, name or a
part of a name only one campaign has, such as "Greece" in "Search | NB |
Greece | IT"), and the account: the sums, rates, daily averages, share
averages, CPA and ROAS against target and shares of the account
(``derived.window_numbers``), in the snapshot as it is and in any corrected
reading (duplicate rows counted once, micros converted).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Iterable

from .daily_totals import DailyTotals, DaySums, calendar_days
from .derived_index import window_numbers
from .named_values import is_ratio_name

MAX_DATES = 8  # a finding listing twenty days is a list, not twenty ranges
MAX_DAY_COUNTS = 6
SHORT_WINDOW_DAYS = 7  # each day of a range this short is a range too ("daily ROAS since: 4.24, 12.50...")
LAG_DAYS = (1, 2, 3)  # ranges from a named date may stop short of the last days, which fill in later


@dataclass
class RangeValues:
    """The figures of one scope over one range, sorted by magnitude: all of them, and the ratios
    alone (the only ones a percentage or a multiplier may match). Entries are
    ``(magnitude, metric)``; ``name(metric)`` says which figure it is."""

    scope: str  # "account" or "campaign 333"
    label: str  # "2025-03-11 to the last complete day"
    amounts: list[tuple[float, str]]
    ratios: list[tuple[float, str]]

    @classmethod
    def of(cls, scope: str, label: str, numbers: Iterable[tuple[str, float | None]]) -> "RangeValues":
        amounts = sorted((abs(v), metric) for metric, v in numbers if v is not None and math.isfinite(v))
        return cls(scope, label, amounts, [(v, metric) for v, metric in amounts if _is_ratio_metric(metric)])

    def name(self, metric: str) -> str:
        return f"{self.scope}: {metric}, {self.label}"


def named_windows(
    totals: DailyTotals, dates: Iterable[date], day_counts: Iterable[int], *, weeks: bool = False,
) -> dict[tuple[date, date], str]:
    """``{(first, last): label}`` for the ranges the finding's dates and day counts name; with
    ``weeks`` (the finding speaks of weeks) the 7-day blocks counted from the period start and
    back from the last complete day."""
    period = totals.period
    lc, last_row, start = period.last_complete, totals.last_row, period.start
    one = timedelta(days=1)
    windows: dict[tuple[date, date], str] = {}

    def add(first: date | None, last: date | None, label: str) -> None:
        if first is not None and last is not None and first <= last:
            windows.setdefault((first, last), label)

    named = sorted(set(dates))[:MAX_DATES]
    for i, a in enumerate(named):
        add(a, a, f"on {a}")
        for b in named[i + 1:]:
            add(a, b, f"{a} to {b}")
        add(a, lc, f"{a} to the last complete day")
        for lag in LAG_DAYS:  # "from 2025-03-11, before the lag days"
            add(a, lc - timedelta(days=lag) if lc else None, f"{a} to {lag} days before the last complete day")
        add(a, last_row, f"{a} to the last date with rows")
        add(a + one, lc, f"the day after {a} to the last complete day")
        add(start, a, f"the period start to {a}")
        add(start, a - one, f"the period start to the day before {a}")
    anchors = {d: str(d) for d in named}
    for anchor, label in ((lc, "the last complete day"), (period.as_of, "as_of"), (start, "the period start")):
        if anchor is not None:
            anchors.setdefault(anchor, label)
    limit = period.days or 366
    counts = sorted({n for n in day_counts if 1 <= n <= limit})[:MAX_DAY_COUNTS]
    for n in counts:
        span = timedelta(days=n - 1)
        for anchor, label in anchors.items():
            add(anchor - span, anchor, f"{n} days to {label}")
            add(anchor - span - one, anchor - one, f"{n} days before {label}")
            add(anchor, anchor + span, f"{n} days from {label}")
            add(anchor + one, anchor + span + one, f"{n} days after {label}")
    if weeks and start and lc:
        for week in range(6):
            add(start + timedelta(days=7 * week), min(lc, start + timedelta(days=7 * week + 6)), f"week {week + 1}")
            add(max(start, lc - timedelta(days=7 * week + 6)), lc - timedelta(days=7 * week),
                f"week {week + 1} back from the last complete day")
    return windows


def range_values(
    totals: DailyTotals, windows: dict[tuple[date, date], str], campaign_ids: Iterable[str],
    target_cpa: float | None, target_roas: float | None,
    cache: dict[tuple[str, Any, Any], Any] | None = None,  # a RangeValues per window, a list per weekday set
    *, suffix: str = "", weekdays: bool = False,
) -> list[RangeValues]:
    """The figures over each window, for the account and the named campaigns, one sorted table
    per scope and window; each day of a window of a week or less counts as a window too, and
    with ``weekdays`` the average day of each weekday.

    ``cache`` (one per snapshot and reading) keeps each (scope, window)'s table for the next
    finding that names the same range; the first finding's label for a range is the one kept.
    ``suffix`` names a corrected reading of the rows.
    """
    cache = {} if cache is None else cache
    campaigns = [c for c in dict.fromkeys(campaign_ids) if c in totals.by_campaign]
    every = dict(windows)
    for (first, last) in windows:
        if (last - first).days < SHORT_WINDOW_DAYS:
            for offset in range((last - first).days + 1):
                day = first + timedelta(days=offset)
                every.setdefault((day, day), f"on {day}")
    tables: list[RangeValues] = []
    for scope in ("account", *campaigns):
        for (first, last), label in every.items():
            key = (scope, first, last)
            table = cache.get(key)
            if table is None:
                table = cache[key] = _window_values(totals, scope, first, last, label + suffix, target_cpa, target_roas)
            tables.append(table)
        if weekdays:
            by_weekday = cache.get((scope, "weekdays", None))
            if by_weekday is None:
                by_weekday = cache[(scope, "weekdays", None)] = _weekday_values(totals, scope, suffix)
            tables.extend(by_weekday)
    return tables


def _window_values(
    totals: DailyTotals, scope: str, first: date, last: date, label: str,
    target_cpa: float | None, target_roas: float | None,
) -> RangeValues:
    """Every figure of one scope over one window."""
    sums, active = totals.window(scope, first, last)
    account = None if scope == "account" else totals.window("account", first, last)[0]
    numbers = window_numbers(sums, active, calendar_days(first, last, totals.last_row), target_cpa, target_roas, account)
    return RangeValues.of("account" if scope == "account" else f"campaign {scope}", label, numbers)


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _weekday_values(totals: DailyTotals, scope: str, suffix: str) -> list[RangeValues]:
    """The average day of each weekday: "clicks fall to 355 a day on Fridays"."""
    groups: dict[int, list[DaySums]] = {}
    for day, sums in totals.days(scope).items():
        groups.setdefault(day.weekday(), []).append(sums)
    name = "account" if scope == "account" else f"campaign {scope}"
    return [RangeValues.of(name, f"on {WEEKDAYS[weekday]}s{suffix}",
                           window_numbers([sum(c) for c in zip(*rows)], len(rows), len(rows)))
            for weekday, rows in groups.items()]


@functools.lru_cache(maxsize=1024)
def _is_ratio_metric(metric: str) -> bool:
    return is_ratio_name(metric)
