"""From an export file to typed source rows, by a layout of header names, in two passes.

A layout maps each field the snapshot needs (``date``, ``campaign_id``, ``cost``...)
to the header names a platform writes for it. The Meta, Google and mapped formats
differ only in their layouts and in what sits around the table.

The first pass (``read_export``) reads no figure: it looks at every value once to
decide what the file says as a whole (each date column's format, each number
column's decimal mark, the currency marks, ids that Excel rewrote, the export's
own total rows, where the data ends). The second (``FileRows.rows``) streams the
typed rows, each read as the first pass decided, and at its end holds the sums
against the export's own totals.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from operator import itemgetter
from dataclasses import dataclass, field
from datetime import date as _date  # the field named date shadows the type in the class body
from decimal import Decimal
from pathlib import Path
from typing import Callable, Iterator

from ..caseset.snapshot import LIMITS
from .csvread import ExportFile, InputError
from .dates import date_reader, detect_date_format, range_in_preamble, unreadable_range_line
from .numbers import EMPTY, NumberScan, decide_marks, parse_number

# Counts that are whole by nature (conversions need not be: attribution splits them).
WHOLE_FIELDS = ("impressions", "clicks", "reach")
TEXT_FIELDS = ("account_id", "account_name", "campaign_id", "campaign_name", "campaign_status",
               "delivery_status", "ad_set_id", "ad_set_name", "ad_id", "ad_name", "currency",
               "result_indicator")
ID_FIELDS = ("account_id", "campaign_id", "ad_set_id", "ad_id")
DATE_FIELDS = ("date", "reporting_start", "reporting_end")
# Additive metrics (summed to campaign x day) and the ones that are not (kept only
# when there is one source row per campaign and day).
SUMMED = ("impressions", "clicks", "cost", "conversions", "conversions_value")
NOT_SUMMED = ("reach", "search_impression_share", "search_budget_lost_impression_share",
              "search_rank_lost_impression_share")
NUMBER_FIELDS = SUMMED + NOT_SUMMED
MONEY_FIELDS = ("cost", "conversions_value")
# Without these an audit reads a different account: refused unless --allow-missing names them.
CORE_METRICS = ("impressions", "clicks", "cost", "conversions")
ENTITY_FIELDS = ("campaign_id", "campaign_name", "ad_set_id", "ad_set_name", "ad_id", "ad_name")

# The export's own total rows: "Total: Account" (Google), in the languages it writes them.
# A cell that is the word alone ("Total", "Grand total") is a total over every row.
TOTAL_LABEL = re.compile(r"^\s*(?:grand\s+)?(?:total|totals|totale|totaal|gesamtergebnis|gesamtsumme|gesamt|summe|"
                         r"合計|总计|總計)\s*"
                         r"(?:[:：]\s*(.*?))?\s*$", re.IGNORECASE)
# Totals over every row of the report (the others are over one campaign type, and not checked).
ACCOUNT_TOTALS = {"", "account", "campaigns", "all campaigns", "filtered campaigns", "all", "compte", "campagnes",
                  "toutes les campagnes", "konto", "kampagnen", "alle kampagnen", "cuenta", "campañas",
                  "todas las campañas", "conta", "campanhas", "アカウント", "キャンペーン", "すべてのキャンペーン",
                  "账户", "帳戶", "广告系列"}
# Unknown columns whose values are figures (CTR, CPM, cost per result): not part of what a row is about.
# A column is one when its header reads so and its values are numbers: "Impression device" holds words.
_NUMERIC_CELL = re.compile(r"^[\s$€£¥<>()+\-.,%'\d]*\d[\s$€£¥<>()+\-.,%'\d]*$|^(--|-|)$")
SAMPLE_ROWS = 2000  # the rows an unknown column is looked at to tell figures from words
_MEASURE_HEADER = re.compile(r"ctr|cpc|cpm|cpa|cpv|roas|rate|cost|spend|spent|amount|\bper\b|/|frequency|%|avg|"
                             r"average|share|conv|click|impr|result|reach|view|play|revenue|value|purchase|lead|"
                             r"install|engagement|interaction|budget|bid|score|position|rank|quality|quantity|"
                             r"費用|表示|クリック|コンバージョン|率|単価", re.IGNORECASE)
# 1.20201E+17, and 1,20201E+17 as Excel writes it in a decimal-comma locale.
_SCIENTIFIC = re.compile(r"^\d([.,]\d+)?[eE][+-]?\d+$")
# Each id's name and the ids of the levels above it (an ad's ad set and campaign).
_ID_PARENTS = {"campaign_id": (), "ad_set_id": ("campaign_id",), "ad_id": ("ad_set_id", "campaign_id")}
# Headers often taken for a core metric's, named when the metric is missing.
LOOK_ALIKES = {"conv.": "conversions", "conv": "conversions", "all conv.": "conversions", "interactions": "clicks",
               "impr": "impressions", "impr.": "impressions", "results": "conversions", "leads": "conversions",
               "clicks (all)": "clicks", "link clicks": "clicks", "spend": "cost", "amount spent": "cost"}


@dataclass
class Layout:
    """Header names per field, first match wins; a regex alias may capture the currency."""

    name: str
    aliases: dict[str, tuple[str | re.Pattern[str], ...]]
    required: tuple[str, ...] = ("cost",)
    # What to change in the export when it has no daily rows.
    lifetime_fix: str = "export with one row per day"
    # How to add a missing column to the export (the mapping's own words for a mapped file).
    add_column: str = "add the column to the report before downloading"


@dataclass(slots=True)
class SourceRow:
    line: int
    date: _date
    text: dict[str, str]
    numbers: dict[str, Decimal | None]
    span: tuple[_date, _date] | None = None  # the row's reporting range, when the export gives one
    identity: bytes = b""  # what the row is about: day, ids, names, breakdowns; not its figures

    def key(self) -> str:
        return self.text.get("campaign_id") or self.text.get("campaign_name", "")


@dataclass
class Columns:
    """Which column holds each field, and the currency a header named (``Amount spent (USD)``)."""

    index: dict[str, int] = field(default_factory=dict)
    header_currency: str | None = None

    def name(self, header: list[str], field_name: str) -> str:
        return header[self.index[field_name]]


def match_columns(header: list[str], layout: Layout) -> Columns:
    cols = Columns()
    lowered = [h.strip().lower() for h in header]
    for field_name, aliases in layout.aliases.items():
        for alias in aliases:
            for i, head in enumerate(header):
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


def require_layout(export: ExportFile, layout: Layout, cols: Columns) -> None:
    """Refuse an unknown layout, listing the headers expected and the ones found."""
    missing = [f for f in layout.required if f not in cols.index]
    has_campaign = "campaign_id" in cols.index or "campaign_name" in cols.index
    if export.header and not missing and has_campaign:
        return
    groups = [layout.aliases.get(f, ()) for f in layout.required]
    groups.append(layout.aliases.get("campaign_id", ()) + layout.aliases.get("campaign_name", ()))
    groups.append(layout.aliases.get("date", ()))
    expected = ", ".join(" or ".join(repr(_alias_text(a)) for a in g) for g in groups if g)
    seen = export.header or (export.preamble[0][1] if export.preamble else [])
    found = ", ".join(repr(h.strip()) for h in seen) or "nothing"
    line = export.header_line or 1
    lacking = [*(f"{f} column ({' or '.join(repr(_alias_text(a)) for a in layout.aliases.get(f, ()))})" for f in missing),
               *([] if has_campaign else ["campaign column (" + " or ".join(repr(_alias_text(a)) for a in
                 layout.aliases.get("campaign_id", ()) + layout.aliases.get("campaign_name", ())) + ")"])]
    what = f"no {' and no '.join(lacking)}; " if export.header and lacking else ""
    raise LayoutError(export.path, line, f"not a {layout.name} export: {what}expected the headers {expected}; found "
                      f"{found}. Check --format, or use --format csv with a --mapping file")


def metrics_found(export: ExportFile, layout: Layout, cols: Columns, allow_missing: frozenset[str]) -> list[str]:
    """The metrics the export lacks; refuses a missing core metric that --allow-missing does not name.

    A renamed column (``Conv.`` for ``Conversions``) would otherwise make the metric
    silently zero, and an audit of an account whose conversions were lost.
    """
    missing = [m for m in NUMBER_FIELDS if m not in cols.index]
    used = set(cols.index.values())
    unmatched = {h.strip().lower(): h for i, h in enumerate(export.header) if i not in used}
    for metric in CORE_METRICS:
        if metric not in missing or metric in allow_missing:
            continue
        expected = [_alias_text(a) for a in layout.aliases.get(metric, ())]
        alike = [h for low, h in unmatched.items() if LOOK_ALIKES.get(low) == metric]
        for alias in expected:
            alike += [unmatched[c] for c in difflib.get_close_matches(alias.lower(), list(unmatched), n=2, cutoff=0.75)
                      if unmatched[c] not in alike]
        said = " or ".join(repr(a) for a in expected) if expected else "none (the mapping names no column for it)"
        hint = (f"; the header has {', '.join(repr(a) for a in alike)}, which may be it: if so, rename the column "
                f"to {expected[0]!r} or map it with --format csv --mapping" if alike and expected else "")
        if any(a.strip().lower() == "interactions" for a in alike):
            hint += (" ('Interactions' are clicks only on text and shopping ads: on video and Demand Gen ads they "
                     "are views and engagements, so add the Clicks column rather than rename it there)")
        raise InputError(export.path, export.header_line or 1,
                         f"no {metric} column (expected {said}){hint}; an import without it would read every "
                         f"{metric} as none: {layout.add_column}, or pass --allow-missing {metric} to import the "
                         "account without it")
    return missing


@dataclass
class ReadOptions:
    date_format: str | None = None
    decimal_mark: str | None = None
    allow_missing: frozenset[str] = frozenset()
    skip_export_totals: bool = False
    last_row_whole: bool = False  # the user says a file that ends without a line break is whole


@dataclass
class TotalRow:
    line: int
    label: str  # after "Total:" ("Account", "Search"); "" for a total over every row
    cells: list[str]
    named: str = ""  # the cell that says it is a total ("Total: Account"); "" for Meta's summary row
    outcome: str = "not checked"  # what holding it against the rows' sums gave, for the report
    day: _date | None = None  # a total over one day

    def what(self) -> str:
        return f"{self.named!r} row" if self.named else "summary row (no campaign, ad set or ad)"


@dataclass
class FileRows:
    """What one export file gave: its rows (streamed by ``rows()``) and what it says around them."""

    path: Path
    rows_read: int
    dropped: list[tuple[int, str]] = field(default_factory=list)  # (line, why)
    currency: str | None = None  # from a header or the mapping
    currency_source: str = ""  # where ``currency`` was read: a header, the mapping
    currency_column: str | None = None
    currencies: dict[str, int] = field(default_factory=dict)  # code in the currency column -> first line
    money_marks: dict[str, dict[str, int]] = field(default_factory=dict)  # column -> currency mark -> first line
    period: tuple[_date, _date] | None = None  # the range the export says it covers
    period_source: str | None = None  # where that range was read, for the report
    period_kind: str | None = None  # reporting_dates (the rows' own ranges) or export_range (a range line, a summary row)
    period_line: int = 0  # the line that states the range (0: the rows' reporting dates)
    unreadable_range: tuple[int, str] | None = None  # a line above the header that looks like a range and does not read
    totals_verified: bool = False  # a total over every row agreed with the rows' sums (known once they are read)
    days: tuple[_date, _date] | None = None  # the first and last day with a row
    metrics: dict[str, str] = field(default_factory=dict)  # metric -> the header it was read from
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mtime: float = 0.0
    late_notes: list[Callable[[], str]] = field(default_factory=list)  # notes known once the rows are read
    _reader: "ExportReader | None" = field(default=None, repr=False)

    grain: str = "campaign"  # the lowest level the rows are at: campaign, ad_set or ad
    has_campaign_ids: bool = True

    def rows(self) -> Iterator[SourceRow]:
        assert self._reader is not None
        return self._reader.rows(self)

    def cells_at(self, line: int) -> list[str] | None:
        """The cells of one line, read again (for the message about a repeated row)."""
        assert self._reader is not None
        return self._reader.export.cells_at(line)

    def differing_columns(self, a: list[str] | None, b: list[str] | None) -> str:
        """The headers of the columns in which two rows differ, quoted: "'Cost', 'CTR'"."""
        assert self._reader is not None
        header = self._reader.export.header
        if a is None or b is None:
            return ""
        return ", ".join(repr(h) for h, x, y in zip(header, a, b) if x.strip() != y.strip())


class ExportReader:
    """The two passes over one export file, with what the first decided for the second."""

    def __init__(self, export: ExportFile, layout: Layout, cols: Columns, options: ReadOptions,
                 is_summary: Callable[[list[str]], bool] | None = None,
                 adjust: Callable[[SourceRow], None] | None = None) -> None:
        self.export, self.layout, self.cols, self.options = export, layout, cols, options
        self.path = export.path
        self.is_summary = is_summary
        self.adjust = adjust
        self.totals: list[TotalRow] = []
        self.date_formats: dict[str, str] = {}
        self.marks: dict[str, str] = {}
        self.last_data_line = 0
        self.last_row_line = 0
        self.unchecked_totals: set[str] = set()  # metrics the totals do not speak for (Meta's mixed Results)
        header = export.header
        known = set(cols.index.values())
        self.unknown_columns = [i for i in range(len(header)) if i not in known]
        self.dimension_columns = list(self.unknown_columns)  # until the first pass has seen the values
        # Where a total row writes its label: the first cells, or the campaign's.
        self.label_columns = sorted({*range(min(4, len(header))),
                                     *(cols.index[f] for f in ("campaign_name", "campaign_id") if f in cols.index)})

    # --- first pass ---------------------------------------------------------------------------

    def _total(self, line: int, cells: list[str]) -> TotalRow | None:
        for i in self.label_columns:
            cell = cells[i]
            if cell and cell[0] in "TtGgSs合总總" and (m := TOTAL_LABEL.match(cell)):
                return TotalRow(line, m.group(1) or "", cells, cell.strip())
        if self.is_summary is not None and self.is_summary(cells):
            return TotalRow(line, "", cells)
        return None

    def scan(self) -> FileRows:
        export, cols, path = self.export, self.cols, self.path
        header = export.header
        number_scans = [(i, NumberScan(header[i], f in WHOLE_FIELDS)) for f in NUMBER_FIELDS
                        if (i := cols.index.get(f)) is not None]
        date_values: dict[str, dict[str, int]] = {f: {} for f in DATE_FIELDS if f in cols.index}
        date_index = [(cols.index[f], date_values[f]) for f in date_values]
        id_index = [(cols.index[f], header[cols.index[f]]) for f in ID_FIELDS if f in cols.index]
        # Per id column: (column, the columns that must agree on every row of one id, what each id was first seen with).
        IdFacts = tuple[int, list[int], dict[str, tuple[int, tuple[str, ...]]]]
        id_facts: list[IdFacts] = []
        for f in ID_FIELDS:
            if f in _ID_PARENTS and f in cols.index:
                agree = [j for g in (f.replace("_id", "_name"), *_ID_PARENTS[f]) if (j := cols.index.get(g)) is not None]
                id_facts.append((cols.index[f], agree, {}))
        long_ids: dict[int, dict[str, int]] = {i: {} for i, _h in id_index}
        currency_index = cols.index.get("currency")
        currencies: dict[str, int] = {}
        worded = {i for i in self.unknown_columns if not _MEASURE_HEADER.search(header[i])}
        reporting = (cols.index["reporting_start"], cols.index["reporting_end"]) \
            if "reporting_start" in cols.index and "reporting_end" in cols.index else None
        wide_ranges = False  # some row's Reporting starts/ends span more than its day
        rows_read = 0
        for line, cells in export.rows(f"reading {path.name}"):
            rows_read += 1
            self.last_row_line = line
            total = self._total(line, cells)
            if total is not None:
                self.totals.append(total)
                continue
            self.last_data_line = line
            if rows_read <= SAMPLE_ROWS:
                for i in self.unknown_columns:
                    if i not in worded and not _NUMERIC_CELL.match(cells[i]):
                        worded.add(i)
            for i, scan in number_scans:
                value = cells[i]
                if value and not value.isdecimal():
                    scan.observe(value, line, path)
            for i, seen in date_index:
                value = cells[i]
                if value not in seen:
                    seen[value] = line
            if reporting is not None and not wide_ranges:
                wide_ranges = cells[reporting[0]].strip() != cells[reporting[1]].strip()
            for i, column in id_index:
                value = cells[i].strip()
                if ("E" in value or "e" in value) and _SCIENTIFIC.match(value):
                    _refuse_excel_id(path, line, column, value)
                if len(value) >= 16 and value.isdigit() and value not in long_ids[i]:
                    long_ids[i][value] = line
            for i, others, first in id_facts:
                if others:
                    facts = tuple(cells[j].strip() for j in others)
                    earlier = first.setdefault(cells[i].strip(), (line, facts))
                    if earlier[1] != facts and cells[i].strip():
                        self._refuse_id_of_two(cells[i].strip(), i, others, earlier, line, facts)
            if currency_index is not None:
                code = cells[currency_index].strip().upper()
                if code and code not in EMPTY and code not in currencies:
                    currencies[code] = line
        if self.export.progress is not None:
            self.export.progress.done()
        self.dimension_columns = sorted(worded)
        for i, column in id_index:
            _refuse_rounded_ids(path, column, long_ids[i])
        if not rows_read:
            raise InputError(path, export.header_line, "no data rows under the header: export the report with at "
                             "least one day of delivery")
        if not self.last_data_line:
            raise InputError(path, 1, "no data rows: the export holds only headers or totals; "
                             "export the report with a daily breakdown and at least one day")
        self.marks = decide_marks([s for _i, s in number_scans], path, export.delimiter, self.options.decimal_mark)
        day_field = self._day_field()
        spans: dict[str, tuple[_date, _date]] = {}
        for f, seen in date_values.items():
            column = header[cols.index[f]]
            fmt = self.options.date_format or detect_date_format(((ln, v) for v, ln in seen.items()), path, column)
            self.date_formats[f] = fmt
            read = date_reader(fmt)
            parsed = [d for v in seen if v.strip() not in EMPTY and (d := read(v.strip())) is not None]
            if parsed:
                spans[f] = (min(parsed), max(parsed))
        for total in self.totals:
            raw = total.cells[cols.index[day_field]].strip() if cols.index[day_field] < len(total.cells) else ""
            total.day = date_reader(self.date_formats[day_field])(raw) if raw and raw not in EMPTY else None
            if day_field == "reporting_start" and reporting is not None and \
                    total.cells[reporting[0]].strip() != total.cells[reporting[1]].strip():
                total.day = None  # a summary over the export's whole range, not one day's
        rows = FileRows(path, rows_read, currencies=currencies, _reader=self)
        rows.days = spans.get(day_field)
        summary = self._summary_range()
        if summary is not None:
            rows.period, rows.period_line = summary
            rows.period_source = (f"the summary row's {header[cols.index['reporting_start']]!r} and "
                                  f"{header[cols.index['reporting_end']]!r}, {path.name}:{rows.period_line}")
            rows.period_kind = "export_range"
        elif "reporting_start" in spans and "reporting_end" in spans and wide_ranges:
            # Rows whose reporting range is wider than their day carry the export's range; rows whose
            # range is their own day say nothing of days without a row (a stop at the range's end).
            rows.period = (spans["reporting_start"][0], spans["reporting_end"][1])
            rows.period_source = (f"the rows' {header[cols.index['reporting_start']]!r} and "
                                  f"{header[cols.index['reporting_end']]!r} in {path.name}")
            rows.period_kind = "reporting_dates"
        rows.money_marks = {header[i]: s.marks for i, s in number_scans if s.marks}
        rows.metrics = {m: header[cols.index[m]] for m in NUMBER_FIELDS if m in cols.index}
        rows.dropped = [(t.line, f"{t.what()}: the export's own total, checked against the rows' sums")
                        for t in self.totals]
        return rows

    def _refuse_id_of_two(self, value: str, column: int, others: list[int], earlier: tuple[int, tuple[str, ...]],
                          line: int, facts: tuple[str, ...]) -> None:
        """One id on two rows with two names, or under two parents: two things summed as one.

        An export names each campaign, ad set and ad once, under the one parent it has. Rows of one
        id that disagree are distinct ids made one (Excel's 15 digits), or rows pasted from two exports.
        """
        header = self.export.header
        first_line, first_facts = earlier
        differ = [(header[j], a, b) for j, a, b in zip(others, first_facts, facts) if a != b]
        said = "; ".join(f"{h} {a!r} on line {first_line}, {b!r} on this line" for h, a, b in differ)
        excel = ("; an id in scientific notation or ending in zeros is one Excel rounded to 15 digits: import the file "
                 "as downloaded, without opening and saving it in Excel (or format the id columns as Text first)")
        raise InputError(self.path, line, f"{value!r} is on two rows that disagree ({said}): one id is one campaign, "
                         "ad set or ad, so these are two made one and their figures would be summed; download the "
                         f"report again" + (excel if len(value) >= 16 or "E" in value.upper() else ""),
                         header[column])

    def _summary_range(self) -> tuple[tuple[_date, _date], int] | None:
        """The range on Meta's summary row (its Reporting starts/ends): the whole export's."""
        cols = self.cols
        if "reporting_start" not in cols.index or "reporting_end" not in cols.index:
            return None
        for total in self.totals:
            if total.named or total.day is not None:
                continue
            ends = []
            for f in ("reporting_start", "reporting_end"):
                i = cols.index[f]
                raw = total.cells[i].strip() if i < len(total.cells) else ""
                ends.append(date_reader(self.date_formats[f])(raw) if raw and raw not in EMPTY else None)
            start, end = ends
            if start is not None and end is not None:
                if end < start:
                    raise InputError(self.path, total.line, f"the summary row's range ends ({end}) before it starts "
                                     f"({start}); export the report again", self.export.header[cols.index["reporting_end"]])
                return (start, end), total.line
        return None

    def _day_field(self) -> str:
        if "date" in self.cols.index:
            return "date"
        if "reporting_start" in self.cols.index and "reporting_end" in self.cols.index:
            return "reporting_start"
        raise InputError(self.path, self.export.header_line, "the rows have no day: they are totals over the whole "
                         f"date range, which cannot be read as daily rows; {self.layout.lifetime_fix}")

    # --- second pass --------------------------------------------------------------------------

    def rows(self, out: FileRows) -> Iterator[SourceRow]:
        export, cols, path = self.export, self.cols, self.path
        header = export.header
        total_lines = {t.line for t in self.totals}
        text_index = [(f, cols.index[f]) for f in TEXT_FIELDS if f in cols.index]
        number_index = [(f, cols.index[f], header[cols.index[f]], self.marks.get(header[cols.index[f]], "."))
                        for f in NUMBER_FIELDS if f in cols.index]
        date_index = [(f, cols.index[f], header[cols.index[f]], date_reader(self.date_formats[f]))
                      for f in DATE_FIELDS if f in cols.index]
        identity_index = [i for _f, i in text_index] + [i for _f, i, _h, _r in date_index] + self.dimension_columns
        identity_cells = itemgetter(*identity_index, identity_index[0])  # a tuple even for one column
        day_field = self._day_field()
        whole = [(f, cols.index[f]) for f in WHOLE_FIELDS if f in cols.index]
        sums = {f: Decimal(0) for f in SUMMED if f in cols.index}
        day_sums: dict[_date, dict[str, Decimal]] = {}
        day_rows: dict[_date, int] = {}
        dated_totals = any(t.day for t in self.totals)
        blank = {f: [0, 0] for f in SUMMED if f in cols.index}  # empty cells of an additive metric: count, first line
        used = 0
        for line, cells in export.rows(f"importing {path.name}"):
            if line in total_lines:
                continue
            text = {}
            for f, i in text_index:
                value = cells[i].strip()
                if value and value not in EMPTY:
                    text[f] = value
                    if len(value) > LIMITS.max_chars:
                        raise InputError(path, line, f"the value is {len(value):,} characters, over the "
                                         f"{LIMITS.max_chars:,} `reviewtui check` accepts in one string (docs/cases.md, "
                                         "'Untrusted input'); shorten it in the export", header[i])
            numbers: dict[str, Decimal | None] = {}
            for f, i, column, mark in number_index:
                value = cells[i]
                number = numbers[f] = Decimal(value) if value.isdecimal() else parse_number(value, path, line, column, mark)
                if number is None and f in blank:
                    blank[f][0] += 1
                    blank[f][1] = blank[f][1] or line
            dates: dict[str, _date] = {}
            for f, i, column, read in date_index:
                raw = cells[i].strip()
                if raw in EMPTY:
                    raise InputError(path, line, "no date on this row", column)
                parsed = read(raw)
                if parsed is None:
                    raise InputError(path, line, f"{raw!r} is not a {self.date_formats[f]} date", column)
                dates[f] = parsed
            start, end = dates.get("reporting_start"), dates.get("reporting_end")
            if day_field == "reporting_start" and start != end:
                raise InputError(path, line, f"the row covers {start} to {end}, a total over several days, not a "
                                 f"daily row; {self.layout.lifetime_fix}", header[cols.index["reporting_end"]])
            day = dates[day_field]
            if start is not None and end is not None and not (start <= day <= end):
                raise InputError(path, line, f"the day {day} is outside the row's reporting range {start} to {end}",
                                 header[cols.index["date"]])
            if "campaign_id" not in text and "campaign_name" not in text:
                col = "campaign_id" if "campaign_id" in cols.index else "campaign_name"
                raise InputError(path, line, "no campaign on this row; every row needs a campaign id or name",
                                 header[cols.index[col]])
            self._check_values(line, cells, numbers, whole)
            identity = hashlib.blake2b("\x1f".join(identity_cells(cells)).encode(), digest_size=16).digest()
            row = SourceRow(line, day, text, numbers, (start, end) if start and end else None, identity)
            if self.adjust is not None:
                self.adjust(row)
            for f in sums:
                v = row.numbers.get(f)
                if v is not None:
                    sums[f] += v
            if dated_totals:
                per_day = day_sums.setdefault(day, dict.fromkeys(sums, Decimal(0)))
                for f in sums:
                    per_day[f] += row.numbers.get(f) or 0
                day_rows[day] = day_rows.get(day, 0) + 1
            used += 1
            yield row
        if export.progress is not None:
            export.progress.done()
        verified = self._check_totals(sums, used, day_sums, day_rows)
        outcomes = {t.line: f"{t.what()}: the export's own total, {t.outcome}" for t in self.totals}
        out.dropped = [(line, outcomes.get(line, why)) for line, why in out.dropped]
        out.totals_verified = verified
        said = [f"{header[cols.index[f]]!r} {n:,} (first at line {first})" for f, (n, first) in blank.items() if n]
        if said:
            out.notes.append("empty cells read as 0 (an export leaves a cell empty for none): " + ", ".join(said))
        # A last row without a line break may have lost characters of its last value: a cut number
        # reads as a smaller one, a cut day (2023-08-3) as another day. A cut name changes no figure,
        # and a cut Reporting starts/ends no longer agrees with the row's day.
        last_is_figure = len(header) - 1 in {i for f, i, _h, _m in number_index} | {cols.index.get("date")}
        if not export.terminated and self.last_row_line == self.last_data_line and last_is_figure and not verified \
                and not self.options.last_row_whole:
            raise InputError(path, self.last_data_line, "the file ends on this row without a line break, and no "
                             "total row in the export confirms the sums: the download may have stopped inside the "
                             f"row's last value ({header[-1]!r}); download the report again. If the file is whole "
                             "(some tools save CSV without a last line break), pass --last-row-whole")

    def _check_values(self, line: int, cells: list[str], numbers: dict[str, Decimal | None],
                      whole: list[tuple[str, int]]) -> None:
        path, header = self.path, self.export.header
        cost = numbers.get("cost")
        if cost and numbers.get("impressions", 0) is None and numbers.get("clicks", 0) is None:
            # A row that spent, with neither impressions nor clicks, lost its figures (a blank is no zero
            # here): read as none, its spend would count with no delivery.
            raise InputError(path, line, f"the row spends {cells[self.cols.index['cost']].strip()}, but its "
                             f"{header[self.cols.index['impressions']]!r} and {header[self.cols.index['clicks']]!r} "
                             "cells are empty: its figures are missing, not zero; fill them in from the platform, or "
                             "remove the row", header[self.cols.index["impressions"]])
        if cost is not None and cost < 0:
            raise InputError(path, line, f"negative cost {cells[self.cols.index['cost']].strip()!r}: a cost is never "
                             "below zero; export the report again (refunds and credits are not spend)",
                             header[self.cols.index["cost"]])
        for f in ("impressions", "clicks", "conversions", "conversions_value"):
            v = numbers.get(f)
            if v is not None and v < 0:
                raise InputError(path, line, f"negative {f} {cells[self.cols.index[f]].strip()!r}",
                                 header[self.cols.index[f]])
        for f, i in whole:
            v = numbers.get(f)
            if v is not None and v != v.to_integral_value():
                # A German-locale export writes 8.942 for 8,942 impressions; read as a decimal point it
                # would shrink the count a thousand times with every total still agreeing.
                raise InputError(path, line, f"{cells[i].strip()!r} is not a whole number of {f}; an export that "
                                 "writes thousands with '.' (8.942 for 8942) must be exported again with plain "
                                 "numbers (no thousands separators), or pass --decimal-mark ,", header[i])

    def _check_totals(self, sums: dict[str, Decimal], used: int, day_sums: dict[_date, dict[str, Decimal]],
                      day_rows: dict[_date, int]) -> bool:
        """Hold the rows' sums against the export's own total rows; True when one over all rows agrees.

        Each total row's ``outcome`` says what came of it, for the report.
        """
        verified = False
        failures: list[tuple[TotalRow, str]] = []
        for total in self.totals:
            if total.day is None and total.label.strip().lower() not in ACCOUNT_TOTALS:
                total.outcome = "not checked: a total over one campaign type (the rows do not say their type)"
                continue
            against = sums if total.day is None else day_sums.get(total.day, dict.fromkeys(sums, Decimal(0)))
            n = used if total.day is None else day_rows.get(total.day, 0)
            problem = self._total_disagrees(total, against, n)
            if problem is None:
                verified = verified or total.day is None
                total.outcome = "checked: the rows' sums agree"
            else:
                failures.append((total, problem))
                total.outcome = ("NOT matched by the rows' sums, imported as --skip-export-totals asks"
                                 if self.options.skip_export_totals else
                                 "NOT matched by the rows' sums; another total over every row is (a filtered report)")
        if not self.options.skip_export_totals:
            # Every day's total must agree; of the totals over all rows one agreeing is enough: a filtered
            # report carries "Total: Account" beside the "Total: Filtered campaigns" that covers its rows.
            dated = [f for f in failures if f[0].day is not None]
            undated = [f for f in failures if f[0].day is None]
            if dated or (undated and not verified):
                total, problem = (dated or undated)[0]
                raise InputError(self.path, total.line, problem)
        return verified

    def _total_disagrees(self, total: TotalRow, sums: dict[str, Decimal], n: int) -> str | None:
        header, cols = self.export.header, self.cols
        for f, summed in sums.items():
            if f in self.unchecked_totals:
                continue
            i = cols.index[f]
            raw = total.cells[i] if i < len(total.cells) else ""
            value = parse_number(raw, self.path, total.line, header[i], self.marks.get(header[i], "."))
            if value is None:
                continue
            exponent = value.as_tuple().exponent
            half_unit = Decimal(5).scaleb((exponent if isinstance(exponent, int) else 0) - 1)
            # An export writes its rows and its totals to the same places, each rounded: the errors of n
            # rounded rows, each within half a unit and as often up as down, add up to about half a unit
            # times the square root of n/3; six square roots of n leaves a clean export far inside, and
            # a missing or edited row of any size outside (the worst case, n half units, would let
            # hundreds of units through on a long export).
            tolerance = Decimal(0) if f in WHOLE_FIELDS else \
                half_unit * (2 + 6 * Decimal(n).sqrt()) + abs(value) * Decimal("1e-9")
            if abs(summed - value) > tolerance:
                what = total.what()
                scope = f"the rows of {total.day}" if total.day else "the rows"
                diff = summed - value
                return (f"the export's {what} says {header[i]} {raw.strip()}, but {scope} sum to {summed:,} "
                        f"({'more' if diff > 0 else 'less'} by {abs(diff):,}): rows are missing (a download cut off, "
                        "or a filtered report) or were edited; download the whole report again (if the total "
                        "covers more than the report's rows on purpose, pass --skip-export-totals)")
        return None


def _refuse_excel_id(path: Path, line: int, column: str, value: str) -> None:
    raise InputError(path, line, f"{value!r} is an id Excel rewrote in scientific notation: it keeps 15 digits of a "
                     "Meta id of 17 or 18, so distinct campaigns, ad sets or ads become one; import the file as "
                     "downloaded, without opening and saving it in Excel (or format the id columns as Text first)",
                     column)


def _refuse_rounded_ids(path: Path, column: str, ids: dict[str, int]) -> None:
    """Ids of 16 digits and more that all end in zeros past the 15th, as Excel rounds and saves them as digits.

    Refused when two or more long ids of the column all end so (a real id does one time in a thousand).
    One id alone may truly end so, and merges nothing; ids rounded into one show as one id on rows
    that disagree (``ExportReader._refuse_id_of_two``).
    """
    rounded = [v for v in ids if not v[15:].strip("0")]
    if not (len(rounded) >= 2 and len(rounded) == len(ids)):
        return
    raise InputError(path, ids[rounded[0]], f"{rounded[0]!r} and the column's other long ids end in zeros past their "
                     "15th digit: Excel keeps 15 digits of a number, so distinct ids became one; import the file as "
                     "downloaded, without opening and saving it in Excel (or format the id columns as Text first)",
                     column)


def read_export(export: ExportFile, layout: Layout, options: ReadOptions, cols: Columns | None = None, *,
                is_summary: Callable[[list[str]], bool] | None = None,
                adjust: Callable[[SourceRow], None] | None = None) -> tuple[FileRows, ExportReader]:
    """The first pass over a file of this layout: what it says as a whole, and its rows to stream."""
    cols = cols or match_columns(export.header, layout)
    require_layout(export, layout, cols)
    reader = ExportReader(export, layout, cols, options, is_summary, adjust)
    reader._day_field()  # a report without days cannot be used whatever its metrics: say that first
    missing = metrics_found(export, layout, cols, options.allow_missing)
    rows = reader.scan()
    rows.missing = missing
    if rows.period is None and (found := range_in_preamble(export.preamble)):
        start, end, line, text = found
        rows.period = (start, end)
        rows.period_source = f"the export's date-range line, {export.path.name}:{line}: {text!r}"
        rows.period_kind = "export_range"
        rows.period_line = line
    elif rows.period is None:
        rows.unreadable_range = unreadable_range_line(export.preamble)
    rows.grain = ("ad" if "ad_id" in cols.index or "ad_name" in cols.index else
                  "ad_set" if "ad_set_id" in cols.index or "ad_set_name" in cols.index else "campaign")
    rows.has_campaign_ids = "campaign_id" in cols.index
    rows.currency = cols.header_currency
    if rows.currency:
        rows.currency_source = f"the header {cols.name(export.header, 'cost')!r}"
    rows.currency_column = cols.name(export.header, "currency") if "currency" in cols.index else None
    try:
        rows.mtime = export.path.stat().st_mtime
    except OSError:
        rows.mtime = 0.0
    return rows, reader
