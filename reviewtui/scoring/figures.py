"""Finding figures in free text: what is a figure and what is not.

A *figure* is a number a reader would take as a claim about the account:
``$1,234``, ``-12.5%``, ``1.2k clicks``, ``2.4x target``, ``EUR 48,213.77``.
Each ``Figure`` keeps its span in the text (so the app can highlight it in
place), its value, its unit kind, what it measures (``measure``: money, a
count, a ratio, a percentage, a multiplier, or unknown, from its unit or the
words around it, so grounding matches it only against values of a compatible
unit) and its printed precision (so grounding can accept exactly the values
that round to what was printed).

Not figures (returned by ``scan`` as ``Skipped`` spans, with the reason):
dates and times in the common forms (2025-03-09, 09/03/2025, 9.3.2025,
9 March 2025, March 9, Mar 9th, March 9-18, 2025-03-09T10:00, 14:02, 3pm,
a year after "in", "since", "of"...), ordinals (3rd, 21st), JSON Pointers
(/daily/212), taxonomy ids with a scope (waste.zero_conv_campaign@333),
digits glued to letters (GA4, Q1, B2B), and digits inside identifiers or
names that appear verbatim in the snapshot (``Identifiers``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Callable, Iterable

PER_MONTH = -1  # Figure.per_days of "about 10 a month": the days of the period's month
# What a figure measures, read from its text: its written unit, or for a plain number the words
# around it ("CPA 24.00" is money, "1,187 clicks" a count, "ROAS 2.35" a ratio); "unknown" when
# nothing says.
MEASURES = ("money", "count", "ratio", "percent", "multiplier", "unknown")

CURRENCY_SYMBOLS = {"US$": "USD", "A$": "AUD", "C$": "CAD", "$": "$", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
CURRENCY_CODES = ["USD", "EUR", "GBP", "CHF", "JPY", "AUD", "CAD", "NZD", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "RON", "BGN", "TRY", "INR", "BRL", "MXN", "ARS", "CLP", "COP", "ZAR", "SGD", "HKD", "CNY", "KRW", "TWD", "THB", "IDR", "MYR", "PHP", "ILS", "AED", "SAR"]
CURRENCY_WORDS = {"euro": "EUR", "euros": "EUR", "dollar": "$", "dollars": "$", "pound": "GBP", "pounds": "GBP"}
SCALES = {"k": 1e3, "K": 1e3, "thousand": 1e3, "M": 1e6, "m": 1e6, "million": 1e6, "bn": 1e9, "B": 1e9, "billion": 1e9}

_SYMBOL = "|".join(re.escape(s) for s in sorted(CURRENCY_SYMBOLS, key=len, reverse=True))
_CODE = "|".join(CURRENCY_CODES)
# Where a figure may start (a sign, a currency's first character, a digit or a point), looked
# ahead first: the regular expression engine then passes over every other place in one step
# instead of trying each alternative there (the alternation is unchanged, and so are its matches).
_FIGURE_START = "[-+\u2212.\\d" + "".join(sorted({re.escape(s[0]) for s in [*CURRENCY_SYMBOLS, *CURRENCY_CODES]})) + "]"
_FIGURE_RE = re.compile(
    rf"""
    (?={_FIGURE_START})
    (?P<sign>[-+\u2212])?
    (?:(?P<pre_sym>{_SYMBOL})\s?|(?P<pre_code>{_CODE})\s?)?
    (?P<sign2>[-\u2212])?
    (?P<num>
        (?P<eu>\d{{1,3}}(?:\.\d{{3}})+,\d{{1,2}}(?![\d,])|\d{{1,3}}(?:\.\d{{3}}){{2,}}(?![\d,])|\d{{1,3}},\d{{1,2}}(?=\s?%))  # 1.234,56 / 1.234.567 / 12,5 %
      | \d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+
    )
    (?P<scale>\s?(?:bn|k|K|M)(?![A-Za-z])|[mB](?![A-Za-z])|\s(?:thousand|million|billion)\b)?
    (?P<post>
        \s?%|\s?(?:per\s?cent|percent|pct)\b|\s?(?:pp|percentage\s+points?)\b
      | x(?![A-Za-z0-9])|\s?\u00d7|\s(?:times)\b
      | \s?(?:{_SYMBOL})|\s?(?:{_CODE})\b|\s(?:euros?|dollars?|pounds?)\b
    )?
    """,
    re.VERBOSE,
)

_MONTH = (
    r"(?:(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)|May|MAY)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_DASH = r"\s*(?:-|\u2013|\u2014|to|until|through|till)\s*"
# What is not a figure, most specific first; one alternation so a text is scanned once.
# The glossary's term names that hold a number (tests/unit/test_glossary.py checks the list is whole).
TERM_NAMES_WITH_NUMBERS = ("last 7 complete days", "per 30 days")
_NOT_FIGURE_PARTS: list[tuple[str, str]] = [
    ("date",
     r"\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d)"
     r"|\b\d{4}-\d{2}(?![\d-])"  # 2025-03
     r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}/\d{1,2}/\d{1,2}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b"),
    ("date",
     rf"\b\d{{1,2}}{_ORD}(?:{_DASH}\d{{1,2}}{_ORD})?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}}(?![\d-]))?(?![\w])"
     rf"|\b{_MONTH}\s+\d{{4}}\b"
     rf"|\b{_MONTH}\s+\d{{1,2}}{_ORD}(?!\d)(?:{_DASH}(?:{_MONTH}\s+)?\d{{1,2}}{_ORD}(?!\d))?(?:,?\s+\d{{4}}(?![\d-]))?"),
    ("time", r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?i:[ap]\.?m\.?))?(?!\d)|\b\d{1,2}\s?(?i:am|pm|a\.m\.|p\.m\.)(?![a-z])"),
    ("ordinal", r"\b\d+(?:st|nd|rd|th)\b|(?i:\bweek\s+\d{1,2}\b)"),  # "the 3rd", "week 2": which, not how many
    ("row pointer", r"(?<![\w/])/[A-Za-z_][\w~]*(?:/[\w~.-]+)+"),
    ("taxonomy id", r"\b[a-z_]+\.[a-z0-9_]+@[\w-]+"),
    # A number inside the name of a glossary term ("7.41 per 30 days", "over the last 7 complete days"):
    # part of the name, as "GA4" is; TERM_NAMES_WITH_NUMBERS holds every such name.
    ("term name", "|".join(r"\b" + re.escape(name).replace(r"\ ", r"\s+") + r"\b" for name in TERM_NAMES_WITH_NUMBERS)),
    # A year after a word that makes it one ("in 2024", "FY 2025"); only the year is skipped.
    ("year", r"(?i:\b(?:in|since|of|during|from|until|before|after|year|fy|q[1-4]|h[12])\s+)(?P<year>(?:19|20)\d{2})\b(?![.,/-]\d)"),
]
# Every part starts with a digit, a letter (case-blind: "ſince", "K" are word characters too), "_"
# or "/": the lookahead skips every other place at once, as _FIGURE_START does.
_NOT_FIGURE_RE = re.compile(r"(?=[\w/])(?:" + "|".join(f"(?P<nf{i}>{part})" for i, (_, part) in enumerate(_NOT_FIGURE_PARTS)) + ")")
_DATE_OR_TIME_RE = re.compile("|".join(f"(?:{part})" for why, part in _NOT_FIGURE_PARTS if why in ("date", "time")))
_ANY_DIGIT = re.compile(r"\d")
APPROXIMATE_SHARE = 0.02  # "about 242" accepts 2% either way...
HEDGE_UNITS = 1  # ...but, in the prose rules, no more than this many units of its last digit (Figure.bounds)
_HEDGE_BEFORE = re.compile(
    r"(?i:(about|around|roughly|approximately|approx\.|nearly|almost|close to|some|~|\u2248|c\.))\s*[$€£]?\s*$")
_ODD_AFTER = re.compile(r"-odd\b|\s+or\s+so\b")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2}|UTC)?")
_DAYS_AFTER = re.compile(r"[\s-]?(?:(?:complete|full|consecutive|straight|calendar|more|further|remaining|elapsed|active)\s)?days?\b", re.IGNORECASE)
_DAY_BEFORE = re.compile(r"\bdays?\s$", re.IGNORECASE)

# What a plain number's words say it is a figure of (docs/scoring.md, "Units"): its metric, which
# decides its measure and, in grounding, which values it may be compared with.
METRIC_MEASURES = {
    "cpa": "money", "cpc": "money", "value": "money", "cost": "money",
    "cvr": "ratio", "ctr": "ratio", "roas": "ratio", "share": "ratio",
    "is": "ratio", "lost_budget": "ratio", "lost_rank": "ratio", "budget_use": "ratio", "relative": "ratio",
    "all_conversions": "count", "clicks": "count", "impressions": "count", "conversions": "count",
    "days": "count", "items": "count",
    "target": "unknown",  # a target CPA or ROAS: money or a ratio
    "tolerance": "ratio",
}
_METRIC_PATTERNS = {
    "target": r"target(?:_cpa|_roas)?s?",
    "tolerance": r"tolerance|pacing_tolerance",
    "cpa": r"CPA|cost[- ]per[- ](?:acquisition|conversion|lead|purchase|booking|sale|order)s?",
    "cpc": r"CPC|cost[- ]per[- ]click",
    "cvr": r"CVR|conv(?:ersion)?\.?[- ]rate",
    "ctr": r"CTR|click[- ]?through[- ]rate",
    "roas": r"ROAS",
    "all_conversions": r"all[_ ]conversions?",
    "value": r"conversions?[_ ]value|conversion value|revenue|sales|value",
    "lost_budget": r"search_budget_lost_impression_share|budget[- ]lost(?:\s+impression)?(?:\s+share)?|lost\s+to\s+(?:the\s+)?budget"
                   r"|(?:search\s+)?impression[- ]share\s+(?:lost\s+)?to\s+budget",
    "lost_rank": r"search_rank_lost_impression_share|rank[- ]lost(?:\s+impression)?(?:\s+share)?|lost\s+to\s+(?:ad\s+)?rank",
    "is": r"search_impression_share|\w+_share|impression[- ]share",
    "share": r"share",
    "cost": r"costs?|costing|spend(?:ing)?|spent|wasted?|budgets?|schedule",
    "clicks": r"clicks?",
    "impressions": r"impressions?|impr\.",
    "conversions": r"conversions?|conv\.|purchases?|leads?|bookings?|orders?|sign-?ups?|requests?",
    "days": r"days?",
    "items": r"rows?|search\s+terms?|terms?|ads|campaigns|queries",
}
# Each pattern starts with a word character at a word's start: checked once before the alternatives.
_METRIC_WORD = re.compile(
    r"\b(?=\w)(?:" + "|".join(rf"(?P<{metric}>\b(?:{pattern})\b)" for metric, pattern in _METRIC_PATTERNS.items()) + ")",
    re.IGNORECASE)
# Phrases of time that stand between a metric word and its figure without owning it: "cost over
# those days 1,066.44", "clicks per day 410", "impressions that day 948702".
_TEMPORAL = re.compile(
    r"(?i:\b(?:over|in|during|for|across|on|of|within|that|this|the|those|these|each|every|a|per|same)"
    r"(?:\s+(?:the|those|these|its|their|all|each|every|last|first|same|previous|prior|other|remaining|"
    r"complete|settled|full|calendar|consecutive|\d+|of))*\s+(?:days?|weeks?|months?)\b)")
_PER_WORD = re.compile(r"(?i)\bper\s+$")
_PLAIN_WORDS = re.compile(r"[A-Za-z][\w'-]*")
_BEFORE_LIMIT = 90  # characters looked back for the figure's own metric word
_WORDS_BETWEEN = 4  # at most this many words between that word and the figure ("all_conversions continue at 184.00")
_CLAUSE_START = re.compile(r"[.;!?](?=\s)|[\n(\[]")
# "cost over daily budget 1.6", "CPA over target 2.4": the figure is the ratio, not money.
_RATIO_BEFORE = re.compile(r"(?i:\b(?:over|vs\.?|versus|against|divided\s+by)\s+(?:the\s+|its\s+)?(?:daily\s+|monthly\s+)?[a-z_]{2,}\s*[:=]?\s*)$")
_METRIC_AFTER = re.compile(
    r"(?i:\s*(?:(?:in|of)\s+)?(?:(?:was|were|is|are|got|been|has\s+been|have\s+been)\s+)?"
    r"(?:(?:paid|wasted|more|fewer|extra|total|recorded|zero-conversion|non-brand|brand|new|lost|missed|expected|"
    r"ad|media|daily|monthly|complete|full|calendar|consecutive|settled|remaining|elapsed|search|primary|"
    r"attributed)\s+)*(?P<word>[A-Za-z_]+(?:[- ][A-Za-z_]+)?))")
_PERCENT_IS = re.compile(r"(?i:\s*of\s+(?:its\s+|the\s+|their\s+)?(?:search\s+)?impressions?(?:\s+share)?\s+(?:lost\s+)?to\s+(?:its\s+)?(?:ad\s+)?(?P<lost>budget|rank))")
_RELATIVE_AFTER = re.compile(r"(?i)\s+(?:(?:on|of|against|over|above|below|under|ahead\s+of|behind)\s+(?:the\s+|its\s+|their\s+)?|the\s+|its\s+)"
                             r"(?:[\d.,]+\s+)?(?:budget\s+schedule|schedule|straight\s+line|expected|plan|target|pace)\b")
_CONVERTS_BEFORE = re.compile(r"(?i)\bconver(?:ts?|ted|ting)\s+(?:about\s+|around\s+)?$")
_OF_DAYS = re.compile(r"(?i)\s+of\s+(?:the\s+)?\d+\s+(?:\w+\s+)?days\b")
_PERCENT_USED = re.compile(r"(?i:\s*(?:of\s+(?:it|them|its\s+budget)\s+)?(?:used|spent|of\s+(?:the\s+)?(?:budget|schedule|plan)\b))")
_PERCENT_OF = re.compile(
    r"(?i:\s*of\s+(?:the\s+|its\s+|their\s+)?(?:account['\u2019]?s?\s+|campaign['\u2019]?s?\s+)?(?:total\s+|monthly\s+|daily\s+)?"
    r"(?:cost|spend|budget|conversions|clicks|value|revenue)\b)")
# "from $411.46 to 300.00", "108.00 against a 45.00 target", "CPA 26.4 against target 38.0": the
# second figure is of what the first is.
_SAME_MEASURE_BETWEEN = re.compile(
    r"(?i:\s*(?:to|and|->|\u2192|vs\.?|versus|against|compared\s+(?:with|to))\s+"
    r"(?:a\s+|an\s+|the\s+|its\s+)?(?:(?:account|campaign)['\u2019]?s?\s+)?(?:target\s+(?:CPA\s+|ROAS\s+)?(?:of\s+)?)?"
    r"(?:about\s+|around\s+|roughly\s+|approximately\s+|some\s+|~\s*)?)")


@dataclass(frozen=True)
class Figure:
    """One figure as printed. ``value`` is signed and scaled (``-1.2k`` -> -1200.0);
    a percentage's value is in percent (``12.5%`` -> 12.5)."""

    text: str
    start: int
    end: int
    value: float
    unit: str  # money | percent | multiplier | plain
    decimals: int  # digits printed after the decimal point
    scale: float = 1.0  # 1e3 for "1.2k", 1e6 for "3M"...
    currency: str | None = None
    day_count: bool = False  # "7 days", "day 14"
    rounded_to: int = 0  # "74,400": trailing zeros taken as rounding to hundreds (2)
    approximate: str = ""  # the hedge: "about", "around", "-odd"...
    measure: str = "unknown"  # one of MEASURES
    metric: str = ""  # what its words say it is a figure of (a key of METRIC_MEASURES), "" when they do not say
    # With no metric of its own: the metrics its sentence names, which it may be a figure of.
    sentence_metrics: frozenset[str] = frozenset()
    expected: bool = False  # its words say it is expected ("about 229 expected", "due about 20")
    per_day: bool = False  # its words say it is a figure a day ("about 1,516 a day", "clicks per day 410")
    per_days: int = 0  # "about 10 per 30 days": a figure over that many days (PER_MONTH: "a month")
    at_most: bool = False  # "8 or fewer": a whole count at most
    extreme: bool = False  # "between 118 and 129 a day", "ranged from 1372.17": a lowest or highest day
    below: bool = False  # "a chance well under 1%": a bound, not a value

    @property
    def half_unit(self) -> float:
        """Half a unit of the last printed digit (of the rounding, for ``74,400``), in the figure's own unit."""
        return 0.5 * 10.0 ** (self.rounded_to - self.decimals) * self.scale

    @property
    def last_digit_unit(self) -> float:
        """A unit of the last digit printed, trailing zeros of a whole number left out (``about 48,000``:
        1,000; ``about 26.4``: 0.1; ``about 0.30``: 0.01, a zero after the point being printed on purpose)."""
        digits = round(abs(self.value) / self.scale * 10 ** self.decimals)
        zeros = 0
        while not self.decimals and digits and digits % 10 == 0:
            digits //= 10
            zeros += 1
        return 10.0 ** (zeros - self.decimals) * self.scale

    @property
    def bounds(self) -> tuple[float, float]:
        """The magnitudes this figure accepts under the prose rules: its printed precision; ``900-odd`` is
        900 up to 1,000; a hedged figure accepts 2% more either way, but no more than ``HEDGE_UNITS`` of
        its last digit (``about 20`` is 19.1 to 20.9, ``about 26.4`` 26.25 to 26.55): a writer who prints
        three digits or more says how near the value is, and a wider hedge grounds unrelated values."""
        return self._bounds(lambda share: min(share, HEDGE_UNITS * self.last_digit_unit))

    @property
    def declared_bounds(self) -> tuple[float, float]:
        """The magnitudes this figure accepts against its own declaration: as ``bounds``, but a hedge adds
        the whole 2% (what the prompt's Figures section promises: the declaration says which value it is,
        so nothing is guessed)."""
        return self._bounds(lambda share: share)

    def _bounds(self, hedge: Callable[[float], float]) -> tuple[float, float]:
        magnitude = abs(self.value)
        if self.approximate == "-odd":
            return magnitude, magnitude + 2 * self.half_unit
        half = self.half_unit
        if self.approximate:
            half += hedge(APPROXIMATE_SHARE * magnitude)
        return magnitude - half, magnitude + half

    @property
    def center(self) -> float:
        low, high = self.bounds
        return (low + high) / 2

    @property
    def tolerance(self) -> float:
        """Half the width of ``bounds``, with room for floating-point error."""
        low, high = self.bounds
        return (high - low) / 2 + 1e-9 * max(1.0, high)


