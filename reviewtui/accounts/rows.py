"""From an export table to source rows with typed values, by a layout of header names.

A layout maps each field the snapshot needs (``date``, ``campaign_id``, ``cost``...)
to the header names a platform writes for it. The Meta, Google and mapped
formats differ only in their layouts and in what sits around the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date  # the field named date shadows the type in the class body
from decimal import Decimal

from .csvread import EMPTY, InputError, Table, detect_date_format, parse_date, parse_number

# Counts that are whole by nature (conversions need not be: attribution splits them).
WHOLE_FIELDS = ("impressions", "clicks", "reach")
TEXT_FIELDS = ("account_id", "account_name", "campaign_id", "campaign_name", "campaign_status",
               "delivery_status", "ad_set_id", "ad_set_name", "ad_id", "ad_name", "currency",
               "result_indicator")
DATE_FIELDS = ("date", "reporting_start", "reporting_end")
# Additive metrics (summed to campaign x day) and the ones that are not (kept only
# when there is one source row per campaign and day).
SUMMED = ("impressions", "clicks", "cost", "conversions", "conversions_value")
NOT_SUMMED = ("reach", "search_impression_share", "search_budget_lost_impression_share",
              "search_rank_lost_impression_share")
NUMBER_FIELDS = SUMMED + NOT_SUMMED


@dataclass
class Layout:
    """Header names per field, first match wins; a regex alias may capture the currency."""

    name: str
    aliases: dict[str, tuple[str | re.Pattern[str], ...]]
    required: tuple[str, ...] = ("cost",)
    # What to change in the export when it has no daily rows.
    lifetime_fix: str = "export with one row per day"


@dataclass
class SourceRow:
    line: int
    date: _date
    text: dict[str, str]
    numbers: dict[str, Decimal | None]
    span: tuple[_date, _date] | None = None  # the row's reporting range, when the export gives one

    def key(self) -> str:
        return self.text.get("campaign_id") or self.text.get("campaign_name", "")


@dataclass
class Columns:
    """Which column holds each field, and the currency a header named (``Amount spent (USD)``)."""

    index: dict[str, int] = field(default_factory=dict)
    header_currency: str | None = None

    def name(self, table: Table, field_name: str) -> str:
        return table.header[self.index[field_name]]


def match_columns(table: Table, layout: Layout) -> Columns:
    cols = Columns()
    lowered = [h.strip().lower() for h in table.header]
    for field_name, aliases in layout.aliases.items():
        for alias in aliases:
            for i, head in enumerate(table.header):
                if isinstance(alias, re.Pattern):
                    m = alias.fullmatch(head.strip())
                    if m:
                        cols.index[field_name] = i
                        if m.groups():
                            cols.header_currency = m.group(1).upper()
                        break
                elif lowered[i] == alias.lower():
                    cols.index[field_name] = i
                    break
            if field_name in cols.index:
                break
    return cols


def _alias_text(alias: str | re.Pattern[str]) -> str:
    return alias.pattern.replace("\\(", "(").replace("\\)", ")").replace("(\\w{3})", "XXX") \
        if isinstance(alias, re.Pattern) else alias


class LayoutError(InputError):
    """The file is not this layout's export at all (as opposed to a broken one)."""


def require_layout(table: Table, layout: Layout, cols: Columns) -> None:
    """Refuse an unknown layout, listing the headers expected and the ones found."""
    missing = [f for f in layout.required if f not in cols.index]
    has_campaign = "campaign_id" in cols.index or "campaign_name" in cols.index
    if table.header and not missing and has_campaign:
        return
    groups = [layout.aliases.get(f, ()) for f in layout.required]
    groups.append(layout.aliases.get("campaign_id", ()) + layout.aliases.get("campaign_name", ()))
    groups.append(layout.aliases.get("date", ()))
    expected = ", ".join(" or ".join(repr(_alias_text(a)) for a in g) for g in groups if g)
    seen = table.header or (table.preamble[0] if table.preamble else [])
    found = ", ".join(repr(h.strip()) for h in seen) or "nothing"
    line = table.header_line or 1
    raise LayoutError(table.path, line, f"not a {layout.name} export: expected the headers {expected}; found {found}. Check --format, or use --format csv with a --mapping file")


