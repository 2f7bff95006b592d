"""What a finding names: its campaigns, dates and date ranges, and the words that say how it
read the rows (docs/scoring.md, "The prose rules").

A figure in prose is grounded only against what its finding names: the account and the
campaigns the finding names (by scope, by id, bare ids included, by name or by a part of a name
only one campaign has), over the date ranges it names (two dates written as a range, a date and
the days after it, a window in words such as "the last 7 complete days"). ``NamedScope.read``
collects them from a finding's text once, for every figure of the finding.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from .daily_totals import DailyTotals
from ..caseset.snapshot_reader import parse_day
from .figures import SENTENCE_END, Figure, Skipped, dates_in

# A range written out: "2025-03-01 to 2025-03-10", "2025-03-01–2025-03-10", "between A and B".
_RANGE_BETWEEN = re.compile(r"(?i)^\s*(?:to|-|\u2013|\u2014|through|thru|until|till|->)\s*$")
_BETWEEN_AND = re.compile(r"(?i)^\s*and\s*$")
_BETWEEN_BEFORE = re.compile(r"(?i)\bbetween\s+$")
# Windows named in words, by the period's dates.
_WINDOW_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?i)\b(?:last|past|latest|final)\s+(?:7|seven)\s+(?:complete\s+|full\s+|settled\s+)?days\b|\blast\s+week\b"), "last 7"),
    (re.compile(r"(?i)\b(?:previous|prior|preceding)\s+(?:7|seven)\s+(?:complete\s+|full\s+)?days\b|\bweek\s+before\b"), "previous 7"),
    (re.compile(r"(?i)\b(?:last|past)\s+(?:14|fourteen)\s+(?:complete\s+|full\s+)?days\b|\blast\s+two\s+weeks\b"), "last 14"),
    (re.compile(r"(?i)\blast\s+complete\s+day\b"), "last complete day"),
    (re.compile(r"(?i)\b(?:rest|remainder|remaining\s+\d*\s*days?)\s+of\s+the\s+month\b|\bmonth[- ]end\b|\bremaining\s+\d+\s+days\b"
                r"|\bprojection\b|\bprojected\b"), "rest of the month"),
]
_WORD_FLAGS: dict[str, re.Pattern[str]] = {
    # the rest of the account: sums over every campaign but the named ones
    "rest": re.compile(r"(?i)\b(?:rest|other|others|remaining|without|excluding|except|apart\s+from|besides)\b"),
    # an expected count: a rate times a count
    "expected": re.compile(r"(?i)\b(?:expected|expect|expecting|due|would|should|predicted|at\s+the\s+(?:\w+\s+){0,2}rate)\b"),
    "even": re.compile(r"(?i)\b(?:even|evenly|equal|equally|fair)\b"),
    "micros": re.compile(r"(?i)\bmicros?\b"),
    "shift": re.compile(r"(?i)\b(?:shift(?:ed|ing)?\s+(?:the\s+|every\s+)?(?:rows?|dates?)|(?:moving|moved?)\s+(?:the\s+|every\s+)?rows?|"
                        r"rows?\s+(?:moved|shifted)|one\s+day\s+(?:later|earlier)|time\s*-?zone)\b"),
    "invalid": re.compile(r"(?i)\b(?:invalid|impossible|negative|left\s+out|leave\s+out|leaving\s+out|without|excluded|excluding|"
                          r"treated\s+as\s+unknown|set\s+aside|ignored|ignoring)\b"),
    "duplicates": re.compile(r"(?i)\b(?:duplicat\w*|de-?dup\w*|twice|repeated|double-?counted)\b"),
    "chance": re.compile(r"(?i)\b(?:chance|probability|poisson|standard\s+deviations?|sigma|z-?score)\b"),
    "weeks": re.compile(r"(?i)\bweeks?\s+\d|\bweekly\b|\b(?:each|every|per|by)\s+week\b"),
    "weekdays": re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"),
}
# Words one of which each flag's pattern cannot match without (lower case): an ASCII text with none
# of them is not searched (ten case-blind searches of every finding's text were most of reading it).
_FLAG_WORDS: dict[str, tuple[str, ...]] = {
    "rest": ("rest", "other", "remaining", "without", "excluding", "except", "apart", "besides"),
    "expected": ("expect", "due", "would", "should", "predicted", "rate"),
    "even": ("even", "equal", "fair"),
    "micros": ("micro",),
    "shift": ("shift", "mov", "later", "earlier", "zone"),
    "invalid": ("invalid", "impossible", "negative", "left", "leav", "without", "exclud", "treated", "aside", "ignor"),
    "duplicates": ("dup", "twice", "repeated", "double"),
    "chance": ("chance", "probability", "poisson", "standard", "sigma", "score"),
    "weeks": ("week",),
    "weekdays": ("day",),
}


def _word_flags(text: str) -> set[str]:
    """The ``_WORD_FLAGS`` whose pattern is found in ``text``."""
    lowered = text.lower() if text.isascii() else None  # outside ASCII, case-blind matching is not lower()
    return {name for name, pattern in _WORD_FLAGS.items()
            if (lowered is None or any(word in lowered for word in _FLAG_WORDS[name])) and pattern.search(text)}


# A list of campaign ids written together: "(2298569531, 1445207317, 2091472623)", "111 and 222".
_LIST_BETWEEN = re.compile(r"(?i)^\s*(?:,|and|&|\+|/|or)\s*(?:campaign\s+)?$")
SHORT_RANGE_DAYS = 7  # a row of a named campaign on each day of a range this short may be quoted


@dataclass
class NamedScope:
    """The campaigns, dates and ranges one finding names, and its flag words."""

    campaigns: list[str] = field(default_factory=list)
    subsets: list[tuple[str, ...]] = field(default_factory=list)  # campaigns listed together
    dates: list[date] = field(default_factory=list)
    alone: set[date] = field(default_factory=set)  # dates written alone, not as the end of a range
    since: list[date] = field(default_factory=list)  # dates a range starts from ("since 2025-03-11")
    explicit: list[tuple[date, date]] = field(default_factory=list)  # ranges written out
    windows: dict[tuple[date, date], str] = field(default_factory=dict)  # every range a figure may be over
    day_counts: list[int] = field(default_factory=list)
    words: set[str] = field(default_factory=set)
    text: str = ""  # the finding's text fields, joined
    scoped: bool = False  # the finding is about one campaign (its scope)
    # where each range is written out: (field text, start, end, first, last)
    written: list[tuple[str, int, int, date, date]] = field(default_factory=list)
    _sentence_ends: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def read(cls, fields: list[tuple[str, list[Figure], list[Skipped]]], totals: DailyTotals,
             campaigns: list[str], campaign_spans: list[list[tuple[int, int, str]]]) -> "NamedScope":
        """``fields``: each text field of the finding with its figures and skipped spans;
        ``campaigns``: the campaigns the finding names, scope first; ``campaign_spans``: where
        each field names a campaign by id or name (start, end, id), for the ids listed together."""
        period = totals.period
        start = period.start
        text = "\n".join(t for t, _, _ in fields)
        scope = cls(campaigns=list(dict.fromkeys(campaigns)), text=text)
        scope.words = _word_flags(text)
        dates: set[date] = set()
        for (field_text, figures, skipped), spans in zip(fields, campaign_spans):
            date_spans = [(span, dates_in(span, start.year if start else None)) for span in skipped]
            date_spans = [(span, days) for span, days in date_spans if days]
            dates.update(d for _, days in date_spans for d in days)
            for span, days in date_spans:
                if len(days) == 2 and days[0] < days[1]:  # "March 9-18"
                    scope.explicit.append((days[0], days[1]))
                    scope.written.append((field_text, span.start, span.end, days[0], days[1]))
            ends: set[int] = set()
            for (a, a_days), (b, b_days) in zip(date_spans, date_spans[1:]):
                joined = field_text[a.end:b.start]
                written = _RANGE_BETWEEN.match(joined) or (
                    _BETWEEN_AND.match(joined) and _BETWEEN_BEFORE.search(field_text, max(0, a.start - 12), a.start))
                if written and a_days[-1] <= b_days[0]:  # "A to B", "between A and B" (not "on A and B")
                    scope.explicit.append((a_days[-1], b_days[0]))
                    scope.written.append((field_text, a.start, b.end, a_days[-1], b_days[0]))
                    ends.update((a.start, b.start))
            scope.alone.update(d for span, days in date_spans if span.start not in ends and len(days) == 1 for d in days)
            for span, days in date_spans:  # "from 2025-03-11", "the 5 days since the change on 2025-02-15"
                since = _FROM.search(field_text, max(0, span.start - 60), span.start)
                if since is not None and span.start not in ends and len(days) == 1 and period.last_complete:
                    scope.since.append(days[0])
                    if days[0] <= period.last_complete:
                        scope.written.append((field_text, since.start(), span.end, days[0], period.last_complete))
            for m in _DAYS_AROUND.finditer(field_text):  # "the 3 days to 2025-03-17", "7 days from 2025-03-10"
                n, anchor = int(m.group("n")), parse_day(m.group("date"))
                if anchor is None or not 1 <= n <= 366:
                    continue
                way = m.group("way").split()[0].lower()
                first = {"before": anchor - timedelta(days=n), "after": anchor + timedelta(days=1)}.get(
                    way, anchor - timedelta(days=n - 1) if way in _DAYS_TO else anchor)
                scope.explicit.append((first, first + timedelta(days=n - 1)))
                scope.written.append((field_text, m.start(), m.end(), first, first + timedelta(days=n - 1)))
            scope.day_counts += [int(abs(f.value)) for f in figures if f.day_count]
            scope.subsets += _lists(field_text, spans)
        scope.dates = sorted(dates)
        scope.day_counts = sorted(set(scope.day_counts))
        scope.explicit = list(dict.fromkeys(scope.explicit))
        scope.windows = _windows(totals, scope, text)
        return scope

    def days(self) -> set[date]:
        """Every date written alone, and every day of a named range of at most a week: the days on
        which a named campaign's own rows may be quoted."""
        out = set(self.alone)
        for (first, last) in self.windows:
            if (last - first).days < SHORT_RANGE_DAYS:
                out.update(first + timedelta(days=k) for k in range((last - first).days + 1))
        return out

    def lengths_near(self, text: str, position: int) -> set[int]:
        """The lengths in days of the ranges written out in the sentence of ``text`` at
        ``position`` or the two before it ("2025-02-12 to 2025-02-19, 8 complete days")."""
        if not self.written:
            return set()
        ends = self._sentence_ends.get(text)
        if ends is None:  # read once a text, for each of its figures
            ends = self._sentence_ends[text] = [m.start() for m in SENTENCE_END.finditer(text)]
        begin, end = _sentence_around(ends, len(text), position, before=2)
        return {(last - first).days + 1 for field_text, start, stop, first, last in self.written
                if field_text is text and begin <= start and stop <= end}


