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
from operator import itemgetter
from typing import Any, Iterable, Sequence

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


class _Absent:
    """The value of a field a row does not have."""


_ABSENT = _Absent()
# A column of values, one per row. Kept as tuples: a tuple of numbers is left out of the garbage
# collector's passes, which a list of 100,000 would lengthen for as long as the snapshot lives
Column = Sequence[float | None]
_PLAIN_KINDS = {float, int, _Absent}


class DailyRows:
    """The ``daily`` list of one snapshot, as columns (one entry per row, in row order).

    - ``rows``: the rows themselves (the parsed JSON values, objects or not);
    - ``days``: each row's date (``parse_day``), None when it has none or is not an object;
    - ``campaigns``: each row's ``campaign_id`` as text, None when it is missing or null;
    - ``columns[name]``: each row's ``number(row[name])`` for every name of ``COLUMNS``;
    - ``bounds[name]``: a bound on the size of a column's numbers (none is further from zero; absent
      when the column holds no number);
    - ``irregular``: row -> the names of ``COLUMNS`` (in that order) whose value is present but not a
      plain finite number;
    - ``usable``: the rows with both a date and a campaign, in row order;
    - ``cells``: the rows with both a date and a campaign per (campaign id, date), in row order
      (``Groups``; ``by_cell`` as a dict); ``by_campaign`` and ``by_day`` the same per campaign and per date.
    """

    __slots__ = ("rows", "days", "campaigns", "columns", "irregular", "bounds", "not_objects", "usable", "cells",
                 "_by_cell", "_sums", "by_campaign", "by_day")

    def __init__(self, daily: list[Any]) -> None:
        self.rows = daily
        self.not_objects = [] if set(map(type, daily)) <= {dict} else [
            i for i, row in enumerate(daily) if not isinstance(row, dict)]
        # Read column by column; a row that is not an object reads as one with no fields
        rows = [row if isinstance(row, dict) else {} for row in daily] if self.not_objects else daily
        fields = set().union(*rows)
        self.days = _days([row.get("date") for row in rows])
        self.campaigns = _campaign_ids([row.get("campaign_id") for row in rows])
        self.irregular: dict[int, list[str]] = {}
        self.bounds: dict[str, float] = {}
        self.columns = {name: self._column(name, [row.get(name, _ABSENT) for row in rows]) if name in fields
                        else (None,) * len(rows) for name in COLUMNS}
        if self.irregular:  # filled column by column: listed in row order again
            self.irregular = dict(sorted(self.irregular.items()))
        self._group()

    def _column(self, name: str, values: list[Any]) -> Column:
        """One metric's column, read in bulk when every value is a plain number of ordinary size (or
        absent), else value by value; the values read otherwise listed in ``irregular``."""
        kinds = set(map(type, values))
        if kinds == {_Absent}:
            return (None,) * len(values)
        if kinds <= _PLAIN_KINDS:
            try:
                column: list[Any] = (values if kinds == {float} else list(map(float, values)) if _Absent not in kinds
                                     else [None if v is _ABSENT else float(v) for v in values])
            except OverflowError:  # an int beyond float range: read value by value
                pass
            else:
                present = column if _Absent not in kinds else [v for v in column if v is not None]
                if not present:
                    return tuple(column)
                # The sizes' sum: finite when no value is inf or nan, and no value is further from zero
                bound = sum(map(abs, present))
                if not bound < _PLAIN_INT and bound == bound:  # large values, no nan: the largest size
                    bound = max(map(abs, present))
                if bound < _PLAIN_INT:  # where ``number`` reads every value as the column holds it
                    self.bounds[name] = bound
                    return tuple(column)
        column = [None] * len(values)
        irregular = self.irregular
        for i, value in enumerate(values):
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
            irregular.setdefault(i, []).append(name)
        if numbers := [v for v in column if v is not None]:
            self.bounds[name] = max(map(abs, numbers))
        return tuple(column)

    def _group(self) -> None:
        """The rows with a date and a campaign grouped per (campaign, date), campaign and date, in row order."""
        campaigns: Sequence[Any] = self.campaigns
        days: Sequence[Any] = self.days
        usable: Sequence[int] = range(len(days))
        if None in campaigns or None in days:
            usable = [i for i, (cid, day) in enumerate(zip(campaigns, days)) if cid is not None and day is not None]
            campaigns, days = [campaigns[i] for i in usable], [days[i] for i in usable]
        self.usable = usable
        self.cells = Groups(list(zip(campaigns, days)), usable)
        self.by_campaign: dict[str, list[int]] = groups_of(campaigns, usable)
        self.by_day: dict[date, list[int]] = groups_of(days, usable)
        self._by_cell: dict[tuple[str, date], list[int]] | None = None
        self._sums: dict[str, list[float]] = {}

    def cell_sums(self, name: str) -> list[float]:
        """The column ``name`` summed over each of ``cells`` (``Groups.sums``), kept: the series' totals
        and the daily totals both read them."""
        sums = self._sums.get(name)
        if sums is None:
            sums = self._sums[name] = self.cells.sums(self.columns[name])
        return sums

    @property
    def by_cell(self) -> dict[tuple[str, date], list[int]]:
        """(campaign id, date) -> the rows with both, in row order."""
        if self._by_cell is None:
            self._by_cell = dict(zip(self.cells.keys, self.cells.lists))
        return self._by_cell

    def __len__(self) -> int:
        return len(self.rows)

    def present(self, index: int, name: str) -> bool:
        """Whether row ``index`` holds the field ``name`` (a number, or a value listed as irregular)."""
        return self.columns[name][index] is not None or name in self.irregular.get(index, ())


