"""Are the daily rows readable? A snapshot whose rows cannot be read is an error.

The auditor skips a row it cannot read and notes it; when most rows are
skipped that would end in a clean "no material issues" over data that was
never read. ``reviewtui check``, ``reviewtui eval`` and ``reviewtui import``
refuse such a snapshot, naming the field, the first bad value and the format
expected. A few unreadable rows stay the auditor's business (a planted
``data.*`` breakage is exactly that).
"""

from __future__ import annotations

from typing import Any

from .daily_rows import DailyRows, daily_rows
from .snapshot_cache import cache_of
from .snapshot_reader import number, parse_day

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value")
# Above this share of unreadable rows the snapshot is refused.
MAX_UNREADABLE_SHARE = 0.5


def row_problem(index: int, row: Any) -> str | None:
    """What makes one daily row unreadable, naming the field, the value and the expected format."""
    where = f"/daily/{index}"
    if not isinstance(row, dict):
        return f"{where} is {type(row).__name__}, not an object with date, campaign_id and metrics"
    if parse_day(row.get("date")) is None:
        return f"{where}/date {row.get('date')!r} is not a date: expected YYYY-MM-DD"
    if row.get("campaign_id") in (None, ""):
        return f"{where} has no campaign_id"
    present = [m for m in METRICS if m in row]
    if not present:
        return f"{where} has none of the metric fields {', '.join(METRICS)} (found {', '.join(map(str, row)) or 'none'})"
    for metric in present:
        if row[metric] is not None and number(row[metric]) is None:
            return f"{where}/{metric} {row[metric]!r} is not a number: expected a JSON number such as 12.34"
    return None


def daily_problems(data: Any) -> list[tuple[str, str]]:
    """(severity, message) for daily rows that are all, or mostly, unreadable; empty otherwise. Kept on
    the snapshot (``snapshot_cache``): the app's live validation asks again after every edit, and on a
    100,000-row snapshot the answer takes a tenth of a second on the app's UI thread."""
    return list(cache_of(data).get("daily problems", lambda: _daily_problems(data)))


def _daily_problems(data: Any) -> list[tuple[str, str]]:
    daily = data.get("daily") if isinstance(data, dict) else None
    if not isinstance(daily, list):
        return []  # reported by the required-field check
    if not daily:
        return [("error", "'daily' has no rows: nothing in the snapshot can be audited; add the daily rows")]
    # The rows that may be unreadable, from the snapshot's shared reading; each told by row_problem
    view = daily_rows(data)
    suspects = sorted({*view.not_objects, *(i for i, day in enumerate(view.days) if day is None),
                       *(i for i, cid in enumerate(view.campaigns) if cid is None or cid == ""),
                       *(i for i, odd in view.irregular.items()
                         if any(m in METRICS and view.columns[m][i] is None and daily[i][m] is not None for m in odd)),
                       *_without_metrics(view)})
    bad = [(i, msg) for i in suspects if (msg := row_problem(i, daily[i])) is not None]
    if bad and len(bad) > MAX_UNREADABLE_SHARE * len(daily):
        first = bad[0][1]
        return [("error", f"{len(bad)} of {len(daily)} daily rows cannot be read, first {first}; "
                          "an audit over them would read nothing: fix the rows (or re-import the export)")]
    return []


def _without_metrics(view: DailyRows) -> list[int]:
    """The rows that hold none of ``METRICS`` as a number (among them, those that hold none at all)."""
    every = len(METRICS)
    return [i for i, values in enumerate(zip(*(view.columns[m] for m in METRICS))) if values.count(None) == every]
