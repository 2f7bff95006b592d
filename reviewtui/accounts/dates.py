"""Dates in exports: the one format a date column is written in, and the report's own date range.

A column's format is the one every value fits, decided over its distinct values
(a month of daily rows has about thirty, however many rows there are); when the
values read both day-first and month-first the import asks, it never guesses.

The date-range line above a report's header (``June 1, 2023 - June 15, 2023``)
is read in the languages the platforms write it in: English, Japanese
(``2023年6月1日～2023年6月15日``, ``(2023/06/01-2023/06/15)``), German
(``1. Juni 2023 - 15. Juni 2023``, ``01.06.2023 - 15.06.2023``), French
(``1 juin 2023 - 15 juin 2023``, ``1er sept. 2023``) and Spanish
(``1 de junio de 2023 - 15 de junio de 2023``), and in ISO.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from pathlib import Path
from typing import Callable, Iterable

from .csvread import InputError
from .numbers import EMPTY

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


def _try(fmt: str, text: str) -> date | None:
    try:
        return datetime.strptime(text.strip(), fmt).date()
    except ValueError:
        return None


def detect_date_format(values: Iterable[tuple[int, str]], path: Path, column: str) -> str:
    """The one format every value fits; refuses to choose between day-first and month-first.

    ``values`` are (line, text) pairs, one per distinct text is enough. ``01/08/2023`` is
    the 1st of August or the 8th of January: when no value has a day above 12 to settle
    it, the user names the format with ``--date-format``.
    """
    pairs = list(values)
    present = [(ln, v.strip()) for ln, v in pairs if v.strip() not in EMPTY]
    if not present:
        raise InputError(path, pairs[0][0] if pairs else 1, "no dates in the column", column)
    fitting = [name for name, fmt in DATE_FORMATS.items() if all(_try(fmt, v) for _ln, v in present)]
    readings = {tuple(_try(DATE_FORMATS[name], v) for _ln, v in present) for name in fitting}
    if len(readings) == 1:  # one format, or several that read every value alike ("May 1, 2023")
        return fitting[0]
    if len(fitting) > 1:
        ln, v = min(present)
        raise InputError(path, ln, f"dates like {v!r} read both as {' and as '.join(fitting)}; "
                         "the importer never guesses: pass " + " or ".join(f"--date-format '{n}'" for n in fitting), column)
    for ln, v in sorted(present):
        if not any(_try(fmt, v) for fmt in DATE_FORMATS.values()):
            raise InputError(path, ln, f"{v!r} is not a date in a known format ({', '.join(DATE_FORMATS)}); "
                             "pass --date-format or export with ISO dates", column)
    ln, v = min(present)
    raise InputError(path, ln, "the dates in this column mix several formats; export them in one format", column)


def date_reader(fmt_name: str) -> Callable[[str], date | None]:
    """A reader of one format's dates, each distinct text parsed once (a column repeats ~30 texts)."""
    fmt = DATE_FORMATS[fmt_name]
    seen: dict[str, date | None] = {}

    def read(text: str) -> date | None:
        try:
            return seen[text]
        except KeyError:
            parsed = seen[text] = _try(fmt, text)
            if len(seen) > 100_000:  # not a date column's few texts: keep memory bounded
                seen.clear()
            return parsed
    return read


# --- the report's own date range -------------------------------------------------------------

_MONTHS_BY_LANGUAGE = {  # full names, then abbreviations, January first (accents folded away)
    "en": ("january february march april may june july august september october november december",
           "jan feb mar apr may jun jul aug sep oct nov dec"),
    "de": ("januar februar marz april mai juni juli august september oktober november dezember",
           "jan feb mar apr mai jun jul aug sep okt nov dez"),
    "fr": ("janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre",
           "janv fevr mars avr mai juin juil aout sept oct nov dec"),
    "es": ("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
           "ene feb mar abr may jun jul ago sep oct nov dic"),
}
_OTHER_MONTH_NAMES = {"sept": 9, "mrz": 3, "maerz": 3, "janner": 1, "fev": 2, "set": 9, "setiembre": 9}