def drop_rows(table: Table, cols: Columns, why, reason: str) -> list[tuple[int, str]]:
    """Take the rows ``why(cell)`` picks out of the table (summary rows); return them with the reason."""
    kept: list = []
    dropped: list = []
    for line, cells in table.rows:
        def cell(f: str, cells: list[str] = cells) -> str:
            i = cols.index.get(f)
            return cells[i].strip() if i is not None and i < len(cells) else ""
        (dropped if why(cells, cell) else kept).append((line, cells))
    table.rows = kept
    return [(line, reason) for line, _cells in dropped]


def read_rows(table: Table, layout: Layout, cols: Columns, date_format: str | None) -> list[SourceRow]:
    """Typed rows; refuses lifetime totals (no day on the row) naming the export setting."""
    path = table.path
    if not table.rows:
        raise InputError(path, table.header_line, "no data rows under the header: export the report with at "
                         "least one day of delivery")
    day_field = "date" if "date" in cols.index else None
    if day_field is None:
        if "reporting_start" in cols.index and "reporting_end" in cols.index:
            day_field = "reporting_start"
        else:
            raise InputError(path, table.header_line, "the rows have no day: they are totals over the whole "
                             f"date range, which cannot be read as daily rows; {layout.lifetime_fix}")
    date_fmts: dict[str, str] = {}
    for f in DATE_FIELDS:
        if f in cols.index:
            i = cols.index[f]
            values = [(ln, cells[i] if i < len(cells) else "") for ln, cells in table.rows]
            date_fmts[f] = date_format or detect_date_format(values, path, table.header[i])
    rows: list[SourceRow] = []
    for line, cells in table.rows:
        def cell(f: str, cells: list[str] = cells) -> str:
            i = cols.index[f]
            return cells[i].strip() if i < len(cells) else ""
        text = {f: cell(f) for f in TEXT_FIELDS if f in cols.index and cell(f) not in EMPTY}
        numbers = {f: parse_number(cell(f), path, line, table.header[cols.index[f]])
                   for f in NUMBER_FIELDS if f in cols.index}
        dates = {}
        for f in DATE_FIELDS:
            if f in cols.index:
                raw = cell(f)
                if raw in EMPTY:
                    raise InputError(path, line, "no date on this row", table.header[cols.index[f]])
                dates[f] = parse_date(raw, date_fmts[f], path, line, table.header[cols.index[f]])
        start, end = dates.get("reporting_start"), dates.get("reporting_end")
        if day_field == "reporting_start" and start != end:
            raise InputError(path, line, f"the row covers {start} to {end}, a total over several days, not a "
                             f"daily row; {layout.lifetime_fix}", table.header[cols.index["reporting_end"]])
        day = dates[day_field]
        if start is not None and end is not None and not (start <= day <= end):
            raise InputError(path, line, f"the day {day} is outside the row's reporting range {start} to {end}",
                             table.header[cols.index["date"]])
        if "campaign_id" not in text and "campaign_name" not in text:
            col = "campaign_id" if "campaign_id" in cols.index else "campaign_name"
            raise InputError(path, line, "no campaign on this row; every row needs a campaign id or name",
                             table.header[cols.index[col]])
        cost = numbers.get("cost")
        if cost is not None and cost < 0:
            raise InputError(path, line, f"negative cost {cell('cost')!r}: a cost is never below zero; "
                             "export the report again (refunds and credits are not spend)", table.header[cols.index["cost"]])
        for f in ("impressions", "clicks", "conversions", "conversions_value"):
            v = numbers.get(f)
            if v is not None and v < 0:
                raise InputError(path, line, f"negative {f} {cell(f)!r}", table.header[cols.index[f]])
        for f in WHOLE_FIELDS:
            v = numbers.get(f)
            if v is not None and v != v.to_integral_value():
                # A German-locale export writes 8.942 for 8,942 impressions; read as a decimal point it
                # would shrink the count a thousand times with every total still agreeing.
                raise InputError(path, line, f"{cell(f)!r} is not a whole number of {f}; an export that writes "
                                 "thousands with '.' (8.942 for 8942) must be exported again with plain numbers "
                                 "(no thousands separators)", table.header[cols.index[f]])
        rows.append(SourceRow(line, day, text, numbers, (start, end) if start and end else None))
    return rows
