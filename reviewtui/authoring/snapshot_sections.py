"""Snapshot sections as tables: what the author screen's tabs show.

No Textual import: this is the table model (columns, cells, JSON Pointers,
filtering and sorting) behind the virtual table widget, kept separate so it
can be tested and timed without a terminal.

Lists of objects (``daily``, ``campaigns``...) become one row per item,
labelled with its index, so the row number *is* the JSON Pointer index.
Objects (``account``, ``period``, ``targets``) become key/value rows. Any
other top-level list or object the snapshot carries is shown too, after the
known ones: unknown fields are kept and shown, never hidden.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Iterable

from ..caseset.snapshot import as_object
from ..caseset.snapshot_reader import escape_token, unescape_token

ROW_SECTIONS = ("daily", "campaigns", "search_terms", "budgets", "conversion_actions", "change_events", "ads", "flight_plan")
FIELD_SECTIONS = ("account", "period", "targets")
# Where a row keeps its date, in order of preference (first 10 characters are YYYY-MM-DD).
DATE_KEYS = ("date", "change_date_time", "changed_at", "start", "last_conversion_date")
COLUMN_SCAN_LIMIT = 2000  # rows sampled for column names and widths; a 100,000-row section stays quick


def format_cell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# How a column's numbers read for people (the raw value stays in the snapshot and in ``value``).
MONEY_FIELDS = {"cost", "conversions_value", "amount", "old_amount", "new_amount", "planned_spend",
                "monthly_budget", "target_cpa"}
COUNT_FIELDS = {"impressions", "clicks", "reach", "conversions", "all_conversions"}
ZERO_DECIMAL_CURRENCIES = {"JPY", "KRW", "VND", "CLP", "ISK", "HUF", "TWD", "UGX", "PYG", "XOF", "XAF"}


def is_ratio_field(name: str) -> bool:
    return name.endswith("_share") or name == "pacing_tolerance"


def display_cell(value: Any, field_name: str, money_decimals: int = 2) -> str:
    """Money with separators at the currency's decimals, counts with separators, shares as percentages."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return format_cell(value)
    if field_name in MONEY_FIELDS:
        return f"{value:,.{money_decimals}f}"
    if field_name in COUNT_FIELDS:
        return f"{int(value):,}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:,.2f}"
    if is_ratio_field(field_name):
        return f"{value * 100:.2f}%"
    return format_cell(value)


def sort_key(value: Any) -> tuple[int, Any]:
    """Numbers (and ids written as digits) before text before everything else, so mixed columns still sort."""
    if isinstance(value, bool):
        return (1, str(value))
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str) and value.isdigit():
        return (0, int(value))
    if value is None:
        return (3, "")
    if isinstance(value, str):
        return (1, value)
    return (2, format_cell(value))


@dataclass
class SectionTable:
    """One snapshot section as rows and columns."""

    name: str
    kind: str  # "rows" (a list, labelled by index) or "fields" (an object, labelled by key)
    items: list[Any]  # list items, or (key, value) pairs
    columns: list[str] = field(default_factory=list)
    money_decimals: int = 2  # the account currency's

    def __len__(self) -> int:
        return len(self.items)

    def label(self, index: int) -> str:
        return str(index) if self.kind == "rows" else str(self.items[index][0])

    def pointer(self, index: int) -> str:
        if not self.name:  # top-level scalars such as /platform
            return f"/{escape_token(self.label(index))}"
        return f"/{escape_token(self.name)}/{escape_token(self.label(index))}"

    def value(self, index: int, column: str) -> Any:
        item = self.items[index]
        if self.kind == "fields":
            return item[0] if column == "key" else item[1]
        if isinstance(item, dict):
            return item.get(column)
        return item if column == "value" else None

    def cell(self, index: int, column: str) -> str:
        """The value as people read it (``2,041.75``, ``12.50%``); ``raw`` gives it as the snapshot has it."""
        item = self.items[index]
        if self.kind == "rows" and isinstance(item, dict) and column not in item:
            return ""
        field_name = str(item[0]) if self.kind == "fields" and column == "value" else column
        return display_cell(self.value(index, column), field_name, self.money_decimals)

    def raw(self, index: int, column: str) -> str:
        item = self.items[index]
        if self.kind == "rows" and isinstance(item, dict) and column not in item:
            return ""
        return format_cell(self.value(index, column))

    def campaigns_of(self, index: int) -> set[str]:
        item = self.items[index]
        if not isinstance(item, dict):
            return set()
        found = {str(item[k]) for k in ("campaign_id",) if item.get(k) is not None}
        if self.name == "campaigns" and item.get("id") is not None:
            found.add(str(item["id"]))
        ids = item.get("campaign_ids")
        if isinstance(ids, list):
            found.update(str(i) for i in ids)
        return found

    def date_of(self, index: int) -> str | None:
        item = self.items[index]
        if not isinstance(item, dict):
            return None
        for key in DATE_KEYS:
            value = item.get(key)
            if isinstance(value, str) and len(value) >= 10:
                return value[:10]
        return None

    @property
    def has_campaigns(self) -> bool:
        return self.kind == "rows" and any(self.campaigns_of(i) for i in range(min(len(self), 50)))

    @property
    def has_dates(self) -> bool:
        return self.kind == "rows" and any(self.date_of(i) for i in range(min(len(self), 50)))

    def view(
        self,
        *,
        campaign: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        sort_column: str | None = None,
        descending: bool = False,
    ) -> list[int]:
        """Indices of the rows that pass the filters, in display order.

        A filter that does not apply to this section (no campaign or date
        column) leaves it unfiltered rather than empty.
        """
        indices: Iterable[int] = range(len(self))
        if campaign and self.has_campaigns:
            indices = [i for i in indices if campaign in self.campaigns_of(i)]
        if (date_from or date_to) and self.has_dates:
            lo, hi = date_from or "", date_to or "\uffff"
            indices = [i for i in indices if (d := self.date_of(i)) is not None and lo <= d <= hi]
        indices = list(indices)
        if sort_column is not None:
            indices.sort(key=lambda i: sort_key(self.value(i, sort_column)), reverse=descending)
        return indices


