"""The shared tables every detector reads: rows, per-day and per-campaign totals.

Built once per snapshot from ``snapshot.json`` as parsed JSON, tolerant of
bad input: a value that is null, a string or otherwise not a number becomes
``None`` (and is noted), a row without a usable date or campaign is skipped
(and noted). Detectors never touch the raw JSON's numbers themselves, so no
detector crashes on a snapshot a human typed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from datetime import date, datetime, timedelta
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, overload

# One reading of numbers, dates and the last complete day for the auditor and the scoring
from ..caseset.daily_rows import COLUMNS, Column, DailyRows, Groups, daily_rows
from ..caseset.daily_rows import METRICS as METRICS, SHARES as SHARES  # the detectors read them here
from ..caseset.snapshot_reader import last_complete_day, number, parse_day
from ..domain.budgets import is_meta as meta_platform
from ..domain.terms import is_brand_name

MAX_METRIC = 1e15
MONEY = ("cost", "conversions_value")


def parse_moment(value: Any) -> datetime | None:
    """A timestamp such as ``2025-03-10T14:02:00+01:00`` or ``2025-03-12 09:31:00``."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        day = parse_day(value)
        return datetime(day.year, day.month, day.day) if day else None


@dataclass(slots=True)
class Totals:
    """Sums of the daily metrics over some set of rows; None-valued metrics count as 0."""

    impressions: float = 0.0
    clicks: float = 0.0
    cost: float = 0.0
    conversions: float = 0.0
    conversions_value: float = 0.0
    all_conversions: float = 0.0
    rows: int = 0
    has_all_conversions: bool = False

    def add(self, metrics: dict[str, float | None]) -> None:
        get = metrics.get
        self.add_values(get("impressions"), get("clicks"), get("cost"), get("conversions"),
                        get("conversions_value"), get("all_conversions"))

    def add_values(self, impressions: float | None, clicks: float | None, cost: float | None,
                   conversions: float | None, conversions_value: float | None, all_conversions: float | None) -> None:
        """One row's ``METRICS``, in order (None: the row has no number there). The series sums columns
        (``_sum_totals``); this row-by-row reading is the order of additions those sums must give, and
        tests/unit/test_daily_rows.py holds them to it."""
        if impressions is not None:
            self.impressions += impressions
        if clicks is not None:
            self.clicks += clicks
        if cost is not None:
            self.cost += cost
        if conversions is not None:
            self.conversions += conversions
        if conversions_value is not None:
            self.conversions_value += conversions_value
        if all_conversions is not None:
            self.all_conversions += all_conversions
            self.has_all_conversions = True
        self.rows += 1

    def merge(self, other: "Totals") -> None:
        # Spelled out: the change-point scans call this tens of thousands of times per audit
        self.impressions += other.impressions
        self.clicks += other.clicks
        self.cost += other.cost
        self.conversions += other.conversions
        self.conversions_value += other.conversions_value
        self.all_conversions += other.all_conversions
        self.rows += other.rows
        self.has_all_conversions |= other.has_all_conversions

    @property
    def cpa(self) -> float | None:
        return self.cost / self.conversions if self.conversions > 0 else None

    @property
    def roas(self) -> float | None:
        return self.conversions_value / self.cost if self.cost > 0 else None

    @property
    def cvr(self) -> float | None:
        return self.conversions / self.clicks if self.clicks > 0 else None

    @property
    def cpc(self) -> float | None:
        return self.cost / self.clicks if self.clicks > 0 else None


def total(items: Iterable[Totals]) -> Totals:
    """The items merged into one, in order: each field summed from 0 left to right, as ``merge`` adds
    them one by one."""
    found = list(map(_FIELDS, items))
    if not found:
        return Totals()
    impressions, clicks, cost, conversions, value, all_conversions, rows, has_all = zip(*found)
    return Totals(sum(impressions, 0.0), sum(clicks, 0.0), sum(cost, 0.0), sum(conversions, 0.0), sum(value, 0.0),
                  sum(all_conversions, 0.0), sum(rows), any(has_all))


_FIELDS = attrgetter("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions", "rows",
                     "has_all_conversions")


@dataclass(slots=True)
class Row:
    """One usable daily row, with its position in ``daily`` for JSON Pointers."""

    index: int
    day: date
    campaign_id: str
    metrics: dict[str, float | None]
    raw: dict[str, Any]

    @property
    def pointer(self) -> str:
        return f"/daily/{self.index}"

    def get(self, name: str) -> float | None:
        return self.metrics.get(name)


