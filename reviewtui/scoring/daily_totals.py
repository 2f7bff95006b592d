"""The daily rows summed per day, for the account and each campaign, and the period's dates.

``DailyTotals`` is one reading of the rows: as they are, with duplicate (date, campaign) rows
counted once, or with money left in micros converted (``corrected_readings``). Sums over any date
range come from prefix sums in constant time.
"""

from __future__ import annotations

import bisect
from datetime import date, timedelta
from typing import Any, Iterable

from ..caseset.daily_rows import Column, DailyRows, Groups, daily_rows, groups_of
from ..caseset.snapshot import MAX_PERIOD_DAYS
from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot import as_object as _dict
from ..caseset.snapshot_cache import cache_of
from ..caseset.snapshot_reader import last_complete_day, micros_limits, number, parse_day
from ..domain.budgets import span_days

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")
IMPRESSIONS, CLICKS, COST, CONVERSIONS, VALUE, ALL_CONVERSIONS = range(len(METRICS))
# Shares are averaged, not summed: each day list keeps their sum and the number of rows that had one.
SHARES = ("search_impression_share", "search_budget_lost_impression_share", "search_rank_lost_impression_share")
SHARE_SUM = len(METRICS)
SHARE_COUNT = SHARE_SUM + len(SHARES)
WIDTH = SHARE_COUNT + len(SHARES)
DIRECT_SUM_DAYS = 62  # windows up to this many days with rows are summed directly, longer ones by prefix sums
# One day's sums, as the finished totals keep them: tuples of floats, which the cyclic garbage collector
# stops walking, since every loaded snapshot keeps its totals (snapshot_cache) for as long as it lives
DaySums = tuple[float, ...]


def calendar_days(first: date, last: date, last_row: date | None) -> int:
    """Days in a window for daily averages: cut at the last date with any rows."""
    cut = min(last, last_row) if last_row else last
    return span_days(first, cut) if cut >= first else 0


class PeriodDates:
    """The period's dates, tolerant of missing or malformed fields."""

    def __init__(self, data: dict[str, Any], dates_with_rows: Iterable[date]) -> None:
        period = _dict(data.get("period"))
        seen = sorted(dates_with_rows)
        self.start = parse_day(period.get("start")) or (seen[0] if seen else None)
        self.end = parse_day(period.get("end")) or (seen[-1] if seen else None)
        if self.start and self.end and not 0 < span_days(self.start, self.end) <= MAX_PERIOD_DAYS:
            # `check` refuses such a period; here it must not build a table per day of it.
            self.start = self.end = None
        self.as_of = parse_day(period.get("as_of"))
        self.last_complete = last_complete_day(period, self.end, seen[-1] if seen else None)
        days = number(period.get("days_in_month"))
        if days is None and self.start and self.end:
            days = span_days(self.start, self.end)
        self.days = int(days) if days and days > 0 else None

    def windows(self, last_row_date: date | None) -> dict[str, tuple[date, date]]:
        out: dict[str, tuple[date, date]] = {}
        if self.start and self.end:
            out["period"] = (self.start, self.end)
            if self.last_complete and last_row_date and last_row_date > self.last_complete:
                out["to last complete day"] = (self.start, self.last_complete)
        lc = self.last_complete
        if lc:
            out["last 7 complete days"] = (lc - timedelta(days=6), lc)
            out["previous 7 complete days"] = (lc - timedelta(days=13), lc - timedelta(days=7))
            out["last 14 complete days"] = (lc - timedelta(days=13), lc)
        return out


