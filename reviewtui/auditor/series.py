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
from datetime import date, datetime, timedelta
from typing import Any, Iterable

# One reading of numbers, dates and the last complete day for the auditor and the scoring
from ..caseset.daily_rows import COLUMNS, DailyRows, daily_rows
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


@dataclass
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
        """One row's ``METRICS``, in order (None: the row has no number there)."""
        # Spelled out: every row is added three times when the series is built
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
    result = Totals()
    for item in items:
        result.merge(item)
    return result


@dataclass
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
    rows: list[Row]
    campaigns: dict[str, Campaign]
    notes: list[str] = field(default_factory=list)  # what could not be read, for the log
    bad_values: list[tuple[Row, str, Any]] = field(default_factory=list)  # (row, metric, the raw value)
    # (date, campaign) -> Totals, account date -> Totals, campaign -> Totals
    cells: dict[tuple[date, str], Totals] = field(default_factory=dict)
    days: dict[date, Totals] = field(default_factory=dict)
    # per campaign over the period (period.start to period.end, as the derived index counts "the period")
    campaign_totals: dict[str, Totals] = field(default_factory=dict)
    # rows by (date, campaign), to find duplicates and cite pointers
    rows_by_cell: dict[tuple[date, str], list[Row]] = field(default_factory=dict)
    rows_by_day: dict[date, list[Row]] = field(default_factory=dict)
    # rows by campaign, in row order: a detector reads one campaign's rows without scanning them all
    rows_by_campaign: dict[str, list[Row]] = field(default_factory=dict)
    # the snapshot's shared reading of its rows, as columns: a check over every row reads these first
    view: DailyRows = field(default_factory=lambda: DailyRows([]))
    # what a check computes from the built series and asks for again (per campaign, per scope), by key
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

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
        return {r.day for r in self.rows_by_campaign.get(campaign_id, ())}

    def served_days(self, campaign_id: str, until: date | None = None) -> list[date]:
        """The days a campaign served (a row with impressions above 0), up to ``until`` when given, sorted."""
        return sorted({r.day for r in self.rows_by_campaign.get(campaign_id, ())
                       if (r.get("impressions") or 0) > 0 and (until is None or r.day <= until)})

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
        rows=[],
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
    quoted = [f"{row.pointer}/{name}" for row, name, raw in series.bad_values if isinstance(raw, str) and number(raw) is not None]
    if quoted:
        notes.append(f"{len(quoted)} value(s) are numbers written as text, read as numbers (first: {quoted[0]})")
    return series


def _read_rows(series: Series, view: DailyRows) -> None:
    """The rows of the snapshot's shared reading (``DailyRows``), in row order, into the series' tables
    by cell, day and campaign, and into their totals."""
    not_objects = set(view.not_objects)
    irregular = view.irregular
    add_row = series.rows.append
    campaigns, cells, days, campaign_totals = series.campaigns, series.cells, series.days, series.campaign_totals
    by_cell, by_day, by_campaign = series.rows_by_cell, series.rows_by_day, series.rows_by_campaign
    start, end = series.period_start, series.period_end
    for index, (raw, day, campaign_id, values) in enumerate(
            zip(view.rows, view.days, view.campaigns, zip(*view.columns.values()))):
        if day is None or campaign_id is None:
            if index in not_objects:
                series.notes.append(f"/daily/{index} is not an object: skipped")
            elif day is None:
                series.notes.append(f"/daily/{index}/date {raw.get('date')!r} is not a YYYY-MM-DD date: row skipped")
            else:
                series.notes.append(f"/daily/{index} has no campaign_id: row skipped")
            continue
        odd = irregular.get(index)
        metrics: dict[str, float | None]
        if odd is None:  # plain numbers only: the field is present when its value is
            metrics = {name: v for name, v in zip(_ROW_METRICS, values) if v is not None}
            over = [name for name, v in metrics.items() if not -MAX_METRIC < v < MAX_METRIC]  # type: ignore[operator]
        else:
            metrics = {name: v for name, v in zip(_ROW_METRICS, values) if v is not None or name in odd}
            over = [name for name, v in metrics.items() if v is not None and not -MAX_METRIC < v < MAX_METRIC]
        for name in over:
            metrics[name] = None
        row = Row(index, day, campaign_id, metrics, raw)
        # Null or text where a number belongs (a quoted number is read, and still noted)
        if odd is not None or over:
            for n, value in metrics.items():
                if value is None or isinstance(raw[n], str):
                    series.bad_values.append((row, n, raw[n]))
        add_row(row)
        # Filed by cell, day and campaign, each table's entry made only when missing: this runs for
        # every row of a 100,000-row snapshot
        if campaign_id not in campaigns:
            campaigns[campaign_id] = Campaign(campaign_id, "", None, {"id": campaign_id})
        key = (day, campaign_id)
        if (rows := by_cell.get(key)) is None:
            by_cell[key] = [row]
        else:
            rows.append(row)
        if (rows := by_day.get(day)) is None:
            by_day[day] = [row]
        else:
            rows.append(row)
        if (rows := by_campaign.get(campaign_id)) is None:
            by_campaign[campaign_id] = [row]
        else:
            rows.append(row)
        # The row's METRICS (the first columns), as its metrics have them
        sums = values[:_METRIC_COUNT] if not over and odd is None else [metrics.get(name) for name in METRICS]
        if (totals := cells.get(key)) is None:
            cells[key] = totals = Totals()
        totals.add_values(*sums)
        if (totals := days.get(day)) is None:
            days[day] = totals = Totals()
        totals.add_values(*sums)
        if (start is None or day >= start) and (end is None or day <= end):  # Series.in_period
            if (totals := campaign_totals.get(campaign_id)) is None:
                campaign_totals[campaign_id] = totals = Totals()
            totals.add_values(*sums)


_ROW_METRICS = COLUMNS  # the shared reading's columns: METRICS, then SHARES
_METRIC_COUNT = len(METRICS)
assert COLUMNS[:_METRIC_COUNT] == METRICS
