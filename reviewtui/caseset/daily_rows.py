"""A snapshot's daily rows read once: dates, campaign ids and metrics as columns, grouped per campaign and date.

A 100,000-row snapshot is read by the validation (``rowcheck``), the reference auditor's series and
its detectors. Each used to walk the rows and read every value again (``number``, ``parse_day``), some
of them once per campaign. ``DailyRows`` is that reading done once per loaded snapshot and kept on it
(``snapshot_cache``): every reader takes the same columns and groups, so they agree on what each value
is and pay for the rows once.

The values read exactly as ``snapshot_reader`` reads them: a column holds ``number(value)`` for each
row (None for a value that is absent, null or not a number). A value that is present but not a plain
finite JSON number (null, text, a boolean, an integer beyond float range) is listed in ``irregular``,
so a reader can tell an absent value from a null or a quoted one without going back to the rows.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from .snapshot_cache import cache_of
from .snapshot_reader import number, parse_day

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")
SHARES = (
    "search_impression_share",
    "search_budget_lost_impression_share",
    "search_rank_lost_impression_share",
    "search_top_impression_share",
    "search_absolute_top_impression_share",
)
COLUMNS = (*METRICS, *SHARES)
# A plain int this far from zero converts to a finite float exactly as ``number`` converts it.
_PLAIN_INT = 1e300
_ABSENT = object()


class DailyRows:
    """The ``daily`` list of one snapshot, as columns (one entry per row, in row order).

    - ``rows``: the rows themselves (the parsed JSON values, objects or not);
    - ``days``: each row's date (``parse_day``), None when it has none or is not an object;
    - ``campaigns``: each row's ``campaign_id`` as text, None when it is missing or null;
    - ``columns[name]``: each row's ``number(row[name])`` for every name of ``COLUMNS``;
    - ``irregular``: row -> the names of ``COLUMNS`` (in that order) whose value is present but not a
      plain finite number;
    - ``by_cell``: (campaign id, date) -> the rows with both, in row order; ``by_campaign`` and
      ``by_day`` the same per campaign and per date.
    """

    __slots__ = ("rows", "days", "campaigns", "columns", "irregular", "not_objects", "by_cell", "by_campaign", "by_day")

    def __init__(self, daily: list[Any]) -> None:
        self.rows = daily
        count = len(daily)
        days: list[date | None] = [None] * count
        campaigns: list[str | None] = [None] * count
        columns: dict[str, list[float | None]] = {name: [None] * count for name in COLUMNS}
        irregular: dict[int, list[str]] = {}
        not_objects: list[int] = []
        filled = [(name, columns[name]) for name in COLUMNS]
        for i, row in enumerate(daily):
            if not isinstance(row, dict):
                not_objects.append(i)
                continue
            get = row.get
            days[i] = parse_day(get("date"))
            cid = get("campaign_id")
            if cid is not None:
                campaigns[i] = cid if type(cid) is str else str(cid)
            odd: list[str] | None = None
            for name, column in filled:
                value = get(name, _ABSENT)
                kind = type(value)
                if kind is float:
                    if value - value == 0:
                        column[i] = value
                        continue
                elif kind is int:
                    if -_PLAIN_INT < value < _PLAIN_INT:
                        column[i] = float(value)
                        continue
                elif value is _ABSENT:
                    continue
                column[i] = number(value)
                if odd is None:
                    odd = irregular[i] = []
                odd.append(name)
        self.days = days
        self.campaigns = campaigns
        self.columns = columns
        self.irregular = irregular
        self.not_objects = not_objects
        by_cell: dict[tuple[str, date], list[int]] = {}
        by_campaign: dict[str, list[int]] = {}
        by_day: dict[date, list[int]] = {}
        table: dict[Any, list[int]]
        for i, (cid, day) in enumerate(zip(campaigns, days)):
            if cid is None or day is None:
                continue
            key: Any
            for table, key in ((by_cell, (cid, day)), (by_campaign, cid), (by_day, day)):
                group = table.get(key)
                if group is None:
                    table[key] = [i]
                else:
                    group.append(i)
        self.by_cell = by_cell
        self.by_campaign = by_campaign
        self.by_day = by_day

    def __len__(self) -> int:
        return len(self.rows)

    def present(self, index: int, name: str) -> bool:
        """Whether row ``index`` holds the field ``name`` (a number, or a value listed as irregular)."""
        return self.columns[name][index] is not None or name in self.irregular.get(index, ())


def daily_rows(data: Any) -> DailyRows:
    """The ``DailyRows`` of a parsed snapshot (an empty one when ``daily`` is not a list), kept on the
    snapshot: every reader of the same loaded snapshot gets the same object."""
    daily = data.get("daily") if isinstance(data, dict) else None
    if not isinstance(daily, list):
        return DailyRows([])
    return cache_of(data).get("daily rows", lambda: DailyRows(daily))