class Groups:
    """Row indices grouped by a key: ``keys`` in the order they first come, ``lists`` each key's rows in
    row order. When every key has one row (a campaign-level export: one row per campaign and day) the
    groups are kept as those rows (``firsts``), without a list per key."""

    __slots__ = ("keys", "firsts", "_lists")

    def __init__(self, keys: list[Any], indices: Sequence[int]) -> None:
        """``keys[n]`` is the key of row ``indices[n]``; ``indices`` in row order."""
        self.keys = keys
        self.firsts: Sequence[int] | None = indices
        self._lists: list[list[int]] | None = None
        if len(dict.fromkeys(keys)) != len(keys):
            groups = groups_of(keys, indices)
            self.keys, self.firsts, self._lists = list(groups), None, list(groups.values())

    @classmethod
    def of(cls, groups: dict[Any, list[int]]) -> "Groups":
        """``groups`` (key -> its rows in row order) as they are."""
        made = cls([], [])
        made.keys, made.firsts, made._lists = list(groups), None, list(groups.values())
        return made

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def lists(self) -> list[list[int]]:
        if self._lists is None:
            self._lists = [[i] for i in self.firsts or ()]
        return self._lists

    def sums(self, column: Column) -> list[float]:
        """The sum of a column over each group, added in row order from 0.0, None left out: the bits a
        running total per group gives (``Totals.add_values``, the day sums)."""
        values: Sequence[float] = column  # type: ignore[assignment]
        if None in column:
            if column.count(None) == len(column):
                return [0.0] * len(self.keys)
            # Adding 0.0 leaves a running total from 0.0 as it is (it is never -0.0), as leaving None out does
            values = [0.0 if v is None else v for v in column]
        firsts = self.firsts
        if firsts is None:
            # itemgetter: the values of a group in one call (a day's rows lie far apart in the column)
            return [sum(itemgetter(*group)(values), 0.0) if len(group) > 1 else 0.0 + values[group[0]]
                    for group in self.lists]
        if type(firsts) is range and len(firsts) == len(values):
            return [0.0 + v for v in values]
        return [0.0 + values[i] for i in firsts]

    def counts(self) -> list[int]:
        """The number of rows of each group."""
        return [1] * len(self.keys) if self.firsts is not None else list(map(len, self.lists))

    def any_present(self, column: Column) -> list[bool]:
        """Whether each group has a row whose value is not None."""
        if None not in column:
            return [True] * len(self.keys)
        if self.firsts is not None:
            return [column[i] is not None for i in self.firsts]
        return [any(column[i] is not None for i in group) for group in self.lists]

    def firsts_only(self) -> "Groups":
        """The first row of each group."""
        if self.firsts is not None:
            return self
        return Groups(self.keys, [group[0] for group in self.lists])


def groups_of(keys: Sequence[Any], indices: Iterable[int]) -> dict[Any, list[int]]:
    """key -> the indices with that key, in order; the keys in the order they first come."""
    groups: dict[Any, list[int]] = {key: [] for key in dict.fromkeys(keys)}
    for key, index in zip(keys, indices):
        groups[key].append(index)
    return groups


def _days(values: list[Any]) -> tuple[date | None, ...]:
    """``parse_day`` of each value, each distinct text read once."""
    if set(map(type, values)) <= {str}:
        read = {text: parse_day(text) for text in set(values)}
        return tuple(map(read.__getitem__, values))
    return tuple(map(parse_day, values))


def _campaign_ids(values: list[Any]) -> tuple[str | None, ...]:
    """Each ``campaign_id`` as text (None when missing or null)."""
    if set(map(type, values)) <= {str}:
        return tuple(values)
    return tuple([None if value is None else value if type(value) is str else str(value) for value in values])


def daily_rows(data: Any) -> DailyRows:
    """The ``DailyRows`` of a parsed snapshot (an empty one when ``daily`` is not a list), kept on the
    snapshot: every reader of the same loaded snapshot gets the same object."""
    daily = data.get("daily") if isinstance(data, dict) else None
    if not isinstance(daily, list):
        return DailyRows([])
    return cache_of(data).get("daily rows", lambda: DailyRows(daily))