class DailyTotals:
    """The daily rows summed per day, for the account and for each campaign.

    ``window(scope, first, last)`` gives the sums over any date range in
    constant time (prefix sums, built per scope on first use): the derived
    index's fixed windows, and the date ranges a finding names itself.
    Day lists hold the ``METRICS`` sums, then the ``SHARES`` sums, then the
    number of rows that had each share.
    """

    def __init__(self, data: dict[str, Any], *, once_per_day: bool = False,
                 micros_over: tuple[float, float] | None = None, shift_days: int = 0,
                 invalid_left_out: bool = False) -> None:
        """``once_per_day``: count only the first row of each (date, campaign), the reading of a
        snapshot with duplicate rows once they are removed. ``micros_over``: (cost, value) above
        which a row's money is read as micros and divided by a million. ``shift_days``: every
        row's date moved that many days (a time-zone shift undone). ``invalid_left_out``:
        impossible values left out (a negative metric, a share above 1, and the clicks and
        impressions of a row with more clicks than impressions)."""
        self.once_per_day = once_per_day
        # The snapshot's one reading of its rows (caseset/daily_rows.py), summed column by column over
        # each (campaign, date) in row order
        view = daily_rows(data)
        keys, groups = _cells(view)
        if shift_days:
            shift = timedelta(days=shift_days)
            keys = [(cid, day + shift) for cid, day in keys]
        if once_per_day:
            groups = groups.firsts_only()
        self.rows_per_day: dict[tuple[str, date], int] = dict(zip(keys, groups.counts()))
        metric_columns = [view.columns[metric] for metric in METRICS]
        share_columns = [view.columns[share] for share in SHARES]
        if micros_over is not None:
            for m, limit in ((COST, micros_over[0]), (VALUE, micros_over[1])):
                metric_columns[m] = [v / 1e6 if v is not None and v > limit else v for v in metric_columns[m]]
        if invalid_left_out:
            metric_columns, share_columns = _valid_only(metric_columns, share_columns)
        plain = groups is view.cells and micros_over is None and not invalid_left_out
        sums = [view.cell_sums(name) if plain else groups.sums(column)
                for name, column in zip((*METRICS, *SHARES), (*metric_columns, *share_columns))]
        sums += [groups.sums(_ones(column)) for column in share_columns]
        # (campaign, date) -> its sums, by campaign in the order the campaigns first come
        cell_sums = list(zip(*sums))
        by_campaign: dict[str, dict[date, DaySums]] = {}
        positions_of = groups_of([cid for cid, _ in keys], range(len(keys)))
        for cid, positions in positions_of.items():
            by_campaign[cid] = dict(zip([keys[p][1] for p in positions], [cell_sums[p] for p in positions]))
        self.by_campaign = by_campaign
        # The account's day: its campaigns' sums added in the order the campaigns first come
        in_order = [p for positions in positions_of.values() for p in positions]
        account_days = Groups.of(groups_of([keys[p][1] for p in in_order], in_order))
        self.account: dict[date, DaySums] = dict(zip(account_days.keys,
                                                     zip(*(account_days.sums(column) for column in sums))))
        self.period = PeriodDates(data, self.account)
        self.last_row = max(self.account) if self.account else None
        self._prefix: dict[str, tuple[list[date], list[DaySums]]] = {}

    def windows(self) -> dict[str, tuple[date, date]]:
        """The derived index's fixed windows, plus ``all rows`` when rows fall outside the period."""
        out = self.period.windows(self.last_row)
        if self.account and self.period.start and self.period.end:
            first, last = min(self.account), max(self.account)
            if first < self.period.start or last > self.period.end:
                out["all rows"] = (first, last)
        return out

    def days(self, scope: str) -> dict[date, DaySums]:
        """``"account"`` or a campaign id."""
        return self.account if scope == "account" else self.by_campaign.get(scope, {})

    def window(self, scope: str, first: date, last: date) -> tuple[list[float], int]:
        """(sums, days with rows) of ``scope`` from ``first`` to ``last`` inclusive."""
        prefix = self._prefix.get(scope)
        if prefix is None:
            days = self.days(scope)
            dates = sorted(days)
            running: DaySums = (0.0,) * WIDTH
            cumulative = [running]
            for day in dates:
                running = tuple([a + b for a, b in zip(running, days[day])])
                cumulative.append(running)
            prefix = self._prefix[scope] = (dates, cumulative)
        dates, cumulative = prefix
        lo, hi = bisect.bisect_left(dates, first), bisect.bisect_right(dates, last)
        if hi <= lo:
            return [0.0] * WIDTH, 0
        if hi - lo <= DIRECT_SUM_DAYS:
            # a month's window is summed day by day: a prefix difference loses a day's clicks next
            # to a corrupt row of 1e308 elsewhere in the period
            days = self.days(scope)
            return [sum(column) for column in zip(*(days[d] for d in dates[lo:hi]))], hi - lo
        return [b - a for a, b in zip(cumulative[lo], cumulative[hi])], hi - lo


