"""Named values being collected for the derived index, and what each name measures.

A derived value is known by a name a person can read (``"campaign 333: cost, last 7 complete
days"``); its unit (money, count, ratio) is read from that name, and where it comes from is
recorded per group of names (``NamedValues.family``) as ``row_provenance.Rows`` descriptions.
"""

from __future__ import annotations

import functools
import math
import re

from .row_provenance import Rows


# Words in a derived name that make its value a ratio: a percentage (times 100) or a multiplier may match it.
RATIO_WORDS = ("CTR", "CVR", "ROAS", "share", " over ")


def is_ratio_name(name: str) -> bool:
    """Is the derived value of this name a ratio (CTR, a share, CPA over target...)?"""
    # "ROAS minus target" is a difference of ratios, not a ratio: a "2.9x" must not match it.
    return " minus " not in name and any(word in name for word in RATIO_WORDS)


VALUE_UNITS = ("money", "count", "ratio", "other")
_MONEY_NAME = re.compile(r"\b(?:cost|CPC|CPA|spend|budget|maximum|value)\b|conversions_value|planned spend")
_COUNT_NAME = re.compile(r"\b(?:impressions|clicks|conversions|all_conversions|count|days|rows)\b|^count: ")


@functools.lru_cache(maxsize=8192)
def _unit_of_metric(metric: str) -> str:
    if is_ratio_name(metric):
        return "ratio"
    if "ROAS" in metric or "multiple" in metric:
        # "ROAS minus target" is a difference of ratios; the platform's daily multiple is a
        # constant grounded only where a finding names the platform rule (grounding.py)
        return "other"
    if _MONEY_NAME.search(metric):
        return "money"
    if _COUNT_NAME.search(metric):
        return "count"
    return "other"


def value_unit(name: str) -> str:
    """What a derived value (or a range's metric) measures, by its name: ``money`` (cost, CPA, CPC,
    conversion value, budgets, spend), ``count`` (impressions, clicks, conversions, days, counts),
    ``ratio`` (shares, rates, ROAS, anything "over" something) or ``other``."""
    # The scope before ": " does not change the unit; leaving it out keeps the memo small.
    scope, sep, metric = name.partition(": ")
    if not sep or scope == "count":
        metric = name
    return _unit_of_metric(metric)


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


class NamedValues:
    """Named values being collected; the ones that could not be computed (None, inf, nan) are dropped.

    ``sources`` records where the values come from, per group of names: ``{prefix: [(tail, parts)]}``
    for the names ``prefix + anything + tail`` (``provenance`` finds the longest match).
    """

    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.sources: dict[str, list[tuple[str, tuple[Rows, ...]]]] = {}

    def put(self, name: str, value: float | None) -> None:
        if value is not None and math.isfinite(value):
            self.values[name] = value

    def family(self, prefix: str, tail: str, *parts: "Rows") -> None:
        """The names ``prefix + <metric> + tail`` come from the rows ``parts`` describe."""
        self.sources.setdefault(prefix, []).append((tail, parts))

    def exact(self, name: str, *parts: "Rows") -> None:
        """The value ``name`` comes from the rows ``parts`` describe."""
        self.sources.setdefault(name, []).append(("", parts))

    def provenance(self, name: str) -> tuple[tuple["Rows", ...], str] | None:
        """(parts, the part of the name between prefix and tail) for a name, or None."""
        return find_provenance(self.sources, name)


def find_provenance(
    sources: dict[str, list[tuple[str, tuple["Rows", ...]]]], name: str,
) -> tuple[tuple["Rows", ...], str] | None:
    """``NamedValues.provenance`` on a kept ``sources`` table."""
    for end in range(len(name), 0, -1):
        entries = sources.get(name[:end])
        if not entries:
            continue
        best = None
        for tail, parts in entries:
            if len(tail) <= len(name) - end and name.endswith(tail) and (best is None or len(tail) > len(best[0])):
                best = (tail, parts)
        if best is not None:
            return best[1], name[end:len(name) - len(best[0])]
    return None


class SuffixedValues(NamedValues):
    """Puts into another NamedValues with a suffix on every name."""

    def __init__(self, target: NamedValues, suffix: str) -> None:
        self.values = target.values
        self.sources = target.sources
        self._suffix = suffix

    def put(self, name: str, value: float | None) -> None:
        super().put(name + self._suffix, value)

    def family(self, prefix: str, tail: str, *parts: "Rows") -> None:
        super().family(prefix, tail + self._suffix, *parts)

    def exact(self, name: str, *parts: "Rows") -> None:
        super().exact(name + self._suffix, *parts)
