"""Source rows to a snapshot: campaign x day sums, the period, the currency, and the import's notes.

Sums are exact (``Decimal`` over the exported text); a cost written as
``1.429999948`` stays that number. Rows below campaign level (ad set, ad) are
summed per campaign and day and the grain is recorded in ``source.grain``;
``keep_ads`` keeps them, unsummed, in ``ad_daily``. The rows are streamed:
what is kept per row is the campaign-day sums and a 16-byte digest of what the
row is about, to find a row that repeats another.
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..caseset.account_codes import currency_code_problem
from ..caseset.snapshot import LIMITS
from .csvread import InputError
from .numbers import currency_problem
from .rows import NOT_SUMMED, SUMMED, FileRows, SourceRow

SCHEMA_VERSION = "1.0"
# Longer than this and the export is several months: refused unless the period is named.
MAX_DAYS_WITHOUT_FLAGS = 31


@dataclass
class Settings:
    platform: str
    format: str
    account_id: str | None = None
    account_name: str | None = None
    time_zone: str | None = None
    currency: str | None = None
    start: date | None = None
    end: date | None = None
    as_of: date | None = None
    month: date | None = None  # the first day of the month to take out of a longer export
    keep_ads: bool = False
    # What a campaign and day without a row means; a platform download says it (no delivery),
    # a mapped CSV only when its mapping does: a data set may have dropped rows.
    missing_row_means: str | None = None


@dataclass
class Period:
    start: date
    end: date
    as_of: date
    last_complete: date
    source: str  # where the period was read, for the report
    source_kind: str  # flags, month, export_range, reporting_dates, rows
    cut: bool = False  # rows outside it are left out (--month), not refused
    notes: list[str] = field(default_factory=list)


@dataclass
class Built:
    snapshot: dict[str, Any]
    notes: list[str]
    period: Period
    file_totals: dict[str, dict[str, Decimal]]  # per campaign, the exact sums of the rows used
    used: list[int]  # rows used, per file
    outside: list[tuple[int, int]]  # rows left out by --month, per file: (count, first line)


def _num(value: Decimal) -> int | float:
    """JSON number for an exact Decimal: integers stay integers, others the nearest float."""
    if value == value.to_integral_value() and abs(value) < 2**53:
        return int(value)
    return float(value)


def _currency(files: list[FileRows], settings: Settings) -> str:
    # (code, file, line, column, where it was read) for each currency the exports name
    seen: dict[str, tuple[Path, int, str | None, str]] = {}
    for f in files:
        found = ([(f.currency.upper(), f.path, 1, None, f.currency_source or "a header")] if f.currency else []) + [
            (code, f.path, line, f.currency_column or "currency", f"{f.path.name}:{line}")
            for code, line in sorted(f.currencies.items(), key=lambda kv: kv[1])]
        for code, path, line, column, where in found:
            if problem := currency_code_problem(code):
                raise InputError(path, line, f"the currency {problem} (from {where}); export the report again, or "
                                 "fix the mapping's currency", column)
            seen.setdefault(code, (path, line, column, where))
            if len(seen) > 1:
                first, (path2, line2, column2, _w) = next(iter(seen.items())), seen[code]
                raise InputError(path2, line2, f"the currency changes from {first[0]} (from {first[1][3]}) to {code}; "
                                 "export one currency per file and import each account on its own", column2)
    if settings.currency:
        if seen and settings.currency.upper() not in seen:
            code, (path, line, column, where) = next(iter(seen.items()))
            raise InputError(path, line, f"--currency {settings.currency}, but the export says {code} (from {where}); "
                             "leave --currency out, or import the export of that currency's account", column)
        currency = settings.currency.upper()
    elif not seen:
        raise InputError(files[0].path, 1, "no currency in the export (no currency column, none in a header); "
                         "pass --currency, e.g. --currency USD")
    else:
        currency = next(iter(seen))
    for f in files:
        for column, marks in f.money_marks.items():
            mismatch = currency_problem(marks, currency)
            if mismatch:
                raise InputError(f.path, mismatch[0], mismatch[1], column)
    return currency


def _month_bounds(first: date) -> tuple[date, date]:
    return first, first.replace(day=calendar.monthrange(first.year, first.month)[1])


def last_whole_month(start: date, end: date) -> date | None:
    """The first day of the last calendar month lying whole inside start..end, if any."""
    month = end.replace(day=1)
    while month >= start:
        first, last = _month_bounds(month)
        if first >= start and last <= end:
            return first
        month = (month - timedelta(days=1)).replace(day=1)
    return None


def _period(files: list[FileRows], settings: Settings) -> Period:
    """The period, where it was read, as_of and the last complete day.

    ``--month`` or ``--start``/``--end``, else the export's own range (its range line, or
    Meta's reporting dates), else the first and last day with data. An export longer
    than a month is refused unless the period is named. ``as_of`` defaults to the day
    after the period (closed, every day complete), except when the period ends on the
    day the file was saved: that day may be partial.
    """
    spans = [f.days for f in files if f.days]
    ranges = [f for f in files if f.period]
    if ranges:
        start, end = min(f.period[0] for f in ranges), max(f.period[1] for f in ranges)  # type: ignore[index]
        source = "; ".join(dict.fromkeys(f.period_source or "" for f in ranges))
        kind = ranges[0].period_kind or "export_range"
    else:
        start, end = min(s[0] for s in spans), max(s[1] for s in spans)
        source, kind = "the first and last day with a row (the export names no date range)", "rows"
    cut = False
    if settings.month:
        start, end = _month_bounds(settings.month)
        source, kind, cut = f"--month {settings.month:%Y-%m} (rows outside it left out)", "month", True
    elif settings.start or settings.end:
        start, end = settings.start or start, settings.end or end
        source, kind = "--start/--end", "flags"
    if end < start:
        raise InputError(files[0].path, 1, f"the period ends ({end}) before it starts ({start}); fix --start/--end")
    days = (end - start).days + 1
    if kind not in ("month", "flags") and days > MAX_DAYS_WITHOUT_FLAGS:
        month = last_whole_month(start, end)
        offer = (f"pass --month {month:%Y-%m} (the last whole month in it) to take that month, or " if month else "pass ")
        raise InputError(files[0].path, 1, f"the export covers {start} to {end} ({days} days, from {source}); a "
                         "snapshot is one month of an account, and an audit over several months reads their changes "
                         f"as faults: {offer}--start and --end for the period to audit")
    if kind == "rows":
        _refuse_unstated_range(files, start, end)
    notes: list[str] = []
    as_of = settings.as_of or end + timedelta(days=1)
    if settings.as_of is None and kind != "month":
        saved = [f for f in files if f.mtime and datetime.fromtimestamp(f.mtime).date() == end]
        if saved:
            as_of = end
            notes.append(f"the period ends on {end}, the day {saved[0].path.name} was saved: that day may be partial, "
                         f"so as_of is {end} and the last complete day {end - timedelta(days=1)} (pass --as-of to say "
                         "otherwise)")
    last_complete = min(end, as_of - timedelta(days=1))
    return Period(start, end, as_of, last_complete, source, kind, cut, notes)


def _refuse_unstated_range(files: list[FileRows], start: date, end: date) -> None:
    """A period read from the rows alone is the export's only when it is a whole month.

    Without a range of its own (a range line, Meta's summary row) an export cut at a line break,
    and an account that stopped before the range ended, both look like a shorter period: the
    stop, and the cut, would vanish. The user names the range.
    """
    unreadable = next((f for f in files if f.unreadable_range), None)
    if unreadable is not None:
        line, text = unreadable.unreadable_range  # type: ignore[misc]
        raise InputError(unreadable.path, line, f"{text!r} looks like the export's date range, but the import cannot "
                         "read it (the languages it reads are in docs/cases.md, 'The period'); pass --start and --end "
                         "with the range it names (YYYY-MM-DD)")
    if start.day == 1 and end == _month_bounds(start)[1]:
        return
    raise InputError(files[0].path, 1, f"the export names no date range (no date-range line above the header, no "
                     f"summary row, rows whose reporting dates are their own day) and its rows run {start} to {end}, "
                     "not a whole month: a file cut short, or an account that stopped before the range ended, would "
                     "look the same; pass --start and --end with the range you exported (or --month YYYY-MM), or "
                     "export again with the summary row (Meta: 'Include summary row') or the date-range line")


def refuse_cut_rows(files: list[FileRows], settings: Settings) -> None:
    """A range the export states, rows ending before it, and no total confirming them: a cut file.

    A file cut at a line break reads whole; its range line or summary row still names the range.
    A real stop of the whole account shows the same rows, and a total over every row that agrees
    with them tells the two apart (or the user's --start/--end).
    """
    if settings.month or settings.start or settings.end:
        return
    for f in files:
        if f.period is None or f.days is None or f.days[1] >= f.period[1] or f.totals_verified:
            continue
        start, end = f.period
        raise InputError(f.path, f.period_line or 1, f"the export's range runs {start} to {end} ({f.period_source}), "
                         f"but its rows end on {f.days[1]} and no total row over every row confirms them: the file "
                         "looks cut off (a download stopped at a line break); download the report again. If the file "
                         f"is whole (the whole account stopped after {f.days[1]}), pass --start {start} --end {end} "
                         "to confirm the range")


def _grain(files: list[FileRows]) -> str:
    levels = {f.grain for f in files}
    return "ad" if "ad" in levels else "ad_set" if "ad_set" in levels else "campaign"


class _Cell:
    """One campaign and day: the sums of its rows, and the first row's non-additive values."""

    __slots__ = ("count", "sums", "single")

    def __init__(self, row: SourceRow) -> None:
        self.count = 1
        self.sums = [row.numbers.get(m) for m in SUMMED]
        self.single = {m: v for m in NOT_SUMMED if (v := row.numbers.get(m)) is not None}

    def add(self, row: SourceRow) -> None:
        self.count += 1
        for i, metric in enumerate(SUMMED):
            value = row.numbers.get(metric)
            if value is not None:
                current = self.sums[i]
                self.sums[i] = value if current is None else current + value


class _Aggregator:
    def __init__(self, files: list[FileRows], settings: Settings, period: Period) -> None:
        self.files, self.settings, self.period = files, settings, period
        self.grain = _grain(files)
        self.cells: dict[tuple[date, str], _Cell] = {}
        self.campaigns: dict[str, dict[str, Any]] = {}
        self.seen: dict[bytes, int] = {}  # row identity -> file index << 32 | line
        self.names_by_day: dict[tuple[date, str], tuple[int, int, str]] = {}  # campaigns without ids
        self.account_ids: set[str] = set()
        self.account_names: set[str] = set()
        self.totals: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
        self.ad_rows: list[dict[str, Any]] = []
        self.conversions_above_clicks: str | None = None
        self.used = [0] * len(files)
        self.outside = [(0, 0)] * len(files)

    def add(self, index: int, f: FileRows, row: SourceRow) -> None:
        period = self.period
        if not period.start <= row.date <= period.end:
            if period.cut:
                count, first = self.outside[index]
                self.outside[index] = (count + 1, first or row.line)
                return
            raise InputError(f.path, row.line, f"the day {row.date} is outside the period {period.start} to "
                             f"{period.end}; widen --start/--end, export only the period, or pass --month YYYY-MM "
                             "to take one month out of a longer export")
        self._repeat(index, f, row)
        self.used[index] += 1
        key = row.key()
        camp = self.campaigns.get(key)
        if camp is None:
            camp = self.campaigns[key] = {"id": key}
        text = row.text
        if "campaign_name" in text:
            camp.setdefault("name", text["campaign_name"])
        if "campaign_status" in text:
            camp["status"] = text["campaign_status"].upper()
        if "delivery_status" in text:
            camp["delivery_status"] = text["delivery_status"]
        if "campaign_id" not in text:
            self._same_name(index, f, row)
        cell = self.cells.get((row.date, key))
        if cell is None:
            self.cells[(row.date, key)] = _Cell(row)
        else:
            cell.add(row)
        if "account_id" in text:
            self.account_ids.add(text["account_id"])
        if "account_name" in text:
            self.account_names.add(text["account_name"])
        totals = self.totals[key]
        for metric in SUMMED:
            value = row.numbers.get(metric)
            if value is not None:
                totals[metric] += value
        if self.conversions_above_clicks is None:
            conv, clicks = row.numbers.get("conversions"), row.numbers.get("clicks")
            if conv is not None and clicks is not None and conv > clicks:
                why = ("view-through conversions count without a click" if self.settings.platform == "meta_ads"
                       else "one click can count several conversions (counting MANY_PER_CLICK)")
                self.conversions_above_clicks = (f"conversions above clicks on some rows, first at line {row.line} "
                                                 f"({conv} > {clicks}): kept, {why}")
        if self.settings.keep_ads and self.grain != "campaign":
            if len(self.ad_rows) >= LIMITS.max_items:
                raise InputError(f.path, row.line, f"more than {LIMITS.max_items:,} rows below campaign level: a "
                                 "snapshot with them in ad_daily would be over the limit `reviewtui check` accepts "
                                 f"({LIMITS.max_items:,} entries in one list); import without --keep-ads, or a "
                                 "shorter period")
            self.ad_rows.append({"date": row.date.isoformat(), "campaign_id": key, "_line": (index, row.line),
                                 **{k: text[k] for k in ("ad_set_id", "ad_set_name", "ad_id", "ad_name") if k in text},
                                 **{m: _num(v) for m in (*SUMMED, *NOT_SUMMED)
                                    if (v := row.numbers.get(m)) is not None}})

    def _repeat(self, index: int, f: FileRows, row: SourceRow) -> None:
        """Refuse a row about the same day and thing as an earlier one: summed, it would count twice."""
        earlier = self.seen.get(row.identity)
        if earlier is None:
            self.seen[row.identity] = index << 32 | row.line
            return
        first_file, first_line = self.files[earlier >> 32], earlier & 0xFFFFFFFF
        mine = f.cells_at(row.line)
        theirs = first_file.cells_at(first_line)
        whole = mine == theirs
        below = next((row.text[k] for k in ("ad_id", "ad_name", "ad_set_id", "ad_set_name") if k in row.text), None)
        about = f"{row.key()}, {row.date}" + (f", {self.grain.replace('_', ' ')} {below}" if below else "")
        if first_file is not f:
            what = "repeats" if whole else "is about the same day and ids as"
            raise InputError(f.path, row.line, f"{what} {first_file.path}:{first_line}" + (" whole (same day, ids and "
                             "figures)" if whole else f" ({about}) with other figures") + ": the same rows in two files "
                             "would be counted twice; pass each export once, or exports of days that do not overlap")
        if whole:
            raise InputError(f.path, row.line, f"repeats line {first_line} whole ({about}): a repeated row would "
                             "count that day twice; remove one of the two lines, or download the report again")
        if "campaign_id" not in row.text:
            self._two_campaigns(f, row, f"line {first_line}", False)
        differ = f.differing_columns(mine, theirs)
        raise InputError(f.path, row.line, f"is about the same day and {self.grain.replace('_', ' ')} as line "
                         f"{first_line} ({about}) with other figures" + (f" (they differ in {differ})" if differ else "")
                         + ": summed, the day would count twice; remove the repeated row, or if the report splits "
                         "rows by a segment the import does not read, remove that segment from the report")

    def _same_name(self, index: int, f: FileRows, row: SourceRow) -> None:
        """Without a campaign id, two campaigns of one name would merge: refuse when the rows show two."""
        name = row.text.get("campaign_name", "")
        status = f"{row.text.get('campaign_status', '')}\x1f{row.text.get('delivery_status', '')}"
        earlier = self.names_by_day.get((row.date, name))
        if earlier is None:
            self.names_by_day[(row.date, name)] = (index, row.line, status)
            return
        first_index, first_line, first_status = earlier
        if self.grain == "campaign" or first_status != status:
            where = f"line {first_line}" if first_index == index else f"{self.files[first_index].path}:{first_line}"
            self._two_campaigns(f, row, where, first_status != status)

    def _two_campaigns(self, f: FileRows, row: SourceRow, first: str, other_status: bool) -> None:
        raise InputError(f.path, row.line, f"a second row for campaign {row.text.get('campaign_name', '')!r} on "
                         f"{row.date} ({first} is the first)" + (", with another status" if other_status else "")
                         + ", and the export has no campaign id column: two campaigns of one name would be merged "
                         "into one; add the Campaign ID column to the report and export it again")


def build(files: list[FileRows], settings: Settings) -> Built:
    """The snapshot and the report's notes; raises InputError on anything it cannot read truthfully."""
    currency = _currency(files, settings)
    period = _period(files, settings)
    agg = _Aggregator(files, settings, period)
    for index, f in enumerate(files):
        for row in f.rows():
            agg.add(index, f, row)
        f.notes.extend(note() for note in f.late_notes)
    refuse_cut_rows(files, settings)
    if not agg.cells:
        raise InputError(files[0].path, 1, f"no rows in the period {period.start} to {period.end}; pick a month "
                         "the export covers")
    notes: list[str] = list(period.notes)
    grain = agg.grain
    if not all(f.has_campaign_ids for f in files):
        notes.append("the export has no campaign id column: campaign names are used as ids (campaigns that share a "
                     "name on a day were checked; add the Campaign ID column to be sure)")

    # An export leaves a cell empty for none (Meta's blank, Google's --): a metric the
    # export has is 0 on a row without it, so every daily row carries the same fields.
    exported = [i for i, m in enumerate(SUMMED) if any(c.sums[i] is not None for c in agg.cells.values())]
    daily: list[dict[str, Any]] = []
    summed_cells = 0
    dropped_metrics: set[str] = set()
    for (day, key), cell in sorted(agg.cells.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        out: dict[str, Any] = {"date": day.isoformat(), "campaign_id": key}
        for i in exported:
            value = cell.sums[i]
            out[SUMMED[i]] = _num(value if value is not None else Decimal(0))
        if cell.count == 1:
            for metric, value in cell.single.items():
                out[metric] = _num(value)
        else:
            summed_cells += 1
            dropped_metrics |= set(cell.single)
        daily.append(out)
    if summed_cells:
        notes.append(f"{summed_cells} campaign-day(s) had several {grain.replace('_', ' ')}-level rows, summed"
                     + (f"; {', '.join(sorted(dropped_metrics))} left out there (not additive)" if dropped_metrics else ""))
    for f in files:
        notes.extend(f.notes)
    if agg.conversions_above_clicks:
        notes.append(agg.conversions_above_clicks)

    account: dict[str, Any] = {}
    account["id"] = settings.account_id or (sorted(agg.account_ids)[0] if len(agg.account_ids) == 1 else "unknown")
    name = settings.account_name or (sorted(agg.account_names)[0] if len(agg.account_names) == 1 else None)
    if name:
        account["name"] = name
    account["currency_code"] = currency
    account["time_zone"] = settings.time_zone or "UTC"
    if account["id"] == "unknown":
        notes.append("no account id in the export: account.id is 'unknown' (pass --account-id)")
    if not settings.time_zone:
        notes.append("the export does not name the account's time zone: UTC assumed (pass --time-zone)")

    start, end = period.start, period.end
    out_period: dict[str, Any] = {"start": start.isoformat(), "end": end.isoformat(),
                                  "as_of": period.as_of.isoformat(), "last_complete_date": period.last_complete.isoformat()}
    month_days = calendar.monthrange(start.year, start.month)[1]
    if start.day == 1 and end == start.replace(day=month_days):  # the period is one whole month
        out_period["days_in_month"] = month_days

    missing = sorted({m for f in files for m in f.missing if m in SUMMED}, key=SUMMED.index)
    source: dict[str, Any] = {"format": settings.format, "grain": grain, "period_from": period.source_kind}
    # Both platforms' downloads write no row for a campaign's day without delivery.
    missing_row_means = "no_delivery" if settings.format in ("meta", "google") else settings.missing_row_means
    if missing_row_means:
        source["missing_row_means"] = missing_row_means
    else:
        notes.append("the mapped export does not say what a campaign and day without a row means (no delivery, or "
                     "a row the data set dropped): source.missing_row_means is left out; if the file is a platform's "
                     "own download, add 'missing_row_means: no_delivery' to the mapping")
    if missing:
        source["metrics_missing"] = missing
    snapshot: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "platform": settings.platform,
        "source": source,
        "account": account,
        "period": out_period,
        "campaigns": list(agg.campaigns.values()),
        "daily": daily,
    }
    if settings.keep_ads and grain != "campaign":
        agg.ad_rows.sort(key=lambda r: (r["date"], r["campaign_id"], r["_line"]))
        for ad_row in agg.ad_rows:
            del ad_row["_line"]
        snapshot["ad_daily"] = agg.ad_rows
    return Built(snapshot, notes, period, {k: dict(v) for k, v in agg.totals.items()}, agg.used, agg.outside)


def cents(value: Decimal | float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def campaign_totals_snapshot(snapshot: dict[str, Any]) -> dict[str, dict[str, Decimal]]:
    """Per campaign, the sums of the snapshot's daily rows as written (read back from JSON numbers)."""
    totals: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for row in snapshot["daily"]:
        for metric in SUMMED:
            if row.get(metric) is not None:
                totals[row["campaign_id"]][metric] += Decimal(repr(row[metric]))
    return totals