@dataclass(frozen=True)
class Skipped:
    """Digits that are not a figure, and why (``date``, ``ordinal``, ``identifier: Search | DE 2025``...)."""

    text: str
    start: int
    end: int
    why: str


class Identifiers:
    """Names and ids from a snapshot whose digits name something rather than count it.

    Names that mix digits with other characters (``Search | DE 2025``,
    ``123-456-7890``, ``b1``) are skipped wherever they appear verbatim. An id
    that is just digits (campaign ``333``, ad ``5551``) is skipped only where
    the text says it is an id: after "campaign", "ad", "budget", "id", "#" and
    the like (``campaigns 111 and 222``), or after ``@``; elsewhere ``333`` is
    a number, grounded like any other. Lookup goes by digit run, so a text is
    checked only against the names that share one of its numbers.
    """

    _PURE_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")
    _ID_CONTEXT = re.compile(
        r"(?i:\b(?:campaigns?|ad\s?groups?|ads?|budgets?|ids?|actions?|accounts?|terms?)\b\s*(?:id\s*)?[:#(]?\s*|#|@)"
        r"((?:-?\d[\d-]*)(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*/\s*|\s*&\s*)-?\d[\d-]*)*)\b"
    )

    # An id of this many digits is never a figure of the account: it names wherever it stands.
    LONG_ID_DIGITS = 8
    # Each starts with what it must find (a digit, a bracket) and looks behind it after: the engine
    # then scans for that character alone (the same matches as the lookbehind first).
    _LONG_ID = re.compile(rf"\d(?<![\d.,]\d)\d{{{LONG_ID_DIGITS - 1},}}(?![\d.,]\d)")
    _BRACKETED_ID = re.compile(r"\((?<=[A-Za-z)] \()(-?\d[\d-]*)\)")

    def __init__(self, names: Iterable[str] = (), ids: Iterable[str] = ()) -> None:
        self._by_digits: dict[str, set[tuple[str, int]]] = {}
        self._ids: set[str] = set()
        for name in names:
            self.add(name)
        for ident in ids:
            self.add_id(ident)

    def add(self, name: str) -> None:
        name = name.strip()
        if len(name) < 2 or len(name) > 200 or self._PURE_NUMBER.fullmatch(name):
            return
        if "|" in name:  # "Search | Generic 24/7": a part of the name may be quoted alone
            for part in name.split("|"):
                if len(part.strip()) >= 3 and part.strip() != name:
                    self.add(part)
        folded = name.lower()
        if len(folded) != len(name):
            return
        for m in re.finditer(r"\d+", folded):
            self._by_digits.setdefault(m.group(), set()).add((folded, m.start()))

    def add_id(self, ident: str) -> None:
        """An id made of digits (``"333"``, even ``"-3"``); ids with other characters are names (``add``)."""
        ident = str(ident).strip()
        if ident.lstrip("-").isdigit():
            self._ids.add(ident)
        else:
            self.add(ident)

    def __len__(self) -> int:
        return len(self._by_digits) + len(self._ids)

    def spans(self, text: str) -> list[Skipped]:
        found: list[Skipped] = []
        if self._ids:
            for m in self._ID_CONTEXT.finditer(text):
                for d in re.finditer(r"-?\d[\d-]*", m.group(1)):
                    if d.group() in self._ids:
                        start = m.start(1) + d.start()
                        found.append(Skipped(d.group(), start, start + len(d.group()), f"identifier: id {d.group()}"))
            taken = {s.start for s in found}
            for d in self._LONG_ID.finditer(text):  # "(2298569531, 1445207317)": a long id names, wherever it stands
                if d.group() in self._ids and d.start() not in taken:
                    found.append(Skipped(d.group(), d.start(), d.end(), f"identifier: id {d.group()}"))
                    taken.add(d.start())
            for d in self._BRACKETED_ID.finditer(text):  # "Newsletter signup (9002)": an id after its name
                if d.group(1) in self._ids and d.start(1) not in taken:
                    found.append(Skipped(d.group(1), d.start(1), d.end(1), f"identifier: id {d.group(1)}"))
        if not self._by_digits:
            return found
        folded = text.lower()
        if len(folded) != len(text):
            return found
        by_digits = self._by_digits
        for m in _DIGIT_RUN.finditer(folded):
            candidates = by_digits.get(m.group())
            if not candidates:
                continue
            for name, offset in candidates:
                start = m.start() - offset
                if start < 0 or not folded.startswith(name, start):
                    continue
                end = start + len(name)
                if (start > 0 and folded[start - 1].isalnum()) or (end < len(folded) and folded[end].isalnum()):
                    continue  # "b1" inside "b12" is not the name
                found.append(Skipped(text[start:end], start, end, f"identifier: {text[start:end]}"))
        return found


