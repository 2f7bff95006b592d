"""Does a sentence make a claim, or deny it? For must_not_say ``says`` patterns.

A ``says`` pattern finds a mention ("underspend", "daily cap", "missing
days"); a careful auditor also mentions what the rows rule out: "this is not
an underspend", "no missing days", "within Google's 2x daily cap", "the
daily cap was never exceeded". A match is *denied*, and does not count as
saying the claim, when in its own clause:

- a denial word stands before it with only filler between ("not", "no",
  "never", "without", "nor", "neither", "rather than", "instead of", "no sign
  of", "rules out", "ruled out", "isn't"...; and for a limit, "within",
  "below", "under"); filler is articles, "sign/evidence/indication of",
  possessives ("Google's"), numbers and multiples ("2x"), "daily" /
  "monthly" / "budget";
- or the words right after it deny it ("... is ruled out", "... was not
  exceeded", "... does not apply", "... is not the case");
- or the sentence takes it back: "looks behind budget on a straight line,
  but I do not believe it is", "an overspend ... that, as far as I can
  tell, is not there".

A clause ends at ``. ; : ! ?``, a comma, a dash, and "but", "however",
"although", "though", "while", "whereas", "yet", "so", "because", "and".
"Spend did not keep pace, an underspend of 30%" therefore still says
underspend. Negation inside the match itself ("not serving", "didn't serve")
is the pattern's own business and is left alone.
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Iterator, Protocol, Sequence

_CLAUSE_END = re.compile(
    r"[.;:!?,\u2013\u2014\n]|\s-\s|\b(?:but|however|although|though|while|whereas|yet|so|because|and)\b", re.IGNORECASE)
_FILLER = (
    r"(?:a|an|the|any|its|their|this|that|these|those|such|real|actual|true|genuine|clear|"
    r"sign|signs|evidence|indication|case|cases|of|for|is|was|are|were|be|been|being|it|there|at|all|"
    r"daily|monthly|budget|budget's|platform|platform's|account|campaign|campaigns|day|days|single|one|other|row|rows|"
    r"\w+['\u2019]s|[\d.,]+\s?[x\u00d7%]?|up\s+to|"
    # verbs between the denial and the mention: "never went above the daily cap", "does not show an underspend"
    r"went|go|goes|gone|came|rose|got|ran|spent|spend|spends|spending|exceed|exceeded|exceeds|reach|reached|"
    r"cross|crossed|show|shows|showed|see|seem|seems|look|looks|appear|appears|indicate|indicates|suggest|suggests|"
    r"think|believe|expect|consider|say|call|calling)"
)
_DENIED_BEFORE = re.compile(
    rf"(?i)\b(?:not|no|never|without|nor|neither|rather\s+than|instead\s+of|rules?\s+out|ruled\s+out|"
    rf"isn['\u2019]t|aren['\u2019]t|wasn['\u2019]t|weren['\u2019]t|doesn['\u2019]t|don['\u2019]t|didn['\u2019]t|"
    rf"hasn['\u2019]t|haven['\u2019]t|within|below|under)\s+(?:{_FILLER}\s+){{0,6}}$"
)
_DENIED_AFTER = re.compile(
    r"(?i)^\s*(?:\w+\s+){0,2}?(?:is|was|are|were|has\s+been|have\s+been|can\s+be|must\s+be)?\s*"
    r"(?:ruled\s+out|excluded|not\s+(?:\w+\s+){0,2}?(?:exceeded|breached|reached|hit|the\s+case|an\s+issue|a\s+problem|"
    r"the\s+cause|present|observed|found|happening|at\s+play)|never\s+(?:exceeded|breached|reached|hit)|"
    r"does\s+not\s+apply|doesn['\u2019]t\s+apply)\b"
)

# Taken back in the same sentence: "X looks behind budget on a straight line, but I do not believe
# it is", "would have suggested an overspend of 15% that, as far as I can tell, is not there".
_TAKEN_BACK = re.compile(
    r"(?i)[^.;!?\n]*?(?:\bbut\s+(?:(?:I|we)\s+(?:do\s+not|don['\u2019]t)\s+(?:believe|think)\s+(?:it|so|that|this)|"
    r"(?:it|this|that)\s+(?:is|was)\s+not)|\b(?:is|was|are|were)\s+not\s+(?:there|real))\b")


class Pattern(Protocol):
    def finditer(self, text: str) -> Iterator[re.Match[str]]: ...


MAX_MATCHES = 500  # matches judged per pattern and text: a pattern matching everywhere costs no more
_BEFORE_WINDOW = 160  # a denial stands at most a few filler words before the mention
_AFTER_WINDOW = 300  # and a sentence takes a mention back within a few words after it


class _Clauses:
    """Where the clauses of one text end, for quick lookups around each match."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._bounds = [(m.start(), m.end()) for m in _CLAUSE_END.finditer(text)]
        self._starts = [a for a, _ in self._bounds]

    def around(self, start: int, end: int) -> tuple[str, str]:
        """(the clause's text before the match, the clause's text after it)."""
        i = bisect.bisect_left(self._starts, start)
        begin = self._bounds[i - 1][1] if i else 0
        # a boundary inside the match itself ("under-?spend" in "under-spend") does not end it
        j = bisect.bisect_left(self._starts, end)
        stop = self._bounds[j][0] if j < len(self._bounds) else len(self.text)
        return self.text[min(start, max(begin, start - _BEFORE_WINDOW)):start], self.text[end:stop]

    def is_denied(self, start: int, end: int) -> bool:
        before, after = self.around(start, end)
        return bool(_DENIED_BEFORE.search(before) or _DENIED_AFTER.match(after) or _TAKEN_BACK.match(self.text, end, end + _AFTER_WINDOW))


def is_denied(text: str, start: int, end: int) -> bool:
    """Is the mention at ``text[start:end]`` negated or ruled out by its own clause?"""
    return _Clauses(text).is_denied(start, end)


def affirmed_match(patterns: Sequence[Pattern], text: str) -> tuple[int, re.Match[str]] | None:
    """(index of the pattern, match) of the first pattern that ``text`` affirms, or None.

    The patterns are one must_not_say entry's: a mention inside a denied match of another of
    them is denied too ("no day exceeded the daily cap" denies "daily cap" as well).
    """
    matches = [(i, m) for i, pattern in enumerate(patterns)
               for m in itertools.islice(pattern.finditer(text), MAX_MATCHES)]
    if not matches:
        return None
    clauses = _Clauses(text)
    denied = [(m.start(), m.end()) for _, m in matches if clauses.is_denied(m.start(), m.end())]
    for i, m in matches:
        if not any(a <= m.start() and m.end() <= b for a, b in denied):
            return i, m
    return None
