"""Amounts in another currency than the account's: a report a client would misread.

The figure checks compare numbers, not their currency marks: "$4,210.55" in a
GBP account grounds on the row's 4210.55 all the same. So the weekly run
reads every currency sign (any character Unicode calls a currency symbol,
with the letters written right before it: ``US$``, ``A$``, ``R$``) and every
ISO 4217 code written beside a number (``USD 1,200``, ``1,200 EUR``) in the
findings' claims and evidence, and holds the account for review when one is
not the account's ``currency_code``. A currency the table below does not
know allows its code only.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Mapping, Sequence

# The signs each currency is written with ("$" alone is also the sign of several dollars and pesos).
SIGNS: dict[str, frozenset[str]] = {code: frozenset(signs) for code, signs in {
    "USD": ("$", "US$"), "EUR": ("€",), "GBP": ("£",), "JPY": ("¥", "JP¥"), "CNY": ("¥", "CN¥"),
    "INR": ("₹",), "AUD": ("$", "A$", "AU$"), "CAD": ("$", "C$", "CA$"), "NZD": ("$", "NZ$"),
    "SGD": ("$", "S$"), "HKD": ("$", "HK$"), "MXN": ("$", "MX$"), "BRL": ("R$",), "KRW": ("₩",),
    "RUB": ("₽",), "TRY": ("₺",), "ILS": ("₪",), "PHP": ("₱",), "VND": ("₫",), "THB": ("฿",),
    "UAH": ("₴",), "NGN": ("₦",), "PLN": (), "CHF": (), "SEK": (), "NOK": (), "DKK": (), "CZK": (),
    "HUF": (), "ZAR": (), "AED": (), "SAR": (),
}.items()}
# ISO 4217 codes looked for beside a number (three capitals alone are too often something else).
CODES = frozenset(SIGNS)
_CODE_BY_NUMBER = re.compile(r"\b([A-Z]{3})\s?[-+]?\d|\d\s?([A-Z]{3})\b")
_PREFIX = re.compile(r"[A-Z]{1,3}$")
_PREFIXED = frozenset(sign for signs in SIGNS.values() for sign in signs if len(sign) > 1)


def currency_marks(text: str) -> list[str]:
    """Every currency sign (with its letter prefix) and every currency code beside a number in ``text``."""
    marks = []
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "Sc":
            prefix = _PREFIX.search(text[max(0, i - 3):i])
            # Only a prefix that makes a known sign counts ("US$"); other letters are a word before it ("CPA$12").
            prefixed = [prefix.group(0)[-n:] + ch for n in (3, 2, 1)] if prefix else []
            marks.append(next((m for m in prefixed if m in _PREFIXED), ch))
    for match in _CODE_BY_NUMBER.finditer(text):
        code = match.group(1) or match.group(2)
        if code in CODES:
            marks.append(code)
    return marks


def foreign_marks(text: str, currency: str) -> list[str]:
    """The marks in ``text`` that are not the account's ``currency`` (in order, each once)."""
    allowed = SIGNS.get(currency, frozenset()) | {currency}
    foreign: list[str] = []
    for mark in currency_marks(text):
        if mark not in allowed and mark not in foreign:
            foreign.append(mark)
    return foreign


def currency_problems(findings: Sequence[Mapping[str, Any]], currency: str | None) -> list[str]:
    """One line per finding that writes amounts in another currency than ``currency``."""
    if not currency:
        return []
    problems = []
    for number, finding in enumerate(findings, 1):
        marks = foreign_marks(f"{finding.get('claim') or ''} {finding.get('evidence') or ''}", currency)
        if marks:
            problems.append(f"finding {number} writes amounts in {', '.join(marks)}; the account's currency is "
                            f"{currency}")
    return problems
