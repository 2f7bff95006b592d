"""Reading export CSVs: the table with its line numbers, numbers and dates as exported.

Every error names the file, the line and the column, and says what to change.
Numbers are parsed to ``Decimal`` from the exact exported text, so a cost like
``1.429999948`` is kept digit for digit and sums are exact.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path


class InputError(Exception):
    """Bad input: ``file:line: column 'X': message``. Nothing has been written."""

    def __init__(self, path: str | Path, line: int, message: str, column: str | None = None) -> None:
        where = f"{path}:{line}: " + (f"column {column!r}: " if column else "")
        super().__init__(where + message)
        self.path = Path(path)
        self.line = line
        self.column = column
        self.message = message


@dataclass
class Table:
    """A CSV file's data rows under its header, each with its 1-based line number."""

    path: Path
    header: list[str]
    header_line: int
    rows: list[tuple[int, list[str]]]
    preamble: list[list[str]]  # rows above the header (Google's title and date-range lines)

    def column(self, name: str) -> int | None:
        try:
            return self.header.index(name)
        except ValueError:
            return None


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (with or without BOM) or UTF-16 with a BOM (Excel-style downloads)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, 1, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, 1, "is a folder, not a CSV file") from None
    if not raw.strip():
        raise InputError(path, 1, "the file is empty: export the report again with at least one row")
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = raw.decode("utf-16")
    else:
        if b"\x00" in raw[:4096]:
            raise InputError(path, 1, "not a CSV file (binary content); export the report as CSV")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise InputError(path, line, f"not UTF-8 text ({exc.reason}); export the report as CSV in UTF-8") from None
    return text


def _delimiter(lines: list[str]) -> str:
    """The delimiter of the widest line among the first ones: comma, tab or semicolon."""
    best, best_count = ",", 0
    for delim in (",", "\t", ";"):
        count = max((len(next(csv.reader([ln], delimiter=delim))) for ln in lines[:20] if ln.strip()), default=0)
        if count > best_count:
            best, best_count = delim, count
    return best


def read_table(path: str | Path, is_header) -> Table:
    """Split the file into preamble, header and data rows.

    ``is_header(cells)`` picks the header row among the first lines (exports put
    a title or date range above it). Blank rows are skipped.
    """
    path = Path(path)
    text = read_text(path)
    lines = text.splitlines()
    delim = _delimiter(lines)
    # Physical line numbers through the reader (a quoted value may span lines).
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
    numbered: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for cells in reader:
            numbered.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"not a readable CSV file ({exc}); export the report as CSV") from None
    header_at = None
    for i, (_line, cells) in enumerate(numbered[:15]):
        if is_header([c.strip() for c in cells]):
            header_at = i
            break
    if header_at is None:
        return Table(path, [], 0, [], [c for _l, c in numbered[:15]])
    line, header = numbered[header_at]
    header = [c.strip() for c in header]
    rows = [(ln, cells) for ln, cells in numbered[header_at + 1:] if any(c.strip() for c in cells)]
    for ln, cells in rows:
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            raise InputError(path, ln, f"{len(cells)} cells under a header of {len(header)} columns; "
                             "a value holds an unquoted delimiter: export the report again as CSV")
    return Table(path, header, line, rows, [c for _l, c in numbered[:header_at]])


EMPTY = {"", "--", " --", "-", "n/a", "N/A"}
_CURRENCY_CHARS = "$€£¥₹₩₽ "


