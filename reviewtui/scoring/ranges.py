"""The figures over the date ranges a finding names (``named_scope.py`` says which ranges).

For each range and each scope (the account and each campaign the finding names): the sums,
rates, daily averages, share averages, CPA and ROAS against target and shares of the account
(``derived_index.window_numbers``), in the rows as they are and in any corrected reading
(duplicate rows counted once, micros converted, rows moved a day, impossible values left out),
and with weekdays named, the average day of each weekday.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from datetime import date
from typing import Any, Iterable

from .daily_totals import METRICS, SHARE_COUNT, SHARE_SUM, SHARES, DailyTotals, DaySums, calendar_days
from .derived_index import window_numbers

@dataclass
class RangeValues:
    """The figures of one scope over one range, sorted by magnitude. Entries are
    ``(magnitude, metric)``; ``name(metric)`` says which figure it is."""

    scope: str  # "account" or "campaign 333"
    label: str  # "2025-03-11 to the last complete day"
    amounts: list[tuple[float, str]]
    # The rows behind every figure of the table, when it is not one scope's daily rows over one
    # range (derivations.py); empty: the range cache says (GroundingIndex._range_rows).
    rows: tuple = ()

    @classmethod
    def of(cls, scope: str, label: str, numbers: Iterable[tuple[str, float | None]], rows: tuple = ()) -> "RangeValues":
        amounts = [(abs(v), metric) for metric, v in numbers if v is not None and math.isfinite(v)]
        amounts.sort()
        return cls(scope, label, amounts, rows)

    def name(self, metric: str) -> str:
        return f"{self.scope}: {metric}, {self.label}"


def range_values(
    totals: DailyTotals, windows: dict[tuple[date, date], str], campaign_ids: Iterable[str],
    target_cpa: float | None, target_roas: float | None,
    cache: dict[tuple[str, Any, Any], Any] | None = None,  # a RangeValues per window, a list per weekday set
    *, suffix: str = "", weekdays: bool = False,
) -> list[RangeValues]:
    """The figures over each window, for the account and the named campaigns, one sorted table
    per scope and window, and with ``weekdays`` the average day of each weekday.

    ``cache`` (one per snapshot and reading) keeps each (scope, window)'s table for the next
    finding that names the same range; the first finding's label for a range is the one kept.
    ``suffix`` names a corrected reading of the rows.
    """
    cache = {} if cache is None else cache
    campaigns = [c for c in dict.fromkeys(campaign_ids) if c in totals.by_campaign]
    every = windows
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


# Each reading's sums over the ranges findings have named, by (scope, first, last): the account's
# sums over a range recur in every finding about one of its campaigns, a campaign's in its budget's use.
_KEPT_SUMS: "weakref.WeakKeyDictionary[DailyTotals, dict[tuple[str, date, date], tuple[list[float], int]]]" = (
    weakref.WeakKeyDictionary())


def window_sums(totals: DailyTotals, scope: str, first: date, last: date) -> tuple[list[float], int]:
    """``totals.window(scope, first, last)``, kept while ``totals`` lives; callers read the sums, never change them."""
    kept = _KEPT_SUMS.get(totals)
    if kept is None:
        kept = _KEPT_SUMS[totals] = {}
    key = (scope, first, last)
    found = kept.get(key)
    if found is None:
        found = kept[key] = totals.window(scope, first, last)
    return found


def _window_values(
    totals: DailyTotals, scope: str, first: date, last: date, label: str,
    target_cpa: float | None, target_roas: float | None,
) -> RangeValues:
    """Every figure of one scope over one window."""
    sums, active = window_sums(totals, scope, first, last)
    account = None if scope == "account" else window_sums(totals, "account", first, last)[0]
    numbers = window_numbers(sums, active, calendar_days(first, last, totals.last_row), target_cpa, target_roas, account)
    if first < last:
        numbers += _day_extremes(totals, scope, first, last)
    return RangeValues.of("account" if scope == "account" else f"campaign {scope}", label, numbers)


def _day_extremes(totals: DailyTotals, scope: str, first: date, last: date) -> list[tuple[str, float | None]]:
    """The lowest and the highest day of each metric in the window ("clicks held between 118 and
    129 a day"), shares as each day's average."""
    days = [sums for day, sums in totals.days(scope).items() if first <= day <= last]
    if len(days) < 2:
        return []
    out: list[tuple[str, float | None]] = []
    for i, metric in enumerate(METRICS):
        values = [sums[i] for sums in days]
        out += [(f"{metric} per day, lowest", min(values)), (f"{metric} per day, highest", max(values))]
    for i, share in enumerate(SHARES):
        values = [sums[SHARE_SUM + i] / sums[SHARE_COUNT + i] for sums in days if sums[SHARE_COUNT + i]]
        if values:
            out += [(f"{share} per day, lowest", min(values)), (f"{share} per day, highest", max(values))]
    return out


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