_DIGIT_RUN = re.compile(r"\d+")


def not_figure_spans(text: str, identifiers: Identifiers | None = None) -> list[Skipped]:
    """Spans holding digits that are not figures (dates, times, ordinals, ids...), in order, not overlapping."""
    spans: list[Skipped] = []
    for m in _NOT_FIGURE_RE.finditer(text):
        why = _NOT_FIGURE_PARTS[int(m.lastgroup[2:])][0] if m.lastgroup and m.lastgroup.startswith("nf") else "year"
        group = "year" if why == "year" else 0
        spans.append(Skipped(m.group(group), m.start(group), m.end(group), why))
    if identifiers is not None:
        spans.extend(identifiers.spans(text))
        spans.sort(key=lambda s: (s.start, -s.end))
    kept: list[Skipped] = []
    for span in spans:  # drop spans inside one already kept ("b1" inside "budget b1 2025")
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
        elif span.end > kept[-1].end:
            kept[-1] = Skipped(text[kept[-1].start:span.end], kept[-1].start, span.end, kept[-1].why)
    return kept


def scan(text: str, identifiers: Identifiers | None = None, *, words: bool = True) -> tuple[list[Figure], list[Skipped]]:
    """Figures in ``text`` and the digit spans skipped as not figures.

    ``words=False`` leaves out digits glued to words (``GA4``), which only a display needs.
    """
    if not text:
        return [], []
    figures, skipped = _figures_and_skipped(text, identifiers)
    if not words:
        return figures, skipped
    glued = _glued_spans(text, figures, skipped)
    return figures, sorted(skipped + glued, key=lambda s: s.start)


