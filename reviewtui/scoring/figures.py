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
from typing import Iterable

UNITS = ("money", "percent", "multiplier", "plain")
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
_FIGURE_RE = re.compile(
    rf"""
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
    ("ordinal", r"\b\d+(?:st|nd|rd|th)\b"),
    ("row pointer", r"(?<![\w/])/[A-Za-z_][\w~]*(?:/[\w~.-]+)+"),
    ("taxonomy id", r"\b[a-z_]+\.[a-z0-9_]+@[\w-]+"),
    # A year after a word that makes it one ("in 2024", "FY 2025"); only the year is skipped.
    ("year", r"(?i:\b(?:in|since|of|during|from|until|before|after|year|fy|q[1-4]|h[12])\s+)(?P<year>(?:19|20)\d{2})\b(?![.,/-]\d)"),
]
_NOT_FIGURE_RE = re.compile("|".join(f"(?P<nf{i}>{part})" for i, (_, part) in enumerate(_NOT_FIGURE_PARTS)))
_DATE_OR_TIME_RE = re.compile("|".join(f"(?:{part})" for why, part in _NOT_FIGURE_PARTS if why in ("date", "time")))
_ANY_DIGIT = re.compile(r"\d")
APPROXIMATE_SHARE = 0.02  # "about 242" accepts 2% either way
_HEDGE_BEFORE = re.compile(
    r"(?i:(about|around|roughly|approximately|approx\.|nearly|almost|close to|some|~|\u2248|c\.))\s*[$€£]?\s*$")
_ODD_AFTER = re.compile(r"-odd\b|\s+or\s+so\b")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2}|UTC)?")
_DAYS_AFTER = re.compile(r"[\s-]?(?:(?:complete|full|consecutive|straight|calendar|more|further|remaining|elapsed|active)\s)?days?\b", re.IGNORECASE)
_DAY_BEFORE = re.compile(r"\bdays?\s$", re.IGNORECASE)

_MONEY_WORD = (r"spent|spend(?:ing)?|costs?|costing|budgets?|wasted?|CPA|CPC|revenue|sales"
               r"|cost[- ]per[- ](?:acquisition|conversion|click|lead)|(?:conversions?[ _])?value")
_RATIO_WORD = r"ROAS|CTR|CVR|(?:conversion|click-through)\s+rate|(?:impression\s+)?share|\w+_share"
_COUNT_WORD = r"clicks?|impressions?|impr\.?|conversions?|conv\.?|rows?|days?|search\s+terms?|terms?|ads|campaigns|orders|leads"
# Words that may stand between a measure word and its figure: "CPA of 24.00", "spend to date
# 48,213.77", "clicks held near 410", "cost per day 243".
_LINK = (r"of|was|were|is|are|at|to|by|from|reached|hit|totall?ing|totals?|came|fell|rose|dropped|grew|"
         r"held|stayed|remained|averaged|averaging|average|only|just|still|now|near|nearly|about|around|roughly|"
         r"approximately|some|over|under|above|below|date|so|far|daily|total|in|a|an|the|its|their|"
         r"per\s+(?:day|week|month)|a\s+day")
_MEASURE_BEFORE = re.compile(
    rf"(?i:\b(?:(?P<money>{_MONEY_WORD})|(?P<count>{_COUNT_WORD})|(?P<ratio>{_RATIO_WORD}))(?:\s+per\s+(?P<per>[a-z]+))?"
    rf"(?:\s+(?:{_LINK}))*\s*[:=]?\s*(?:~|\u2248|c\.)?\s*)$")
_OF = re.compile(r"(?i)\bof\b")
_NUMBER_BEFORE = re.compile(r"\d\s*(?:%|x|\u00d7)?\s*$")
# "cost over daily budget 1.6", "CPA over target 2.4": the figure is the ratio, not money.
_RATIO_BEFORE = re.compile(r"(?i:\b(?:over|vs\.?|versus|against|divided\s+by)\s+(?:the\s+|its\s+)?(?:daily\s+|monthly\s+)?[a-z_]{2,}\s*[:=]?\s*)$")
_MEASURE_AFTER = re.compile(
    rf"(?i:\s*(?:(?:in|of)\s+)?(?:(?:was|were|is|are|got|been|has\s+been|have\s+been)\s+)?"
    rf"(?:(?:paid|wasted|more|fewer|extra|total|recorded|zero-conversion|non-brand|brand|"
    rf"new|lost|missed|expected|ad|media|daily|monthly)\s+)?(?:(?P<money>spent|spend|cost|budget|wasted|revenue|conversion\s+value)"
    rf"|(?P<count>{_COUNT_WORD})(?![\s_-]+value)|(?P<ratio>ROAS))\b)")
# "from $411.46 to 300.00", "108.00 against a 45.00 target": the second figure measures what the first does.
_SAME_MEASURE_BETWEEN = re.compile(r"(?i:\s*(?:to|and|->|\u2192|vs\.?|versus|against|compared\s+(?:with|to))\s+(?:a\s+|an\s+|the\s+)?)")


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

    @property
    def half_unit(self) -> float:
        """Half a unit of the last printed digit (of the rounding, for ``74,400``), in the figure's own unit."""
        return 0.5 * 10.0 ** (self.rounded_to - self.decimals) * self.scale

    @property
    def bounds(self) -> tuple[float, float]:
        """The magnitudes this figure accepts: its printed precision; ``900-odd`` is 900 up to 1,000;
        a hedged figure (``about 242``) also accepts 2% either way."""
        magnitude = abs(self.value)
        if self.approximate == "-odd":
            return magnitude, magnitude + 2 * self.half_unit
        half = self.half_unit
        if self.approximate:
            half = max(half, APPROXIMATE_SHARE * magnitude)
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
        r"(?i:\b(?:campaigns?|ad\s?groups?|ads?|budgets?|ids?|actions?|accounts?|terms?)\b\s*(?:id\s*)?[:#]?\s*|#|@)"
        r"((?:\d[\d-]*)(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*/\s*|\s*&\s*)\d[\d-]*)*)\b"
    )

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
        """An id made of digits (``"333"``); ids with other characters are names (``add``)."""
        ident = str(ident).strip()
        if ident.isdigit():
            self._ids.add(ident)
        else:
            self.add(ident)

    def __len__(self) -> int:
        return len(self._by_digits) + len(self._ids)

    def spans(self, text: str) -> list[Skipped]:
        found: list[Skipped] = []
        if self._ids:
            for m in self._ID_CONTEXT.finditer(text):
                for d in re.finditer(r"\d[\d-]*", m.group(1)):
                    if d.group() in self._ids:
                        start = m.start(1) + d.start()
                        found.append(Skipped(d.group(), start, start + len(d.group()), f"identifier: id {d.group()}"))
        if not self._by_digits:
            return found
        folded = text.lower()
        if len(folded) != len(text):
            return found
        for m in re.finditer(r"\d+", folded):
            for name, offset in self._by_digits.get(m.group(), ()):
                start = m.start() - offset
                end = start + len(name)
                if start < 0 or folded[start:end] != name:
                    continue
                if (start > 0 and folded[start - 1].isalnum()) or (end < len(folded) and folded[end].isalnum()):
                    continue  # "b1" inside "b12" is not the name
                found.append(Skipped(text[start:end], start, end, f"identifier: {text[start:end]}"))
        return found


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
    return _same_measure_as_before(text, figures), skipped


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
    measure = unit if unit != "plain" else ("count" if day_count else _measure_from_words(text, start, end))
    return Figure(text[start:end], start, end, value, unit, decimals, scale, currency, day_count, rounded_to,
                  approximate, measure)