def _fold(text: str) -> str:
    """Lowercase without accents: 'Févr.' -> 'fevr.', 'März' -> 'marz'."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def _month_table() -> dict[str, int]:
    table = dict(_OTHER_MONTH_NAMES)
    for full, short in _MONTHS_BY_LANGUAGE.values():
        for names in (full.split(), short.split()):
            for i, name in enumerate(names, 1):
                table[name] = i
    return table


MONTHS = _month_table()
_YMD = re.compile(r"^(\d{4})\s*[-/.年년]\s*(\d{1,2})\s*[-/.月월]\s*(\d{1,2})\s*[日일.]?$")
_DMY_DOTS = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")
_NUMERIC_SLASH = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_SEPARATORS = re.compile(r"\s*(?:～|〜|~|–|—|\s-\s|\sbis\s|\sau\s|\sal\s|\sa\s)\s*")
_WORDS_DROPPED = {"de", "del", "le", "el", "du"}


def _real(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def parse_range_day(text: str) -> date | None:
    """One day as a range line writes it, in any of the languages above; None when it is not one."""
    text = text.strip().strip("\"'()[]").strip()
    if not text:
        return None
    if m := _YMD.match(text):
        return _real(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if m := _DMY_DOTS.match(text):
        return _real(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    if m := _NUMERIC_SLASH.match(text):
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if a > 12 >= b:
            return _real(y, b, a)
        if b > 12 >= a:
            return _real(y, a, b)
        return None  # 01/06/2023: the range line is not where a guess is made
    tokens = [t for t in re.split(r"[\s,]+", _fold(text)) if t and t not in _WORDS_DROPPED]
    year = day = month = None
    for token in tokens:
        bare = token.rstrip(".")
        if re.fullmatch(r"\d{4}", bare):
            year = int(bare)
        elif re.fullmatch(r"\d{1,2}(er|º|°)?", bare):
            day = int(re.match(r"\d+", bare).group())  # type: ignore[union-attr]
        elif bare in MONTHS:
            month = MONTHS[bare]
        else:
            return None
    if year is None or day is None or month is None or len(tokens) != 3:
        return None
    return _real(year, month, day)


def _slash_pair(first: str, second: str) -> tuple[date | None, date | None] | None:
    """01/06/2023 - 15/06/2023: one side's day above 12 settles the order of both."""
    a, b = _NUMERIC_SLASH.match(first.strip()), _NUMERIC_SLASH.match(second.strip())
    if not (a and b):
        return None
    numbers = [(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in (a, b)]
    if any(x > 12 for x, _y, _z in numbers) and all(y <= 12 for _x, y, _z in numbers):
        return _real(numbers[0][2], numbers[0][1], numbers[0][0]), _real(numbers[1][2], numbers[1][1], numbers[1][0])
    if any(y > 12 for _x, y, _z in numbers) and all(x <= 12 for x, _y, _z in numbers):
        return _real(numbers[0][2], numbers[0][0], numbers[0][1]), _real(numbers[1][2], numbers[1][0], numbers[1][1])
    return None


def parse_range(text: str) -> tuple[date, date] | None:
    """A date range (or a single day) as a report's range line writes it."""
    text = text.strip().strip('"').strip()
    candidates = [text] + re.findall(r"\(([^()]*)\)", text)
    for candidate in candidates:
        parts = _SEPARATORS.split(candidate.strip())
        if len(parts) == 1 and candidate.count("-") == 1 and "/" in candidate:  # (2023/06/01-2023/06/15)
            parts = candidate.split("-")
        if len(parts) == 2:
            start, end = _slash_pair(parts[0], parts[1]) or (parse_range_day(parts[0]), parse_range_day(parts[1]))
            if start and end and start <= end:
                return start, end
        elif len(parts) == 1 and (day := parse_range_day(candidate)):
            return day, day
    return None


_YEAR = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)")
_DIGIT_GROUP = re.compile(r"\d+")


def unreadable_range_line(preamble: list[tuple[int, list[str]]]) -> tuple[int, str] | None:
    """A line above the header that looks like a date range (a year and two more numbers, or two
    years) but that ``parse_range`` cannot read: (line, text). Its range is unknown, not absent."""
    for line, cells in preamble:
        text = " ".join(c.strip() for c in cells if c.strip())
        years = len(_YEAR.findall(text))
        if years >= 2 or (years == 1 and len(_DIGIT_GROUP.findall(text)) >= 3):
            return line, text
    return None


def range_in_preamble(preamble: list[tuple[int, list[str]]]) -> tuple[date, date, int, str] | None:
    """The report's range from a line above the header: (start, end, line, the line's text)."""
    for line, cells in preamble:
        text = " ".join(c.strip() for c in cells if c.strip())
        if not text:
            continue
        found = parse_range(text)
        if found:
            return found[0], found[1], line, text
    return None