_MONTH_NUMBER = {name: i for i, name in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
_ISO_DAY = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")
_SLASHED_DAY = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})[/.](\d{2,4})\b")
_MONTH_WORD = re.compile(r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?")
_DAY_NUMBER = re.compile(r"(?<!\d)(\d{1,2})(?!\d)")
_YEAR_NUMBER = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def dates_in(span: Skipped, year: int | None) -> list[date]:
    """The calendar dates a ``date`` span names (two for ``March 9-18``; both readings of ``03/04/2025``).

    ``year`` fills in a date written without one (``March 9``).
    """
    if span.why != "date":
        return []
    text = span.text
    found: list[date] = []

    def add(y: int, m: int, d: int) -> None:
        try:
            found.append(date(y, m, d))
        except ValueError:
            pass

    for m in _ISO_DAY.finditer(text):
        add(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if found:
        return found
    for m in _SLASHED_DAY.finditer(text):
        y = int(m.group(4))
        y = y + 2000 if y < 100 else y
        a, b = int(m.group(1)), int(m.group(3))
        add(y, b, a)  # day first, as most of the world writes it
        if m.group(2) == "/":
            add(y, a, b)  # and the US reading
    if found:
        return found
    month = _MONTH_WORD.search(text)
    if month is None:
        return []
    month_number = _MONTH_NUMBER[month.group()[:3].lower()]
    years = [int(y) for y in _YEAR_NUMBER.findall(text)]
    named_year = years[0] if years else year
    if named_year is None:
        return []
    for d in _DAY_NUMBER.findall(_YEAR_NUMBER.sub(" ", text)):
        add(named_year, month_number, int(d))
    return found


def _figures_and_skipped(text: str, identifiers: Identifiers | None) -> tuple[list[Figure], list[Skipped]]:
    if not _ANY_DIGIT.search(text):
        return [], []
    skipped = not_figure_spans(text, identifiers)
    figures: list[Figure] = []
    # Figures live in the gaps between skipped spans (which ascend and do not overlap); a match
    # cut short by the next skipped span is judged by ``_figure`` on the full text.
    pos = 0
    for span in [*skipped, None]:
        gap_end = span.start if span is not None else len(text)
        if gap_end > pos and _ANY_DIGIT.search(text, pos, gap_end):
            for m in _FIGURE_RE.finditer(text, pos, gap_end):
                figure = _figure(text, m)
                if figure is not None:
                    figures.append(figure)
        if span is not None:
            pos = max(pos, span.end)
    return _with_sentence_metrics(text, _same_measure_as_before(text, figures)), skipped


def is_date_or_time(text: str) -> bool:
    """Is the whole string a date, time or timestamp (``2025-03-10T14:02:00+01:00``)?"""
    text = text.strip()
    return bool(_DATE_OR_TIME_RE.fullmatch(text) or _TIMESTAMP.fullmatch(text))


def find_figures(text: str, identifiers: Identifiers | None = None) -> list[Figure]:
    """The figures in ``text``, in order."""
    return _figures_and_skipped(text, identifiers)[0] if text else []


def _figure(text: str, m: re.Match[str]) -> Figure | None:
    start, end = m.span()
    sign = m.group("sign") or m.group("sign2")
    before = text[start - 1] if start > 0 else ""
    if m.group("sign") and before and (before.isalnum() or before in "_."):
        # "a-5" or "Q1-2": a hyphen, not a minus; retry without it.
        start += 1
        sign = m.group("sign2")
        before = text[start - 1]
        if not (m.group("pre_sym") or m.group("pre_code")) and before.isalnum():
            return None
    if (before and (before.isalnum() or before in "_.") and not m.group("pre_code")
            and not (m.group("pre_sym") or m.group("sign"))):
        return None  # digits glued to a word: GA4, v2.3
    if before in ",." and start > 1 and text[start - 2].isdigit():
        return None  # the tail of a number this scan could not read ("1,2,3")
    after = text[end] if end < len(text) else ""
    if after.isalnum() or after == "_" or (after in ".," and text[end + 1:end + 2].isdigit()):
        return None  # 3D, 1.5.2
    num = m.group("num")
    if m.group("eu"):  # continental notation: dots group thousands, a comma marks decimals
        num = num.replace(".", "").replace(",", ".")
    scale_word = (m.group("scale") or "").strip()
    post = (m.group("post") or "").strip()
    scale = SCALES.get(scale_word, 1.0)
    decimals = len(num.split(".", 1)[1]) if "." in num else 0
    value = float(num.replace(",", "")) * scale
    if sign in ("-", "\u2212"):
        value = -value
    currency = None
    unit = "plain"
    if m.group("pre_sym"):
        unit, currency = "money", CURRENCY_SYMBOLS[m.group("pre_sym")]
    elif m.group("pre_code"):
        unit, currency = "money", m.group("pre_code")
    post_lower = post.lower()
    if post == "%" or post_lower.startswith(("per", "pct", "pp", "percentage")):
        unit = "percent"
    elif post in ("x", "\u00d7", "times"):
        unit = "multiplier"
    elif post in CURRENCY_SYMBOLS:
        unit, currency = "money", CURRENCY_SYMBOLS[post]
    elif post in CURRENCY_CODES:
        unit, currency = "money", post
    elif post_lower in CURRENCY_WORDS:
        unit, currency = "money", CURRENCY_WORDS[post_lower]
    day_count = (
        unit == "plain" and scale == 1.0 and decimals == 0
        and (_DAYS_AFTER.match(text, end) is not None or _DAY_BEFORE.search(text, max(0, start - 6), start) is not None)
    )
    rounded_to = 0
    if decimals == 0 and scale == 1.0:
        digits = num.replace(",", "").lstrip("0")
        zeros = len(digits) - len(digits.rstrip("0"))
        if zeros and len(digits) - zeros >= 3:
            # 74,400 is 744 hundreds and 2,720 is 272 tens; 5,000, 1,200 and 250 stay exact
            rounded_to = zeros
    odd = _ODD_AFTER.match(text, end)
    hedge = _HEDGE_BEFORE.search(text, max(0, start - 20), start)
    approximate = "-odd" if odd else (hedge.group(1).lower() if hedge else "")
    if odd:
        rounded_to = max(rounded_to, len(num.replace(",", "")) - len(num.replace(",", "").rstrip("0")))
    metric = _metric_from_words(text, start, end, unit)
    if unit != "plain":
        measure = unit
    elif day_count:
        measure, metric = "count", "days"
    else:
        measure = METRIC_MEASURES.get(metric, "unknown")
    return Figure(text[start:end], start, end, value, unit, decimals, scale, currency, day_count, rounded_to,
                  approximate, measure, metric)


def _metric_from_words(text: str, start: int, end: int, unit: str) -> str:
    """The metric a figure's own words name: the metric word right after it ("591 clicks", "a
    170.0 daily budget"), else the nearest one before it in its clause with at most a few words
    between, past phrases of time ("cost over those days 1,066.44"), and not one that belongs to
    the figure before ("2 conversions: 60.00"). A percentage or multiplier has a metric only when
    a rate or share word owns it ("CTR 12.5%", "4.3% of account cost"). "" when nothing says."""
    ratio_only = unit in ("percent", "multiplier")
    if unit == "plain" and _OF_DAYS.match(text, end):
        return "days"  # "20 of 31 days"
    lost = _PERCENT_IS.match(text, end) if unit == "percent" else None
    if lost is not None:
        return "lost_rank" if lost.group("lost") == "rank" else "lost_budget"  # "30% of its impressions to budget"
    if unit == "percent" and _CONVERTS_BEFORE.search(text, max(0, start - 30), start):
        return "cvr"  # "the campaign converts 3.47% of clicks"
    if unit == "percent" and _PERCENT_OF.match(text, end):
        return "share"
    if ratio_only and _RELATIVE_AFTER.match(text, end):
        return "relative"  # "+0.6% on the budget schedule", "0.98x the target", "89.8% of the straight line"
    if unit == "percent" and _PERCENT_USED.match(text, end):
        return "budget_use"  # "about 95% used": what was spent over what the budget allowed
    after = _METRIC_AFTER.match(text, end)
    word = _METRIC_WORD.match(text, after.start("word")) if after is not None else None
    if word is not None:
        metric = word.lastgroup or ""
        if _TARGET_NEXT.match(text, word.end()):
            return "target"  # "the 5.0 ROAS target"
        if metric in ("clicks", "impressions", "conversions") and _VALUE_AFTER.match(text, word.end()):
            metric = "value"  # "conversions value 2,345.10"
        if not (ratio_only and METRIC_MEASURES[metric] != "ratio"):
            return metric
    return _metric_before(text, start, ratio_only)


def _metric_before(text: str, start: int, ratio_only: bool) -> str:
    lo = max(0, start - _BEFORE_LIMIT)
    window = text[lo:start]
    boundary = _last(_CLAUSE_START, window)
    if boundary is not None:
        window = window[boundary.end():]
    window = _DATE_OR_TIME_RE.sub(lambda m: " " * len(m.group()), window)
    previous = None
    for found_number in _NUMBER_IN_WINDOW.finditer(window):
        if not _ID_BEFORE.search(window, 0, found_number.start()):  # "campaign 333 spent": 333 names, it is no figure
            previous = found_number
    after_number = previous is not None
    if previous is not None:
        window = window[previous.end():]
    if _TARGET_LAST.search(window):
        return "target"  # "against target 38.0"
    if _RATIO_BEFORE.search(window) or _OPERATOR_BEFORE.search(window):
        return ""  # "cost over daily budget 1.6", "remaining schedule x 0.80": a ratio, an operand
    window = _TEMPORAL.sub(lambda m: " " * len(m.group()), window)
    found = [m for m in _METRIC_WORD.finditer(window) if m.lastgroup != "days"]
    if not found:
        return ""
    word = found[-1]
    if _PER_WORD.search(window, 0, word.start()):
        return ""  # "clicks per conversion 12": a rate of two metrics
    if after_number and not window[:word.start()].strip():
        return ""  # the unit of the figure before: "2 conversions: 60.00"
    between = window[word.end():]
    words = _PLAIN_WORDS.findall(between)
    if len(words) > _WORDS_BETWEEN or "," in between or any(w.lower() not in _LINK_WORDS for w in words):
        return ""  # "conversion signal against a 24.00": the word is not this figure's
    metric = word.lastgroup or ""
    if metric in ("cpa", "roas", "cpc") and _TARGET_LAST.search(window, 0, word.start()):
        metric = "target"  # "the account target CPA of 85.0"
    if metric == "share" and re.match(r"\s+of\b", between):
        return ""  # "the share of 0.35": what the share is of
    if re.match(r"\s+per\s+(?!day|week|month)[a-z]", between, re.IGNORECASE):
        return ""  # "cost per conversion" not caught as CPA: a rate
    if ratio_only and METRIC_MEASURES.get(metric) != "ratio":
        return ""
    return metric


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    return found


_TARGET_NEXT = re.compile(r"(?i)\s+targets?\b")
_TARGET_LAST = re.compile(r"(?i)\btargets?\s+$")
_OPERATOR_BEFORE = re.compile(r"(?:[x\u00d7*/\u00f7+=]|\bminus|\bplus|\btimes)\s*$")
# Words that may stand between a metric word and its figure: "CPA of 24.00", "spend to date
# 48,213.77", "clicks held near 410", "all_conversions continue at 184.00".
_LINK_WORDS = frozenset((
    "of", "was", "were", "is", "are", "be", "been", "being", "has", "have", "had", "at", "to", "by", "from", "in",
    "on", "a", "an", "the", "its", "their", "this", "that", "reached", "reaches", "reach", "hit", "hits", "totalled",
    "totaled", "totalling", "totaling", "total", "totals", "came", "comes", "come", "fell", "falls", "fall", "rose",
    "rises", "rise", "dropped", "drops", "drop", "grew", "grows", "grow", "held", "holds", "hold", "stayed", "stays",
    "stay", "remained", "remains", "remain", "continued", "continues", "continue", "stood", "stands", "stand", "ran",
    "runs", "run", "sat", "sits", "sit", "went", "goes", "go", "climbed", "climbs", "averaged", "averaging",
    "averages", "average", "only", "just", "still", "now", "then", "near", "nearly", "about", "around", "roughly",
    "approximately", "some", "over", "under", "above", "below", "date", "so", "far", "daily", "total", "per", "day",
    "week", "month", "mean", "median", "overall", "in", "all", "together", "combined", "recorded", "amounted",
    "amounts", "amount", "exactly", "almost", "just", "between", "from", "ranged", "ranges", "range",
))
_ID_BEFORE = re.compile(r"(?i)(?:\b(?:campaigns?|ads?|budgets?|ids?|actions?|accounts?)\s*[:#(]?|[#@])\s*$")
_VALUE_AFTER = re.compile(r"[\s_-]+value\b", re.IGNORECASE)
_NUMBER_IN_WINDOW = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?(?:\s*(?:%|x\b|\u00d7))?")


# Where a sentence ends: at . ! ? before a space (not in "e.g." or "vs."), or at a line end.
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?](?=[\s)]|$)|\n")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