@dataclass
class Campaign:
    id: str
    name: str
    index: int | None  # position in ``campaigns`` (None: known from daily rows only)
    raw: dict[str, Any]

    @property
    def pointer(self) -> str | None:
        return f"/campaigns/{self.index}" if self.index is not None else None

    def text(self, key: str) -> str:
        value = self.raw.get(key)
        return str(value).upper() if value is not None else ""

    @property
    def enabled(self) -> bool:
        return self.text("status") in ("", "ENABLED", "ACTIVE")

    @property
    def is_brand(self) -> bool:
        """Brand by name; the economics check lives in concentration.py."""
        return is_brand_name(self.name)


@dataclass
class Series:
    """Everything the detectors share, built by ``build_series``."""

    data: dict[str, Any]
    platform: str
    currency: str
    period_start: date | None
    period_end: date | None
    as_of: date | None
    last_complete: date | None
    campaigns: dict[str, Campaign]
    notes: list[str] = field(default_factory=list)  # what could not be read, for the log
    # (date, campaign) -> Totals, account date -> Totals, campaign -> Totals
    cells: dict[tuple[date, str], Totals] = field(default_factory=dict)
    days: dict[date, Totals] = field(default_factory=dict)
    # per campaign over the period (period.start to period.end, as the derived index counts "the period")
    campaign_totals: dict[str, Totals] = field(default_factory=dict)
    # the snapshot's shared reading of its rows, as columns: a check over every row reads these first
    view: DailyRows = field(default_factory=lambda: DailyRows([]))
    # each metric as the rows' ``metrics`` hold it, by row index (None: absent, unreadable or out of range)
    values: dict[str, Column] = field(default_factory=dict, repr=False)
    # (row index, metric, the raw value) of each value read as None or from text, in row order
    bad_cells: list[tuple[int, str, Any]] = field(default_factory=list, repr=False)
    # what a check computes from the built series and asks for again (per campaign, per scope), by key
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    # -- rows: each made when first read, from the shared reading -----------

    @cached_property
    def _made(self) -> "_RowMaker":
        return _RowMaker(self.view, self.values)

    @cached_property
    def rows(self) -> Sequence[Row]:
        """The usable rows (a date and a campaign), in row order."""
        return _Rows(self._made)

    @cached_property
    def bad_values(self) -> list[tuple[Row, str, Any]]:
        """(row, metric, the raw value) of each value that is null, unreadable, out of range or text."""
        row = self._made.row
        return [(row(index), name, raw) for index, name, raw in self.bad_cells]

    @cached_property
    def rows_by_cell(self) -> Mapping[tuple[date, str], list[Row]]:
        """Rows by (date, campaign), to find duplicates and cite pointers."""
        view = self.view
        days = view.days

        def rows_of(key: tuple[date, str]) -> list[int]:
            day, campaign_id = key
            return [i for i in view.by_campaign.get(campaign_id, ()) if days[i] == day]

        return _RowsBy(self._made, rows_of, lambda: ((day, cid) for cid, day in view.cells.keys), len(view.cells))

    @cached_property
    def rows_by_day(self) -> Mapping[date, list[Row]]:
        by_day = self.view.by_day
        return _RowsBy(self._made, lambda day: by_day.get(day, []), lambda: iter(by_day), len(by_day))

    @cached_property
    def rows_by_campaign(self) -> Mapping[str, list[Row]]:
        """Rows by campaign, in row order: a detector reads one campaign's rows without scanning them all."""
        by_campaign = self.view.by_campaign
        return _RowsBy(self._made, lambda cid: by_campaign.get(cid, []), lambda: iter(by_campaign), len(by_campaign))

    def holds(self, name: str) -> bool:
        """Whether a usable row has the field ``name`` (a value, a number or not)."""
        view = self.view
        column, odd = view.columns[name], view.irregular
        return (any(column[i] is not None for i in view.usable)
                or any(name in odd[i] for i in odd if view.days[i] is not None and view.campaigns[i] is not None))

    def reads(self, name: str) -> bool:
        """Whether a usable row has a number for ``name`` (as its ``metrics`` hold it)."""
        column = self.values[name]
        return any(column[i] is not None for i in self.view.usable)

    # -- dates ---------------------------------------------------------------

    @property
    def dates(self) -> list[date]:
        """Dates that have at least one row, sorted."""
        return sorted(self.days)

    @property
    def last_date(self) -> date | None:
        return max(self.days) if self.days else None

    def complete_dates(self) -> list[date]:
        """Dates with rows up to the last complete date (the partial as_of day excluded)."""
        end = self.last_complete
        return [d for d in self.dates if end is None or d <= end]

    def last_days(self, n: int) -> list[date]:
        """The ``n`` calendar days ending on the last complete day (the derived index's windows)."""
        end = self.last_complete or self.last_date
        if end is None:
            return []
        return [end - timedelta(days=i) for i in range(n - 1, -1, -1)]

    def rows_of(self, campaign_ids: Iterable[str]) -> list[Row]:
        """The rows of these campaigns, in the snapshot's row order."""
        ids = list(dict.fromkeys(campaign_ids))
        if len(ids) == 1:
            return list(self.rows_by_campaign.get(ids[0], ()))
        return sorted((r for cid in ids for r in self.rows_by_campaign.get(cid, ())), key=lambda r: r.index)

    def days_of(self, campaign_id: str) -> set[date]:
        """The dates on which a campaign has rows."""
        days = self.view.days
        return {days[i] for i in self.view.by_campaign.get(campaign_id, ())}  # type: ignore[misc]

    def served_days(self, campaign_id: str, until: date | None = None) -> list[date]:
        """The days a campaign served (a row with impressions above 0), up to ``until`` when given, sorted."""
        days, impressions = self.view.days, self.values["impressions"]
        served: set[date] = {days[i] for i in self.view.by_campaign.get(campaign_id, ())  # type: ignore[misc]
                             if (impressions[i] or 0) > 0}
        return sorted(d for d in served if until is None or d <= until)

    # -- totals --------------------------------------------------------------

    def cell(self, day: date, campaign_id: str) -> Totals:
        return self.cells.get((day, campaign_id)) or Totals()

    def day_total(self, day: date) -> Totals:
        return self.days.get(day) or Totals()

    def window(self, dates: Iterable[date], campaign_id: str | None = None) -> Totals:
        """Totals over ``dates`` for one campaign, or the account when None."""
        if campaign_id is None:
            return total(self.days[d] for d in dates if d in self.days)
        return total(self.cells[(d, campaign_id)] for d in dates if (d, campaign_id) in self.cells)

    def in_period(self, day: date) -> bool:
        return (self.period_start is None or day >= self.period_start) and (self.period_end is None or day <= self.period_end)

    @cached_property
    def account(self) -> Totals:
        """The account over the period (rows dated outside it are a data finding, not spend). Summed
        once, when first read after the series is built (the checks read it once per campaign):
        read it, do not modify it."""
        return total(t for d, t in self.days.items() if self.in_period(d))

    def share_of_account_spend(self, campaign_id: str) -> float:
        """The campaign's cost over the period over the account's (0 when the account spent nothing)."""
        account = self.account.cost
        tot = self.campaign_totals.get(campaign_id)
        return tot.cost / account if tot is not None and account > 0 else 0.0

    def campaign_name(self, campaign_id: str) -> str:
        camp = self.campaigns.get(campaign_id)
        return camp.name if camp and camp.name else campaign_id

    def label(self, campaign_id: str) -> str:
        """``campaign 333 (Search | Generic)``: ids and names are not figures when quoted verbatim."""
        name = self.campaign_name(campaign_id)
        return f"campaign {campaign_id} ({name})" if name != campaign_id else f"campaign {campaign_id}"

    @property
    def is_meta(self) -> bool:
        return meta_platform(self.platform)

    def indexed(self, key: str) -> list[tuple[int, dict[str, Any]]]:
        """An optional list section (``budgets``, ``search_terms``...): its objects with their positions."""
        value = self.data.get(key)
        if not isinstance(value, list):
            return []
        return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]

    def section(self, key: str) -> list[dict[str, Any]]:
        """An optional list section, only its objects."""
        return [item for _, item in self.indexed(key)]

    def targets(self) -> dict[str, Any]:
        value = self.data.get("targets")
        return value if isinstance(value, dict) else {}

    def target(self, key: str) -> float | None:
        value = number(self.targets().get(key))
        return value if value is not None and value > 0 else None


