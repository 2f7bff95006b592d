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

For each range and each campaign the finding names (by scope, id or name),
and the account: the sums, rates, daily averages, share averages, CPA and
ROAS against target and shares of the account (``derived.window_figures``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Iterable

from .derived import DailyTotals, NamedValues, calendar_days, is_ratio_name, window_figures

MAX_DATES = 8  # a finding listing twenty days is a list, not twenty ranges
MAX_DAY_COUNTS = 6
LAG_DAYS = (1, 2, 3)  # ranges from a named date may stop short of the last days, which fill in later


@dataclass
class RangeValues:
    """Sorted figures over the ranges one finding names: all of them, and the ratios alone
    (the only ones a percentage or a multiplier may match)."""

    amounts: list[tuple[float, str]]
    ratios: list[tuple[float, str]]


def named_windows(
    totals: DailyTotals, dates: Iterable[date], day_counts: Iterable[int],
) -> dict[tuple[date, date], str]:
    """``{(first, last): label}`` for the ranges the finding's dates and day counts name."""
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
    return windows


def range_values(
    totals: DailyTotals, windows: dict[tuple[date, date], str], campaign_ids: Iterable[str],
    target_cpa: float | None, target_roas: float | None,
    cache: dict[tuple[str, date, date], list[tuple[float, str, bool]]] | None = None,
) -> RangeValues:
    """The figures over each window for the account and the named campaigns, sorted by magnitude.

    ``cache`` (one per snapshot) keeps each (scope, window)'s figures for the next finding that
    names the same range; the first finding's label for a range is the one kept.
    """
    cache = {} if cache is None else cache
    campaigns = [c for c in dict.fromkeys(campaign_ids) if c in totals.by_campaign]
    found: list[tuple[float, str, bool]] = []
    for (first, last), label in windows.items():
        for scope in ("account", *campaigns):
            key = (scope, first, last)
            values = cache.get(key)
            if values is None:
                values = cache[key] = _window_values(totals, scope, first, last, label, target_cpa, target_roas)
            found.extend(values)
    found.sort()
    return RangeValues([(v, name) for v, name, _ in found], [(v, name) for v, name, ratio in found if ratio])


def _window_values(
    totals: DailyTotals, scope: str, first: date, last: date, label: str,
    target_cpa: float | None, target_roas: float | None,
) -> list[tuple[float, str, bool]]:
    """(magnitude, name, is a ratio) of every figure of one scope over one window."""
    index = NamedValues()
    calendar = calendar_days(first, last, totals.last_row)
    sums, active = totals.window(scope, first, last)
    account = None if scope == "account" else totals.window("account", first, last)[0]
    name = "account" if scope == "account" else f"campaign {scope}"
    window_figures(index, f"{name}: {{}}, {label}", sums, active, calendar, target_cpa, target_roas, account)
    return [(abs(v), n, is_ratio_name(n)) for n, v in index.values.items()]