def _sentence_around(ends: list[int], length: int, position: int, before: int = 0) -> tuple[int, int]:
    """(start, end) of the sentence at ``position`` of a text of ``length`` whose sentences end
    at ``ends`` (where each ``SENTENCE_END``, one character, is), with ``before`` sentences more."""
    k = bisect.bisect_left(ends, position)  # the sentence ends before the position
    end = ends[k] if k < len(ends) else length
    return (ends[k - before - 1] + 1 if k > before else 0), end


def _lists(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    group: list[str] = []
    last_end = -1
    for start, end, cid in sorted(spans):
        if group and _LIST_BETWEEN.match(text[last_end:start]):
            group.append(cid)
        else:
            if len(set(group)) > 1:
                out.append(tuple(dict.fromkeys(group)))
            group = [cid]
        last_end = end
    if len(set(group)) > 1:
        out.append(tuple(dict.fromkeys(group)))
    return out


def _windows(totals: DailyTotals, scope: NamedScope, text: str) -> dict[tuple[date, date], str]:
    """The ranges a figure of the finding may be over: the period (to its end and to the last
    complete day) always; each range written out; each date named, as one day, and from it to
    the last complete day when the text says "from" or "since" it; the windows named in words
    ("the last 7 complete days", "the last 10 days", "the rest of the month"); with "week", the
    7-day blocks of the period. Only ranges inside the data's dates count."""
    period = totals.period
    lc = period.last_complete
    first_day = min(d for d in (period.start, *totals.account) if d is not None) if (period.start or totals.account) else None
    last_day = max(d for d in (period.end, totals.last_row) if d is not None) if (period.end or totals.last_row) else None
    windows: dict[tuple[date, date], str] = {}

    def add(first: date | None, last: date | None, label: str) -> None:
        if first is None or last is None or first > last:
            return
        if first_day is not None and last_day is not None and (first < first_day or last > last_day):
            return
        windows.setdefault((first, last), label)

    one = timedelta(days=1)
    if not (scope.explicit or scope.dates) or _PERIOD_WORDS.search(text):
        # a finding that names no date speaks of the period ("CPA 88.56 over the period")
        add(period.start, period.end, "the period")
        add(period.start, lc, "the period to the last complete day")
    for first, last in scope.explicit:
        add(first, last, f"{first} to {last}")
    for day in sorted(scope.alone):  # a date written alone, not only as the end of a range
        add(day, day, f"on {day}")
    for day in scope.since:
        add(day, lc, f"{day} to the last complete day")
        add(day, totals.last_row, f"{day} to the last date with rows")
    if lc is not None:
        for pattern, name in _WINDOW_WORDS:
            if not pattern.search(text):
                continue
            if name == "last 7":
                add(lc - timedelta(days=6), lc, "the last 7 complete days")
            elif name == "previous 7":
                add(lc - timedelta(days=13), lc - timedelta(days=7), "the 7 complete days before the last 7")
            elif name == "last 14":
                add(lc - timedelta(days=13), lc, "the last 14 complete days")
            elif name == "last complete day":
                add(lc, lc, "the last complete day")
            elif name == "rest of the month" and period.start and period.days:
                add(lc + one, period.start + timedelta(days=period.days - 1), "the rest of the month")
        for m in _LAST_N_DAYS.finditer(text):
            n = int(m.group(1))
            add(lc - timedelta(days=n - 1), lc, f"the last {n} complete days")
        if "weeks" in scope.words and period.start:
            for week in range(6):
                add(period.start + timedelta(days=7 * week), min(lc, period.start + timedelta(days=7 * week + 6)), f"week {week + 1}")
                add(max(period.start, lc - timedelta(days=7 * week + 6)), lc - timedelta(days=7 * week),
                    f"week {week + 1} back from the last complete day")
    return windows


_PERIOD_WORDS = re.compile(r"(?i)\b(?:the\s+period|this\s+period|month[- ]to[- ]date|to\s+date|so\s+far|this\s+month|the\s+month)\b")
_DAYS_AROUND = re.compile(r"(?i)\b(?P<n>\d{1,3})\s+(?:complete\s+|full\s+|calendar\s+)?days?\s+"
                          r"(?P<way>to|ending(?:\s+on)?|up\s+to|until|through|before|from|starting(?:\s+on)?|after|since)\s+"
                          r"(?:and\s+including\s+)?(?P<date>\d{4}-\d{2}-\d{2})")
_DAYS_TO = ("to", "ending", "up", "until", "through")
_FROM = re.compile(r"(?i)\b(?:from|since|starting|after)\s+(?:(?:the\s+)?[a-z_]+(?:\s+[a-z_]+){0,3}\s+on\s+|on\s+)?$")
_LAST_N_DAYS = re.compile(r"(?i)\b(?:last|past|latest|final)\s+(\d{1,3})\s+(?:complete\s+|full\s+|settled\s+|calendar\s+)?days\b")
