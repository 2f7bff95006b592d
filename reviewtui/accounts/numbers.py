"""How the numbers of an export read: the decimal mark, decided once per column, and currency marks.

A value alone cannot say whether ``12,345`` is twelve thousand or twelve and a
third: a column can. Every value of a column is looked at first
(``NumberScan.observe``); the values that settle the mark (``12,34``,
``1.234,56``, ``1,234.56``, ``1,234,567``) decide it for the whole column, and a
column that writes both marks is refused with a line of each. A column no value
settles takes the mark the file's other columns use, else a ``;`` file's
(a decimal-comma locale's); a ``,`` or tab file with nothing to settle it is
refused with ``--decimal-mark`` (Google writes ``"2.280"`` for 2,280 in
German, in a ``,`` file). A count (impressions, clicks, reach) falls back to
the decimal point: read so, ``8.942`` is not whole and is refused later.

Currency symbols and codes around a value (``$12.50``, ``12,50 €``, ``USD 12.50``)
are recorded with the first line they appear on, so the import can hold them
against the account's currency (``currency_problem``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from .csvread import InputError

EMPTY = frozenset({"", "--", " --", "-", "n/a", "N/A"})
DECIMAL_MARKS = (".", ",")

# Currency marks and the ISO codes each may stand for.
CURRENCY_MARKS: dict[str, frozenset[str]] = {
    "$": frozenset({"USD", "AUD", "CAD", "NZD", "SGD", "HKD", "MXN", "ARS", "CLP", "COP", "TWD", "UYU"}),
    "US$": frozenset({"USD"}), "A$": frozenset({"AUD"}), "AU$": frozenset({"AUD"}), "C$": frozenset({"CAD"}),
    "CA$": frozenset({"CAD"}), "NZ$": frozenset({"NZD"}), "HK$": frozenset({"HKD"}), "S$": frozenset({"SGD"}),
    "MX$": frozenset({"MXN"}), "R$": frozenset({"BRL"}), "NT$": frozenset({"TWD"}),
    "€": frozenset({"EUR"}), "£": frozenset({"GBP"}), "¥": frozenset({"JPY", "CNY"}), "￥": frozenset({"JPY", "CNY"}),
    "JP¥": frozenset({"JPY"}), "CN¥": frozenset({"CNY"}), "₹": frozenset({"INR"}), "₩": frozenset({"KRW"}),
    "₽": frozenset({"RUB"}), "₺": frozenset({"TRY"}), "₫": frozenset({"VND"}), "₱": frozenset({"PHP"}),
    "₪": frozenset({"ILS"}), "฿": frozenset({"THB"}), "₴": frozenset({"UAH"}), "₦": frozenset({"NGN"}),
    "zł": frozenset({"PLN"}), "Kč": frozenset({"CZK"}), "Ft": frozenset({"HUF"}), "kr": frozenset({"SEK", "NOK", "DKK", "ISK"}),
    "kr.": frozenset({"DKK", "ISK"}), "CHF": frozenset({"CHF"}), "Fr.": frozenset({"CHF"}), "R": frozenset({"ZAR"}),
    "Rp": frozenset({"IDR"}), "RM": frozenset({"MYR"}), "lei": frozenset({"RON"}),
}
_CODE = re.compile(r"^[A-Z]{3}$")
# A value: an optional mark before, the figure, an optional mark after.
_PARTS = re.compile(r"^(?P<pre>[^\d(+\-.,<>]*)(?P<num>.*?[\d)%])(?P<post>[^\d%)]*)$")
_GROUPING = str.maketrans("", "", "\u00a0\u202f' ")


def mark_currencies(mark: str) -> frozenset[str] | None:
    """The currencies a mark may stand for; None when it is no currency mark."""
    if mark in CURRENCY_MARKS:
        return CURRENCY_MARKS[mark]
    return frozenset({mark}) if _CODE.match(mark) else None


def _split(raw: str) -> tuple[str, str] | None:
    """(figure, currency mark) of a value; None when what surrounds the figure is no currency mark."""
    m = _PARTS.match(raw)
    if m is None:
        return None
    mark = (m.group("pre") + m.group("post")).replace("\u00a0", "").replace(" ", "")
    if mark and mark_currencies(mark) is None:
        return None
    return m.group("num").strip(), mark


def _settles(figure: str) -> str | None:
    """The decimal mark this figure shows unambiguously, if any ('12,34' -> ',', '1,234' -> none)."""
    figure = figure.translate(_GROUPING).lstrip("<>(-+").rstrip("%)")
    dots, commas = figure.count("."), figure.count(",")
    if dots and commas:
        return "." if figure.rfind(".") > figure.rfind(",") else ","
    if commas:
        if commas > 1:
            return "."  # 1,234,567: the comma groups thousands
        return None if len(figure) - figure.rfind(",") - 1 == 3 else ","
    if dots:
        if dots > 1:
            return ","
        return None if len(figure) - figure.rfind(".") - 1 == 3 else "."
    return None


@dataclass
class NumberScan:
    """What the values of one numeric column show, gathered before any is read."""

    column: str
    whole: bool = False  # a count: its values have no decimals, so a reading that gives them one is refused later
    settled: dict[str, tuple[int, str]] = field(default_factory=dict)  # mark -> (first line, value)
    ambiguous: dict[str, tuple[int, str]] = field(default_factory=dict)  # ',' or '.' -> first value reading both ways
    marks: dict[str, int] = field(default_factory=dict)  # currency mark -> first line

    def observe(self, raw: str, line: int, path: Path) -> None:
        if raw.isdecimal() or raw in EMPTY:
            return
        value = raw.strip()
        if value in EMPTY:
            return
        first, last = value[0], value[-1]
        if first.isdigit() and last.isdigit() and "," not in value and "." in value and "." in self.settled:
            return  # 12.34 once more: nothing new
        parts = _split(value)
        if parts is None:
            raise InputError(path, line, f"{raw!r} is not a number; expected digits with an optional currency "
                             "symbol and thousands separators, or -- for none", self.column)
        figure, mark = parts
        if mark and mark not in self.marks:
            self.marks[mark] = line
        settled = _settles(figure)
        if settled is not None:
            self.settled.setdefault(settled, (line, raw))
        elif "," in figure:
            self.ambiguous.setdefault(",", (line, raw))
        elif "." in figure:
            self.ambiguous.setdefault(".", (line, raw))

    def own_mark(self, path: Path) -> str | None:
        """The mark the column's own values settle; refuses a column that writes both."""
        if len(self.settled) > 1:
            (l1, v1), (l2, v2) = self.settled["."], self.settled[","]
            raise InputError(path, max(l1, l2), f"the column writes decimals with '.' (line {l1}: {v1!r}) and with ',' "
                             f"(line {l2}: {v2!r}); one column has one decimal mark: export the report again in "
                             "one language setting", self.column)
        return next(iter(self.settled), None)