# A sentence about a rate speaks of what the rate is made of: a CPA of cost and conversions.
_COMPONENTS = {"cpa": ("cost", "conversions"), "cpc": ("cost", "clicks"), "roas": ("value", "cost"),
               "ctr": ("clicks", "impressions"), "cvr": ("conversions", "clicks")}


_PER_DAY_AFTER = re.compile(r"(?i)\s*(?:and\s+[\d.,]+\s*)?(?:\w+\s+)?(?:a|per|/)\s*day\b(?!s)|[^.;:(]{0,80}?\b(?:each|every)\s+day\b(?!s)")
_EXTREME_BEFORE = re.compile(r"(?i)\b(?:between|ranged?|ranging|lowest|highest|low\s+of|high\s+of|peak(?:ed)?|minimum|maximum|min|max)\b[^.;:]{0,25}$")
_PER_DAY_BEFORE = re.compile(r"(?i)\bper\s+day\s+(?:\w+\s+){0,3}$|\b(?:daily|day's)\s+average\s+(?:of\s+|at\s+|was\s+|is\s+)?$")
_BELOW_BEFORE = re.compile(r"(?i)\b(?:under|below|less\s+than)\s+$")
_RIGHT_AFTER = re.compile(r"(?i)\s*[a-z_]+(?:\s+[a-z_]+)?\s*\(\s*(?:about\s+|around\s+|roughly\s+|~\s*)?")
_PER_DAYS_AFTER = re.compile(r"(?i)\s*(?:\w+\s+)?(?:per\s+(\d{1,3})\s+days\b|(?:a|per)\s+month\b)")
_AT_MOST_AFTER = re.compile(r"(?i)\s+or\s+(?:fewer|less)\b")
_EXPECTED_BEFORE = re.compile(r"(?i)\b(?:due|expected|expect|would\s+have\s+(?:been\s+)?\w+|should\s+have\s+\w+|predicted)[\s(]+(?:about\s+|around\s+|roughly\s+|some\s+)?[$\u20ac\u00a3]?$")
_EXPECTED_AFTER = re.compile(r"(?i)\s*(?!against\b)(?:\w+\s+){0,2}?(?:were\s+|was\s+|are\s+|is\s+)?(?:expected|due|predicted)\b"
                             r"(?!\s+(?:spend|spending|cost|on\s+the|budget))")


