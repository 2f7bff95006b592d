"""Source rows to a snapshot: campaign x day sums, the period, and the import report.

Sums are exact (``Decimal`` over the exported text); a cost written as
``1.429999948`` stays that number. Rows below campaign level (ad set, ad) are
summed per campaign and day and the grain is recorded in ``source.grain``;
``keep_ads`` keeps them, unsummed, in ``ad_daily``.
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from .csvread import InputError
from .rows import NOT_SUMMED, SUMMED, SourceRow

SCHEMA_VERSION = "1.0"


@dataclass
class FileRows:
    """What one export file gave: its rows and what it says around them."""

    path: Path
    rows: list[SourceRow]
    rows_read: int
    dropped: list[tuple[int, str]] = field(default_factory=list)  # (line, why)
    currency: str | None = None  # from a header or the mapping
    currency_column: str | None = None
    period: tuple[date, date] | None = None  # the range the export says it covers
    notes: list[str] = field(default_factory=list)


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
    keep_ads: bool = False


def _num(value: Decimal) -> int | float:
    """JSON number for an exact Decimal: integers stay integers, others the nearest float."""
    if value == value.to_integral_value() and abs(value) < 2**53:
        return int(value)
    return float(value)


def _currency(files: list[FileRows], settings: Settings) -> str:
    seen: dict[str, tuple[Path, int, str]] = {}
    for f in files:
        if f.currency:
            seen.setdefault(f.currency, (f.path, 1, "header"))
        for row in f.rows:
            code = row.text.get("currency")
            if code:
                seen.setdefault(code.upper(), (f.path, row.line, f.currency_column or "currency"))
            if len(seen) > 1:
                first, where = list(seen.items())[0], seen[list(seen)[-1]]
                raise InputError(where[0], where[1], f"the currency changes from {first[0]} "
                                 f"(from {first[1][0].name}:{first[1][1]}) to {list(seen)[-1]}; "
                                 "export one currency per file and import each account on its own", where[2])
    if settings.currency:
        if seen and settings.currency.upper() not in seen:
            path, line, col = next(iter(seen.values()))
            raise InputError(path, line, f"--currency {settings.currency} but the export says {next(iter(seen))}", col)
        return settings.currency.upper()
    if not seen:
        raise InputError(files[0].path, 1, "no currency in the export (no currency column, none in a header); "
                         "pass --currency, e.g. --currency USD")
    return next(iter(seen))


def _period(files: list[FileRows], settings: Settings) -> tuple[date, date, date, date]:
    """start, end, as_of, last complete day.

    The export's own range (or the first and last day of data) sets the period
    unless flags do; ``as_of`` defaults to the day after the period, a closed
    period in which every day is complete.
    """
    days = [r.date for f in files for r in f.rows]
    ranges = [f.period for f in files if f.period]
    start = settings.start or (min(r[0] for r in ranges) if ranges else min(days))
    end = settings.end or (max(r[1] for r in ranges) if ranges else max(days))
    if end < start:
        raise InputError(files[0].path, 1, f"the period ends ({end}) before it starts ({start}); fix --start/--end")
    for f in files:
        for row in f.rows:
            if not start <= row.date <= end:
                raise InputError(f.path, row.line, f"the day {row.date} is outside the period {start} to {end}; "
                                 "widen --start/--end or export only the period")
    as_of = settings.as_of or end + timedelta(days=1)
    last_complete = min(end, as_of - timedelta(days=1))
    return start, end, as_of, last_complete


def repeated_rows(files: list[FileRows]) -> list[str]:
    """Rows that repeat another row whole (same day, same ids and names, same figures).

    Across files that is the same export passed twice, or two exports that overlap: summing
    would double the account, so it is refused. Within one file the repeat may be a breakdown
    the snapshot does not keep (device, placement), so it is summed and named in a note.
    """
    seen: dict[tuple, tuple[Path, int]] = {}
    within: list[str] = []
    for f in files:
        for row in f.rows:
            key = (row.date, tuple(sorted(row.text.items())), tuple(sorted(row.numbers.items())))
            first = seen.get(key)
            if first is None:
                seen[key] = (f.path, row.line)
            elif first[0] != f.path:
                raise InputError(f.path, row.line, f"repeats {first[0]}:{first[1]} whole (same day, ids and "
                                 "figures): the same rows in two files would be counted twice; pass each "
                                 "export once, or exports of days that do not overlap")
            else:
                within.append(f"{f.path}: line {row.line} repeats line {first[1]} whole "
                              f"({row.key()}, {row.date.isoformat()}); both are summed: remove one if the "
                              "export repeated it")
    return within


def _grain(rows: list[SourceRow]) -> str:
    if any("ad_id" in r.text or "ad_name" in r.text for r in rows):
        return "ad"
    if any("ad_set_id" in r.text or "ad_set_name" in r.text for r in rows):
        return "ad_set"
    return "campaign"


def build(files: list[FileRows], settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """The snapshot and the report's notes; raises InputError on anything it cannot read truthfully."""
    rows = [r for f in files for r in f.rows]
    if not rows:
        f = files[0]
        raise InputError(f.path, 1, "no data rows: the export holds only headers or totals; "
                         "export the report with a daily breakdown and at least one day")
    currency = _currency(files, settings)
    start, end, as_of, last_complete = _period(files, settings)
    grain = _grain(rows)
    notes: list[str] = repeated_rows(files)

    campaigns: dict[str, dict[str, Any]] = {}
    cells: dict[tuple[date, str], list[SourceRow]] = defaultdict(list)
    account_ids, account_names = set(), set()
    for row in rows:
        key = row.key()
        camp = campaigns.setdefault(key, {"id": key})
        if row.text.get("campaign_name"):
            camp.setdefault("name", row.text["campaign_name"])
        if row.text.get("campaign_status"):
            camp["status"] = row.text["campaign_status"].upper()
        if row.text.get("delivery_status"):
            camp["delivery_status"] = row.text["delivery_status"]
        cells[(row.date, key)].append(row)
        if row.text.get("account_id"):
            account_ids.add(row.text["account_id"])
        if row.text.get("account_name"):
            account_names.add(row.text["account_name"])
    if not any("campaign_id" in r.text for r in rows):
        notes.append("the export has no campaign id column: campaign names are used as ids")

    # An export leaves a cell empty for none (Meta's blank, Google's --): a metric the
    # export has is 0 on a row without it, so every daily row carries the same fields.
    exported = {m for r in rows for m in SUMMED if r.numbers.get(m) is not None}
    daily: list[dict[str, Any]] = []
    summed_cells = 0
    for (day, key), group in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        out: dict[str, Any] = {"date": day.isoformat(), "campaign_id": key}
        for metric in SUMMED:
            if metric in exported:
                out[metric] = _num(sum((r.numbers[metric] for r in group if r.numbers.get(metric) is not None),
                                       Decimal(0)))
        if len(group) == 1:
            for metric in NOT_SUMMED:
                if group[0].numbers.get(metric) is not None:
                    out[metric] = _num(group[0].numbers[metric])
        else:
            summed_cells += 1
        daily.append(out)
    if summed_cells:
        dropped_metrics = sorted({m for g in cells.values() if len(g) > 1 for r in g for m in NOT_SUMMED
                                  if r.numbers.get(m) is not None})
        notes.append(f"{summed_cells} campaign-day(s) had several {grain.replace('_', ' ')}-level rows, summed"
                     + (f"; {', '.join(dropped_metrics)} left out there (not additive)" if dropped_metrics else ""))
    for f in files:
        notes.extend(f.notes)
    for row in rows:
        conv, clicks = row.numbers.get("conversions"), row.numbers.get("clicks")
        if conv is not None and clicks is not None and conv > clicks:
            why = ("view-through conversions count without a click" if settings.platform == "meta_ads"
                   else "one click can count several conversions (counting MANY_PER_CLICK)")
            notes.append(f"conversions above clicks on some rows, first at line {row.line} "
                         f"({conv} > {clicks}): kept, {why}")
            break

    account: dict[str, Any] = {}
    account["id"] = settings.account_id or (sorted(account_ids)[0] if len(account_ids) == 1 else "unknown")
    name = settings.account_name or (sorted(account_names)[0] if len(account_names) == 1 else None)
    if name:
        account["name"] = name
    account["currency_code"] = currency
    account["time_zone"] = settings.time_zone or "UTC"
    if account["id"] == "unknown":
        notes.append("no account id in the export: account.id is 'unknown' (pass --account-id)")
    if not settings.time_zone:
        notes.append("the export does not name the account's time zone: UTC assumed (pass --time-zone)")

    period: dict[str, Any] = {"start": start.isoformat(), "end": end.isoformat(), "as_of": as_of.isoformat(),
                              "last_complete_date": last_complete.isoformat()}
    month_days = calendar.monthrange(start.year, start.month)[1]
    if start.day == 1 and end == start.replace(day=month_days):  # the period is one whole month
        period["days_in_month"] = month_days

    snapshot: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "platform": settings.platform,
        "source": {"format": settings.format, "grain": grain},
        "account": account,
        "period": period,
        "campaigns": list(campaigns.values()),
        "daily": daily,
    }
    if settings.keep_ads and grain != "campaign":
        snapshot["ad_daily"] = [
            {"date": r.date.isoformat(), "campaign_id": r.key(),
             **{k: r.text[k] for k in ("ad_set_id", "ad_set_name", "ad_id", "ad_name") if k in r.text},
             **{m: _num(r.numbers[m]) for m in (*SUMMED, *NOT_SUMMED) if r.numbers.get(m) is not None}}
            for r in sorted(rows, key=lambda r: (r.date, r.key(), r.line))
        ]
    return snapshot, notes


def cents(value: Decimal | float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def campaign_totals_file(files: list[FileRows]) -> dict[str, dict[str, Decimal]]:
    """Per campaign, the exact sums of the rows read from the files."""
    totals: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for f in files:
        for row in f.rows:
            for metric in SUMMED:
                if row.numbers.get(metric) is not None:
                    totals[row.key()][metric] += row.numbers[metric]
    return totals


def campaign_totals_snapshot(snapshot: dict[str, Any]) -> dict[str, dict[str, Decimal]]:
    """Per campaign, the sums of the snapshot's daily rows as written (read back from JSON numbers)."""
    totals: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for row in snapshot["daily"]:
        for metric in SUMMED:
            if row.get(metric) is not None:
                totals[row["campaign_id"]][metric] += Decimal(repr(row[metric]))
    return totals