def parse_number(text: str, path: Path, line: int, column: str) -> Decimal | None:
    """A number as exported: currency symbols, thousands separators, ``--`` for none.

    Returns None for an empty cell. A trailing ``%`` is kept as a share (``12.5%`` -> 0.125);
    Google's ``< 10%`` is read as 0.0999 (below ten percent, figure unknown).
    """
    raw = text.strip()
    if raw in EMPTY:
        return None
    value = raw.strip(_CURRENCY_CHARS)
    for code in ("USD", "EUR", "GBP"):
        value = value.replace(code, "").strip()
    if value.startswith("<") and value.endswith("%"):
        return Decimal("0.0999")
    if value.startswith(">") and value.endswith("%"):
        return Decimal("0.9")
    percent = value.endswith("%")
    value = value.rstrip("%").strip()
    negative = value.startswith("(") and value.endswith(")")
    value = value.strip("()").replace("\u00a0", "").replace("'", "").replace(" ", "")
    if "," in value and ("." not in value or value.rfind(",") > value.rfind(".")) and \
            ("." in value or len(value) - value.rfind(",") - 1 != 3):
        # a decimal comma (1.234,56 or 12,5), as European-locale exports write it
        value = value.replace(".", "").replace(",", ".")
    else:
        value = value.replace(",", "")
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise InputError(path, line, f"{raw!r} is not a number; expected digits with an optional "
                         "currency symbol and thousands separators, or -- for none", column) from None
    if not number.is_finite():
        raise InputError(path, line, f"{raw!r} is not a number", column)
    if negative:
        number = -number
    return number / 100 if percent else number


# The date formats an export may use, by the name a user passes to --date-format.
DATE_FORMATS = {
    "YYYY-MM-DD": "%Y-%m-%d",
    "YYYY/MM/DD": "%Y/%m/%d",
    "DD/MM/YYYY": "%d/%m/%Y",
    "MM/DD/YYYY": "%m/%d/%Y",
    "DD-MM-YYYY": "%d-%m-%Y",
    "MM-DD-YYYY": "%m-%d-%Y",
    "DD.MM.YYYY": "%d.%m.%Y",
    "Mon D, YYYY": "%b %d, %Y",
    "Month D, YYYY": "%B %d, %Y",
    "D Mon YYYY": "%d %b %Y",
}
_DAY_MONTH = re.compile(r"^\s*(\d{1,2})([/.-])(\d{1,2})\2(\d{4})\s*$")


def _try(fmt: str, text: str) -> date | None:
    try:
        return datetime.strptime(text.strip(), fmt).date()
    except ValueError:
        return None


def detect_date_format(values: list[tuple[int, str]], path: Path, column: str) -> str:
    """The one format every value fits; refuses to choose between day-first and month-first.

    ``01/08/2023`` is the 1st of August or the 8th of January: when no value has a
    day above 12 to settle it, the user names the format with ``--date-format``.
    """
    present = [(ln, v.strip()) for ln, v in values if v.strip() not in EMPTY]
    if not present:
        raise InputError(path, values[0][0] if values else 1, "no dates in the column", column)
    fitting = [name for name, fmt in DATE_FORMATS.items() if all(_try(fmt, v) for _ln, v in present)]
    readings = {tuple(_try(DATE_FORMATS[name], v) for _ln, v in present) for name in fitting}
    if len(readings) == 1:  # one format, or several that read every value alike ("May 1, 2023")
        return fitting[0]
    if len(fitting) > 1:
        ln, v = present[0]
        raise InputError(path, ln, f"dates like {v!r} read both as {' and as '.join(fitting)}; "
                         "the importer never guesses: pass " + " or ".join(f"--date-format '{n}'" for n in fitting), column)
    for ln, v in present:
        if not any(_try(fmt, v) for fmt in DATE_FORMATS.values()):
            raise InputError(path, ln, f"{v!r} is not a date in a known format ({', '.join(DATE_FORMATS)}); "
                             "pass --date-format or export with ISO dates", column)
    ln, v = present[0]
    raise InputError(path, ln, "the dates in this column mix several formats; export them in one format", column)


def parse_date(text: str, fmt_name: str, path: Path, line: int, column: str) -> date:
    fmt = DATE_FORMATS[fmt_name]
    parsed = _try(fmt, text)
    if parsed is None:
        raise InputError(path, line, f"{text.strip()!r} is not a {fmt_name} date", column)
    return parsed


def check_date_format_name(name: str) -> str:
    if name not in DATE_FORMATS:
        raise ValueError(f"--date-format {name!r} is not one of: {', '.join(DATE_FORMATS)}")
    return name