def build_series(data: Any) -> Series:
    """Read a parsed snapshot into a ``Series``; never raises on bad content."""
    if not isinstance(data, dict):
        data = {}
    notes: list[str] = []
    account = data.get("account") if isinstance(data.get("account"), dict) else {}
    period = data.get("period") if isinstance(data.get("period"), dict) else {}
    if not period:
        notes.append("period is missing: dates are taken from the daily rows")
    platform = str(data.get("platform") or "").lower()
    currency = str(account.get("currency_code") or "")

    campaigns: dict[str, Campaign] = {}
    raw_campaigns = data.get("campaigns")
    if raw_campaigns is not None and not isinstance(raw_campaigns, list):
        notes.append("campaigns is not a list: campaign names and statuses are unknown")
        raw_campaigns = []
    for index, camp in enumerate(raw_campaigns or []):
        if isinstance(camp, dict) and camp.get("id") is not None:
            cid = str(camp["id"])
            campaigns[cid] = Campaign(cid, str(camp.get("name") or ""), index, camp)

    series = Series(
        data=data,
        platform=platform,
        currency=currency,
        period_start=parse_day(period.get("start")),
        period_end=parse_day(period.get("end")),
        as_of=parse_day(period.get("as_of")),
        last_complete=None,
        campaigns=campaigns,
        notes=notes,
        view=daily_rows(data),
    )
    daily = data.get("daily")
    if not isinstance(daily, list):
        notes.append("daily is missing or not a list: nothing day-by-day can be assessed")
    elif not daily:
        notes.append("daily is empty: nothing day-by-day can be assessed")
    _read_rows(series, series.view)

    series.last_complete = last_complete_day(period, series.period_end, series.last_date)
    quoted = [f"/daily/{index}/{name}" for index, name, raw in series.bad_cells
              if isinstance(raw, str) and number(raw) is not None]
    if quoted:
        notes.append(f"{len(quoted)} value(s) are numbers written as text, read as numbers (first: {quoted[0]})")
    return series


