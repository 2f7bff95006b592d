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
    # "ROAS minus target" is a difference of ratios, not a ratio: a "2.9x" must not match it; and
    # "projected month-end spend, last 7 days' share of the budget schedule" is spend on that basis.
    name = name.replace("last 7 days' share of the", "last 7 days' rate of the")
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


# What a value is a figure of, by its name or field (the families of figures.METRIC_MEASURES): a
# figure whose words name a metric is compared only with values of that metric. Checked in order.
_METRIC_OF_NAME: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^all_conversions expected "), "expected_all"),
    (re.compile(r"^conversions expected "), "expected"),
    (re.compile(r"over daily budget"), "budget_use"),  # what a campaign spent of its daily budget
    (re.compile(r" over |multiple|\bgap\b.*\bas share\b|month elapsed"), "relative"),
    (re.compile(r"^pacing: (?:projected|expected|spend to date|remaining budget|budget|daily budgets|monthly budget)"), "cost"),  # a ratio of two figures: "CPA over target", "spend to date over expected"
    (re.compile(r"minus"), "gap"),  # a difference of a figure and its target
    (re.compile(r"(?i)^target_|\btarget (?:cpa|roas)\b"), "target"),
    (re.compile(r"(?i)budget_lost_impression_share"), "lost_budget"),
    (re.compile(r"(?i)rank_lost_impression_share"), "lost_rank"),
    (re.compile(r"(?i)impression_share|impression share"), "is"),
    (re.compile(r"(?i)tolerance"), "tolerance"),
    (re.compile(r"(?i)\bshare\b|_share\b"), "share"),
    (re.compile(r"(?i)\bcpa\b|cost per (?:conversion|acquisition)"), "cpa"),
    (re.compile(r"(?i)\bcpc\b|average_cpc|cost per click"), "cpc"),
    (re.compile(r"(?i)\broas\b"), "roas"),
    (re.compile(r"(?i)\bctr\b"), "ctr"),
    (re.compile(r"(?i)\bcvr\b|conversion rate"), "cvr"),
    (re.compile(r"(?i)all_conversions"), "all_conversions"),
    (re.compile(r"(?i)conversions_value|\bvalue\b|revenue"), "value"),
    (re.compile(r"(?i)\bclicks\b"), "clicks"),
    (re.compile(r"(?i)\bimpressions\b"), "impressions"),
    (re.compile(r"(?i)\bconversions\b"), "conversions"),
    (re.compile(r"(?i)\bcost|spend|budget|amount|maximum|planned"), "cost"),
    (re.compile(r"(?i)days with data"), "items"),  # a campaign's rows over a range: "all 19 daily rows"
    (re.compile(r"(?i)\bdays\b|_days$|days_"), "days"),
    (re.compile(r"(?i)\bcount\b|\brows\b"), "items"),
]
# Values of these metrics are what a figure's own words must name: a figure that names no
# metric is not taken for a ratio against a target, a gap to one or a target ("2.2x" is grounded
# by its own division, not by whatever "CPA over target" of the account is near 2.2).
_OWN_WORDS_ONLY = ("relative", "gap", "target", "expected", "days", "budget_use")


def value_metric(name: str) -> str:
    """What a value of the grounding set is a figure of (``clicks``, ``cost``, ``cpa``, ``share``...),
    read from its derived name, range metric or snapshot field; "" when its name does not say."""
    scope, sep, metric = name.partition(": ")
    if scope == "count" and sep:
        return "items"  # "count: campaigns with cost in the data"
    # The scope before ": " does not change the metric; leaving it out keeps the memo small.
    return _metric_of_text(metric if sep else name)


@functools.lru_cache(maxsize=8192)
def _metric_of_text(text: str) -> str:
    text = text.replace("zero-conversion ", "")
    for pattern, family in _METRIC_OF_NAME:
        if pattern.search(text):
            return family
    return ""


# A campaign's rows over a range are its days with data ("all 19 daily rows", "0 on each of 5 days");
# a figure against a reference ("9.1x the target") may be one figure over another of its metric.
_ALSO = {"items": ("days",), "days": ("items",), "relative": ("share",)}
ANY_METRIC = "*"  # in a sentence's metrics: the sentence names what, but not which metric


def metric_accepts(figure_metric: str, value_metric_: str, sentence_metrics: frozenset[str] = frozenset(),
                   expected: bool = False) -> bool:
    """May a figure whose words name ``figure_metric`` be a value of ``value_metric_``?

    A value of no known metric may be anything (its unit still has to agree). An expected count
    is only for a figure its words call expected (of conversions, all conversions or no named
    metric), and such a figure is nothing else (a sum over a range is not "expected"). A figure
    whose words name no metric may be a value of any metric its sentence names
    (``sentence_metrics``), or of any metric when its sentence names none; a target only when
    its sentence speaks of one; a ratio or gap to a target only when its sentence names no metric;
    days and budget use only when its own words say so (``_OWN_WORDS_ONLY``)."""
    if expected:  # "about 229 expected": an expected count, or what the finding computes itself
        return value_metric_ in ("expected", "expected_all") and figure_metric in (
            "", "conversions" if value_metric_ == "expected" else "all_conversions")
    if not value_metric_:
        return True
    if value_metric_ in ("expected", "expected_all"):
        return False
    if figure_metric:
        return figure_metric == value_metric_ or value_metric_ in _ALSO.get(figure_metric, ())
    if value_metric_ == "target":
        return value_metric_ in sentence_metrics
    if value_metric_ in _OWN_WORDS_ONLY:
        return value_metric_ in ("relative", "gap") and not (sentence_metrics - {ANY_METRIC})
    return not sentence_metrics or ANY_METRIC in sentence_metrics or value_metric_ in sentence_metrics


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