class DateFilterError(ValueError):
    """A date filter that is not a date; the message says what it must be."""


def date_bound(text: str, *, upper: bool = False) -> str | None:
    """A date filter as typed (``2025``, ``2025-03``, ``2025-03-09``) as the bound ``view`` compares with,
    or None when empty. As an upper bound a year or month means all of it (``2025-03`` up to the 31st).
    DateFilterError for anything else (``2025-13``, ``2025-02-30``, ``2025-3``)."""
    text = text.strip()
    if not text:
        return None
    parts = text.split("-")
    shape_ok = 1 <= len(parts) <= 3 and all(p.isdigit() for p in parts) and len(parts[0]) == 4 \
        and all(len(p) == 2 for p in parts[1:])
    if shape_ok:
        try:
            date(int(parts[0]), int(parts[1]) if len(parts) > 1 else 1, int(parts[2]) if len(parts) > 2 else 1)
        except ValueError:
            shape_ok = False
    if not shape_ok:
        raise DateFilterError(f"{text!r} is not a date: write YYYY-MM-DD, YYYY-MM or YYYY")
    return text + "\uffff" if upper and len(parts) < 3 else text


def _columns(items: list[Any]) -> list[str]:
    """Union of keys over a sample of rows, in first-seen order."""
    seen: dict[str, None] = {}
    step = max(1, len(items) // COLUMN_SCAN_LIMIT)
    for item in items[::step]:
        if isinstance(item, dict):
            seen.update(dict.fromkeys(item))
        else:
            seen["value"] = None
    return list(seen) or ["value"]


def snapshot_sections(data: dict[str, Any]) -> list[SectionTable]:
    """The snapshot's sections in tab order: known lists, known objects, then anything else."""
    tables: list[SectionTable] = []
    account = as_object(data.get("account"))
    decimals = 0 if str(account.get("currency_code", "")).upper() in ZERO_DECIMAL_CURRENCIES else 2
    names = [n for n in ROW_SECTIONS if n in data] + [n for n in FIELD_SECTIONS if n in data]
    names += [n for n in data if n not in names and isinstance(data[n], (list, dict))]
    for name in names:
        value = data[name]
        if isinstance(value, list):
            tables.append(SectionTable(name, "rows", value, _columns(value), decimals))
        elif isinstance(value, dict):
            tables.append(SectionTable(name, "fields", list(value.items()), ["key", "value"], decimals))
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, (list, dict))]
    if scalars:  # schema_version, platform...: shown, addressed as /<key>
        tables.append(SectionTable("", "fields", scalars, ["key", "value"]))
    return tables


def locate(tables: list[SectionTable], pointer: str) -> tuple[int, int] | None:
    """(table position, row index) of the row a pointer is in (or points into), or None."""
    parts = pointer.split("/")
    if len(parts) < 2 or parts[0] != "":
        return None
    for t, table in enumerate(tables):
        if table.name == "":
            if len(parts) >= 2:
                key = unescape_token(parts[1])
                for i, (k, _v) in enumerate(table.items):
                    if k == key:
                        return t, i
            continue
        if unescape_token(parts[1]) != table.name or len(parts) < 3:
            continue
        token = unescape_token(parts[2])
        if table.kind == "rows":
            if token.isdigit() and int(token) < len(table):
                return t, int(token)
        else:
            for i, (k, _v) in enumerate(table.items):
                if k == token:
                    return t, i
    return None


def section_title(table: SectionTable) -> str:
    return table.name or "top level"