def _with_sentence_metrics(text: str, figures: list[Figure]) -> list[Figure]:
    """Each figure with no metric of its own gets the metrics its sentence names; each figure
    its words call expected ("about 229 expected", "due about 20") is marked so."""
    out: list[Figure] = []
    bounds = sentences(text)
    named_in: dict[tuple[int, int], frozenset[str]] = {}  # a sentence's metrics, read once for its figures
    for figure in figures:
        changes: dict[str, Any] = {}  # applied at once: no rule below reads a field an earlier one changed
        if not figure.metric:
            start, end = next(((a, b) for a, b in bounds if a <= figure.start < b), (0, len(text)))
            named = named_in.get((start, end))
            if named is None:
                named = named_in[start, end] = _sentence_metrics(text, start, end)
            changes["sentence_metrics"] = named
        if figure.unit == "plain" and figure.measure != "money" and (
                _EXPECTED_AFTER.match(text, figure.end) or _EXPECTED_BEFORE.search(text, max(0, figure.start - 40), figure.start)):
            changes["expected"] = True  # a count expected, not spend expected on a schedule
        previous = out[-1] if out else None
        if (not figure.metric and figure.unit == "plain" and _PER_DAY_AFTER.match(text, figure.end) and previous is not None
                and previous.metric and _RIGHT_AFTER.fullmatch(text, previous.end, figure.start)):
            # "15,155 clicks (about 1,516 a day)": a figure in brackets after another is of its metric
            changes.update(metric=previous.metric, measure=previous.measure if figure.unit == "plain" else figure.measure,
                           sentence_metrics=frozenset())
        if _PER_DAY_AFTER.match(text, figure.end) or _PER_DAY_BEFORE.search(text, max(0, figure.start - 50), figure.start) or (
                previous is not None and previous.per_day and _SAME_MEASURE_BETWEEN.fullmatch(text, previous.end, figure.start)):
            changes["per_day"] = True  # "went from about 732 to about 761" a day
        per_days = _PER_DAYS_AFTER.match(text, figure.end)
        if per_days is not None:
            changes["per_days"] = int(per_days.group(1)) if per_days.group(1) else PER_MONTH
        if _EXTREME_BEFORE.search(text, max(0, figure.start - 40), figure.start) or (
                previous is not None and previous.extreme and re.fullmatch(r"(?i)\s*(?:and|to|-|\u2013)\s*", text[previous.end:figure.start])):
            changes["extreme"] = True
        if _AT_MOST_AFTER.match(text, figure.end):
            changes["at_most"] = True
        if _BELOW_BEFORE.search(text, max(0, figure.start - 25), figure.start):
            changes["below"] = True
        out.append(replace(figure, **changes) if changes else figure)
    return out