def _read_rows(series: Series, view: DailyRows) -> None:
    """The snapshot's shared reading (``DailyRows``) into the series: the notes of the rows it skips,
    the campaigns known only from rows, each metric as the rows hold it, and the totals per cell, day and
    campaign, summed column by column in row order. The ``Row`` objects are made when first asked for."""
    days, campaign_ids = view.days, view.campaigns
    not_objects = set(view.not_objects)
    skipped = len(view.usable) != len(days)  # rows without a date or a campaign, each noted
    usable = set(view.usable) if skipped else set()
    for index in range(len(days)) if skipped else ():
        if index in usable:
            continue
        if index in not_objects:
            series.notes.append(f"/daily/{index} is not an object: skipped")
        elif days[index] is None:
            series.notes.append(f"/daily/{index}/date {view.rows[index].get('date')!r} is not a YYYY-MM-DD date: row skipped")
        else:
            series.notes.append(f"/daily/{index} has no campaign_id: row skipped")
    campaigns = series.campaigns
    for campaign_id in view.by_campaign:
        if campaign_id not in campaigns:
            campaigns[campaign_id] = Campaign(campaign_id, "", None, {"id": campaign_id})
    # A value out of range reads as None, as a null does
    values = series.values
    for name in _ROW_METRICS:
        column = view.columns[name]
        if not view.bounds.get(name, 0.0) < MAX_METRIC:
            column = tuple([v if v is None or -MAX_METRIC < v < MAX_METRIC else None for v in column])
        values[name] = column
    # Null or text where a number belongs (a quoted number is read, and still noted)
    irregular = view.irregular
    suspects = sorted({*irregular, *(i for name in _ROW_METRICS if values[name] is not view.columns[name]
                                     for i, v in enumerate(view.columns[name]) if v is not None and values[name][i] is None)})
    for index in suspects:
        if days[index] is None or campaign_ids[index] is None:
            continue
        raw = view.rows[index]
        for name, value in _metrics_of(view, values, index).items():
            if value is None or isinstance(raw[name], str):
                series.bad_cells.append((index, name, raw[name]))
    _sum_totals(series, view)


def _sum_totals(series: Series, view: DailyRows) -> None:
    """The totals per (date, campaign), per date and per campaign over the period: each metric summed
    over the group's rows in row order (``Totals.add_values``, one column at a time)."""
    metric_columns = [series.values[name] for name in METRICS]
    all_conversions = metric_columns[-1]  # a group with one makes ``has_all_conversions``

    def totals(groups: Groups) -> list[Totals]:
        sums = [view.cell_sums(name) if groups is view.cells and column is view.columns[name] else groups.sums(column)
                for name, column in zip(METRICS, metric_columns)]
        return list(map(Totals, *sums, groups.counts(), groups.any_present(all_conversions)))

    cells = view.cells
    series.cells = dict(zip([(day, cid) for cid, day in cells.keys], totals(cells)))
    series.days = dict(zip(view.by_day, totals(Groups.of(view.by_day))))
    start, end = series.period_start, series.period_end
    by_campaign = view.by_campaign
    if not all((start is None or day >= start) and (end is None or day <= end) for day in view.by_day):
        days = view.days
        by_campaign = {}
        for cid, group in view.by_campaign.items():
            inside = [i for i in group if series.in_period(days[i])]  # type: ignore[arg-type]
            if inside:
                by_campaign[cid] = inside
        # in the order of each campaign's first row inside the period
        by_campaign = dict(sorted(by_campaign.items(), key=lambda item: item[1][0]))
    series.campaign_totals = dict(zip(by_campaign, totals(Groups.of(by_campaign))))