def _measure_from_words(text: str, start: int, end: int) -> str:
    """What a plain number measures by the words around it: money, a count or a ratio, else unknown."""
    after = _MEASURE_AFTER.match(text, end)
    if after is not None:
        return next(m for m in ("money", "count", "ratio") if after.group(m))
    window = text[max(0, start - 60):start]
    if _RATIO_BEFORE.search(window):
        return "unknown"
    before = _MEASURE_BEFORE.search(window)
    if before is None or _NUMBER_BEFORE.search(window, 0, before.start()):
        # in "2 conversions: 60.00" or "a 5.16% conversion rate, about 53" the word is the unit of
        # the figure before it, not a label of the next one
        return "unknown"
    if before.group("money"):
        return "money"  # "cost per click 1.27" is money too
    if before.group("ratio"):
        # "the share of the 21,700.00 budget": the figure is what the share is of, not the share
        if "share" in before.group("ratio").lower() and _OF.search(before.group(), before.end("ratio") - before.start()):
            return "unknown"
        return "ratio"
    per = before.group("per")
    # "clicks per day 410" is a count; "clicks per conversion 12" a ratio of counts
    return "count" if per is None or per.lower() in ("day", "week", "month") else "unknown"


def _same_measure_as_before(text: str, figures: list[Figure]) -> list[Figure]:
    """A plain figure of unknown measure right after "X to", "X and", "X vs", "X against (a)" measures what X does."""
    out = list(figures)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        if cur.measure == "unknown" and cur.unit == "plain" and prev.measure in ("money", "count", "ratio") \
                and _SAME_MEASURE_BETWEEN.fullmatch(text, prev.end, cur.start):
            out[i] = replace(cur, measure=prev.measure)
    return out


def _glued_spans(text: str, figures: list[Figure], skipped: list[Skipped]) -> list[Skipped]:
    """Digit runs that are neither figures nor skipped already: digits inside words."""
    taken = [(f.start, f.end) for f in figures] + [(s.start, s.end) for s in skipped]
    out = []
    for m in re.finditer(r"[\w.]*\d[\w.]*", text):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            out.append(Skipped(m.group(), m.start(), m.end(), "part of a word"))
    return out