def _cells(view: DailyRows) -> tuple[list[tuple[str, date]], Groups]:
    """The (campaign, date) of the rows with a date, each with its rows in row order, in the order they
    first come; rows without a campaign count under "(no campaign)"."""
    if not any(cid is None and day is not None for cid, day in zip(view.campaigns, view.days)):
        return view.cells.keys, view.cells
    dated = [i for i, day in enumerate(view.days) if day is not None]
    keys = [(view.campaigns[i] if view.campaigns[i] is not None else "(no campaign)", view.days[i]) for i in dated]
    groups = Groups(keys, dated)
    return groups.keys, groups


def _ones(column: Column) -> Column:
    """1.0 for each value of the column, None where it has none: summed, the number of rows with one."""
    if column.count(None) == len(column):
        return column
    return [None if v is None else 1.0 for v in column]


def _valid_only(metric_columns: list[Column], share_columns: list[Column]) -> tuple[list[Column], list[Column]]:
    """The columns with impossible values left out (None): a negative metric, a share outside 0 to 1,
    and the clicks and impressions of a row with more clicks than impressions."""
    clicks, impressions = metric_columns[CLICKS], metric_columns[IMPRESSIONS]
    over = [c is not None and m is not None and c > m for c, m in zip(clicks, impressions)]
    metrics: list[Column] = [[None if v is None or v < 0 or (m in (CLICKS, IMPRESSIONS) and bad) else v
                              for v, bad in zip(column, over)] for m, column in enumerate(metric_columns)]
    shares: list[Column] = [[v if v is not None and 0 <= v <= 1 else None for v in column] for column in share_columns]
    return metrics, shares


def daily_totals(data: dict[str, Any]) -> DailyTotals:
    """The ``DailyTotals`` of a snapshot, kept on the snapshot (``snapshot_cache``)."""
    return cache_of(data).get("daily totals", lambda: DailyTotals(data if isinstance(data, dict) else {}))


def corrected_readings(data: dict[str, Any], totals: DailyTotals) -> list[tuple[DailyTotals, str]]:
    """The snapshot read with duplicate rows counted once, or with money in micros converted,
    when it has such rows (kept on the snapshot)."""
    return cache_of(data).get("corrected readings", lambda: _corrected_readings(data, totals))


def _corrected_readings(data: dict[str, Any], totals: DailyTotals) -> list[tuple[DailyTotals, str]]:
    readings = []
    if any(n > 1 for n in totals.rows_per_day.values()):
        readings.append((DailyTotals(data, once_per_day=True), DUPLICATES_ONCE))
    limits = micros_limits(_list(data.get("daily")))
    if limits is not None:
        readings.append((DailyTotals(data, micros_over=limits), MICROS_CONVERTED))
    return readings


def named_readings(data: dict[str, Any], words: set[str]) -> list[tuple[DailyTotals, str]]:
    """The readings a finding's words ask for, beyond ``corrected_readings``: every row moved a day
    ("shift"), impossible values left out ("invalid"). Kept on the snapshot."""
    out = []
    if "shift" in words:
        out += cache_of(data).get("shifted readings", lambda: [
            (DailyTotals(data, shift_days=1), SHIFTED_LATER), (DailyTotals(data, shift_days=-1), SHIFTED_EARLIER)])
    if "invalid" in words:
        out.append(cache_of(data).get("invalid left out", lambda: (DailyTotals(data, invalid_left_out=True), INVALID_LEFT_OUT)))
    return out


DUPLICATES_ONCE = "duplicate rows counted once"  # the corrected readings' labels
MICROS_CONVERTED = "micros converted"
SHIFTED_LATER = "rows moved one day later"
SHIFTED_EARLIER = "rows moved one day earlier"
INVALID_LEFT_OUT = "impossible values left out"