def _sentence_metrics(text: str, start: int, end: int) -> frozenset[str]:
    """The metrics a sentence names (with a rate, what it is made of); ``*`` when it names none but days or a target."""
    named = set()
    for m in _METRIC_WORD.finditer(text, start, end):
        if m.lastgroup in _COMPONENTS and _TARGET_LAST.search(text, max(0, m.start() - 12), m.start()):
            named.add("target")  # "the target CPA": a target, not a CPA of cost and conversions
        elif m.lastgroup:
            named.add(m.lastgroup)
            named.update(_COMPONENTS.get(m.lastgroup, ()))
    if named <= {"days", "target"}:
        named.add("*")  # "its other days ... ranged from 1372.17": days are when, not what (named_values.ANY_METRIC)
    return frozenset(named)


def _same_measure_as_before(text: str, figures: list[Figure]) -> list[Figure]:
    """A plain figure of unknown measure right after "X to", "X and", "X vs", "X against (a)" measures what X does."""
    out = list(figures)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        between = _SAME_MEASURE_BETWEEN.fullmatch(text, prev.end, cur.start)
        if cur.measure == "unknown" and cur.unit == "plain" and cur.metric in ("", "target") \
                and prev.measure in ("money", "count", "ratio") and between:
            # "CPA 26.4 against target 38.0", "108.00 against a 45.00 target": the target of what the first is
            metric = "target" if cur.metric or "target" in between.group().lower() else prev.metric
            out[i] = replace(cur, measure=prev.measure, metric=metric)
    return out


def _glued_spans(text: str, figures: list[Figure], skipped: list[Skipped]) -> list[Skipped]:
    """Digit runs that are neither figures nor skipped already: digits inside words."""
    taken = [(f.start, f.end) for f in figures] + [(s.start, s.end) for s in skipped]
    out = []
    for m in re.finditer(r"[\w.]*\d[\w.]*", text):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            out.append(Skipped(m.group(), m.start(), m.end(), "part of a word"))
    return out