def _metrics_of(view: DailyRows, values: dict[str, Column], index: int) -> dict[str, float | None]:
    """One row's ``Row.metrics``: the fields it has (a number, or a value listed as irregular), each as
    ``values`` holds it (None: null, unreadable or out of range)."""
    odd = view.irregular.get(index, ())
    return {name: values[name][index] for name in _ROW_METRICS
            if view.columns[name][index] is not None or name in odd}


class _RowMaker:
    """The ``Row`` of each usable row of a series, made when first read and then kept: most checks read
    the columns and the totals, and only a few rows (those a finding cites) are ever looked at."""

    def __init__(self, view: DailyRows, values: dict[str, Column]) -> None:
        self.view, self.values = view, values
        self.made: dict[int, Row] = {}
        self.every: list[Row] | None = None

    def row(self, index: int) -> Row:
        made = self.made.get(index)
        if made is None:
            view = self.view
            made = self.made[index] = Row(index, view.days[index], view.campaigns[index],  # type: ignore[arg-type]
                                          _metrics_of(view, self.values, index), view.rows[index])
        return made

    def all(self) -> list[Row]:
        """Every usable row, in row order (the rows made before kept as they are)."""
        if self.every is None:
            view, values, made = self.view, self.values, self.made
            usable = view.usable
            columns = view.columns
            present = [name for name in _ROW_METRICS if name in view.bounds or None not in columns[name]]
            if not view.irregular and all(values[name] is columns[name] and None not in columns[name]
                                          for name in present):
                # Every row has the same fields, all plain numbers: the metrics dicts made column by column
                metrics = [dict(zip(present, row_values)) for row_values in zip(*(columns[name] for name in present))]
                if len(usable) != len(view.rows):
                    metrics = [metrics[i] for i in usable]
            else:
                metrics = [_metrics_of(view, values, i) for i in usable]
            columns_of_rows: list[Sequence[Any]] = [view.days, view.campaigns, view.rows]
            if len(usable) != len(view.rows):
                columns_of_rows = [[column[i] for i in usable] for column in columns_of_rows]
            every = list(map(Row, usable, *columns_of_rows[:2], metrics, columns_of_rows[2]))
            if made:  # the rows made before are kept: one object per row
                every = [made.get(row.index, row) for row in every]
            made.update(zip(usable, every))
            self.every = every
        return self.every


class _Rows(Sequence[Row]):
    """A series' usable rows in row order, each made when read: its length is known without them."""

    def __init__(self, maker: _RowMaker) -> None:
        self._maker = maker

    def __len__(self) -> int:
        return len(self._maker.view.usable)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        usable = self._maker.view.usable
        if isinstance(index, slice):
            return [self._maker.row(i) for i in usable[index]]
        return self._maker.row(usable[index])

    def __iter__(self) -> Iterator[Row]:
        return iter(self._maker.all())

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, (_Rows, list)) else other)


class _RowsBy(Mapping[Any, list[Row]]):
    """Usable rows grouped by a key, in row order, each group made when first read."""

    def __init__(self, maker: _RowMaker, indices: Callable[[Any], list[int]], keys: Callable[[], Iterator[Any]],
                 count: int) -> None:
        self._maker, self._indices, self._keys, self._count = maker, indices, keys, count
        self._groups: dict[Any, list[Row]] = {}

    def __getitem__(self, key: Any) -> list[Row]:
        group = self._groups.get(key)
        if group is None:
            indices = self._indices(key)
            if not indices:
                raise KeyError(key)
            row = self._maker.row
            group = self._groups[key] = [row(i) for i in indices]
        return group

    def __iter__(self) -> Iterator[Any]:
        return self._keys()

    def __len__(self) -> int:
        return self._count


_ROW_METRICS = COLUMNS  # the shared reading's columns: METRICS, then SHARES
_METRIC_COUNT = len(METRICS)
assert COLUMNS[:_METRIC_COUNT] == METRICS