def decide_marks(scans: list[NumberScan], path: Path, delimiter: str, forced: str | None) -> dict[str, str]:
    """The decimal mark of each column (by column name), decided once for the column."""
    own = {s.column: s.own_mark(path) for s in scans}
    if forced:
        for s in scans:
            mark = own[s.column]
            if mark is not None and mark != forced:
                line, value = s.settled[mark]
                raise InputError(path, line, f"--decimal-mark {forced!r}, but {value!r} writes the decimal with "
                                 f"{mark!r}", s.column)
        return {s.column: forced for s in scans}
    file_marks = {m for m in own.values() if m}
    # A column nothing settles reads as the file's other columns do; else a ';' file as the decimal-comma
    # locales that write it. A ',' file settles nothing: Google writes "2.280" for 2,280 in German.
    fallback = next(iter(file_marks)) if len(file_marks) == 1 else {";": ","}.get(delimiter)
    marks = {}
    for s in scans:
        mark = own[s.column]
        if mark is None and s.ambiguous and fallback is None and not s.whole:
            line, value = next(iter(s.ambiguous.values()))
            raise InputError(path, line, f"{value!r} reads as a decimal and as thousands, and nothing in the file "
                             "settles which (no value such as 12.34, 12,34 or 1,234.56 in any column): pass "
                             "--decimal-mark . or --decimal-mark ,", s.column)
        if mark == "." and delimiter == ";" and "," in s.ambiguous:
            # A ';' file is written where ',' is the decimal mark: 12,345 there is twelve and a third.
            (l1, v1), (l2, v2) = s.settled["."], s.ambiguous[","]
            raise InputError(path, max(l1, l2), f"{v1!r} (line {l1}) writes the decimal with '.', but in this "
                             f"';'-separated file {v2!r} (line {l2}) reads as a decimal with ',': one column has one "
                             "decimal mark; pass --decimal-mark . or --decimal-mark , to say which", s.column)
        marks[s.column] = mark or fallback or "."
    return marks


def parse_number(text: str, path: Path, line: int, column: str, decimal: str = ".") -> Decimal | None:
    """A number as exported, read with the column's decimal mark; None for an empty cell.

    A trailing ``%`` is a share (``12.5%`` -> 0.125); Google's ``< 10%`` reads 0.0999
    (below ten percent, the figure unknown) and ``> 90%`` 0.9.
    """
    if text.isdecimal():
        return Decimal(text)
    if decimal == "." and text[:1].isdigit() and text[-1:].isdigit() and "," not in text and "_" not in text \
            and " " not in text:
        try:  # 37.108165741, as most cells are: nothing to strip or regroup
            return Decimal(text)
        except InvalidOperation:
            pass
    raw = text.strip()
    if raw in EMPTY:
        return None
    parts = _split(raw)
    if parts is None:
        raise InputError(path, line, f"{raw!r} is not a number; expected digits with an optional currency "
                         "symbol and thousands separators, or -- for none", column)
    value = parts[0]
    if value.startswith("<") and value.endswith("%"):
        return Decimal("0.0999")
    if value.startswith(">") and value.endswith("%"):
        return Decimal("0.9")
    percent = value.endswith("%")
    value = value.rstrip("%").strip()
    negative = value.startswith("(") and value.endswith(")")
    value = value.strip("()").translate(_GROUPING)
    if decimal == ",":
        value = value.replace(".", "").replace(",", ".")
    else:
        value = value.replace(",", "")
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise InputError(path, line, f"{raw!r} is not a number; expected digits with an optional "
                         "currency symbol and thousands separators, or -- for none", column) from None
    if not number.is_finite() or "_" in value:
        raise InputError(path, line, f"{raw!r} is not a number", column)
    if negative:
        number = -number
    return number / 100 if percent else number


def currency_problem(marks: dict[str, int], currency: str) -> tuple[int, str] | None:
    """(line, message) when a column's currency marks disagree with each other or with the currency."""
    if len(marks) > 1:
        (m1, l1), (m2, l2) = sorted(marks.items(), key=lambda kv: kv[1])[:2]
        return l2, (f"the column mixes currencies: {m1!r} (line {l1}) and {m2!r} (line {l2}); one account has one "
                    "currency: export each currency's accounts on their own")
    for mark, line in marks.items():
        allowed = mark_currencies(mark) or frozenset()
        if currency not in allowed:
            return line, (f"{mark!r} is not {currency}, the export's currency: the figures are in another currency "
                          "than the account's; export the report again in the account's currency")
    return None
