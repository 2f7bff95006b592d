"""Figure grounding: is each figure in a finding traceable to the snapshot?

A figure is grounded when, at its printed precision (half a unit of its last
printed digit, of the scaled unit for ``1.2k``; see ``Figure.bounds`` for
rounded and hedged figures), it equals a value of the grounding set. Looked
up in this order:

1. every number in snapshot.json (values, and numbers inside strings other
   than dates) and, unless ``mode="strict"``, the derived index of
   ``derived_index.py``: a percentage matches a ratio times 100 or a value already
   in percent, a multiplier a ratio, anything else any value;
2. (derived mode) the figures over the date ranges the finding itself names,
   for the account and the campaigns it names (``ranges.py``);
3. arithmetic on two figures grounded by 1 or 2 in the same finding (all its
   text fields together): difference, sum, ratio, percent change, a rate
   times a count, the same figure rounded, micros.

Signs are not compared (``-12%`` and "fell 12%" make the same claim); zero
is always grounded, and "N days" / "day N" when N fits the period.

``GroundingIndex.for_snapshot(snapshot, mode)`` builds the sorted value
arrays once per snapshot object and caches them; ``verdicts_for_text`` is
the one-call helper for the app and the reference auditor. Every verdict
carries a reason a person can read: what grounded the figure, by name, or
why nothing did (with the nearest value, to help the reviewer).

A grounded verdict also keeps its ``sources`` (the snapshot field, the
derived name, the range a finding names, or for arithmetic the sources of
its operands), and ``GroundingIndex.rows(verdict)`` lists the snapshot rows
behind it on demand: the field's own pointer for a snapshot value, the rows
a derived value was computed from (``derived_index.derived_rows``), the union of
the operands' rows for arithmetic. Nothing is listed for verdicts nobody
asks about (the reference auditor never does).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from .. import taxonomy
from .daily_totals import DUPLICATES_ONCE, corrected_readings, daily_totals
from .derived_index import derived_named, derived_rows
from .named_values import VALUE_UNITS, value_unit
from .row_provenance import RowList, Rows, rows_of
from .figures import Figure, Identifiers, Skipped, dates_in, is_date_or_time, scan
from .ranges import WEEKDAYS, RangeValues, named_windows, range_values
from ..caseset.snapshot import as_object
from ..caseset.snapshot_cache import cache_of, snapshot_data
from ..caseset.snapshot_reader import number, parse_day, pointer_to

FIGURE_MODES = ("derived", "strict")
_HAS_DIGIT = re.compile(r"\d")
_WEEK = re.compile(r"(?i)\bweek")
_WEEKDAY = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b")
_RATIO_KEY = re.compile(r"share|rate|ratio|tolerance|ctr|cvr|roas|pct|percent", re.IGNORECASE)
_PERCENT_KEY = re.compile(r"pct|percent", re.IGNORECASE)
_MONEY_KEY = re.compile(r"cost|budget|amount|value|cpa|cpc|micros|spend|revenue|price", re.IGNORECASE)
_COUNT_KEY = re.compile(r"clicks|impressions|conversions|rows|count|days", re.IGNORECASE)
# The units of grounding values a figure may match, by what the figure measures (figures.MEASURES):
# money never grounds on a count or a ratio, a count never on money; "other" (numbers inside
# strings, ids, fields of no known unit) stays open to both, and a figure of unknown measure
# matches anything, as before units were read.
ACCEPTS = {"money": ("money", "other"), "count": ("count", "other"), "ratio": ("ratio", "other"), "unknown": VALUE_UNITS,
           "percent": ("ratio",), "multiplier": ("ratio",)}
ORIGINS = ("snapshot", "derived")  # a field of a row first: it is what a reviewer can check
_UNIT_WORDS = {"money": "money", "count": "a count", "ratio": "a ratio", "other": "a value"}
_INF = float("inf")
_NUMBER_IN_TEXT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class FigureVerdict:
    field: str
    figure: Figure
    grounded: bool
    reason: str  # what grounded it, by name, or why nothing did
    # What grounded it, for GroundingIndex.rows: ("snapshot", Source), ("derived", name),
    # ("range", RangeValues) or ("rows", (Rows, ...)); arithmetic has its operands' sources.
    sources: tuple = dataclasses.field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        f = self.figure
        return {
            "field": self.field, "text": f.text, "start": f.start, "end": f.end, "value": f.value,
            "unit": f.unit, "measure": f.measure, "decimals": f.decimals, "grounded": self.grounded,
            "reason": self.reason,
        }


# Where a value of the set came from, kept cheap to build and named only when a reason needs it:
# (parent path, key) for a snapshot number, (parent path, key, string) for a number inside a string,
# or the derived index's name.
Source = Any


def show_number(value: float, *, computed: bool = False) -> str:
    """A value for a reason: with thousands separators and never in exponent form
    (``3,250,540.79``, ``204,823,716``, ``1.269999981``). A snapshot value is shown at its full
    precision, as written; a ``computed`` one (derived, arithmetic) to six significant digits and
    at least two decimals (``17,419.35``, ``0.124908``)."""
    if not math.isfinite(value):
        return str(value)
    if computed and value:
        digits = max(2, 5 - math.floor(math.log10(abs(value))))
        value = round(value, digits)
    if value == int(value) and abs(value) < 1e18:
        return f"{int(value):,}"
    shown = format(value, ",")
    if "e" in shown:  # very small or very large: spell it out
        shown = f"{value:,.12f}".rstrip("0").rstrip(".")
    return shown


def describe_source(source: Source, value: float) -> str:
    """``snapshot /daily/12/cost = 243.6``, ``derived: account: CTR, period = 0.0125``..."""
    if isinstance(source, str):
        return f"derived: {source} = {show_number(value, computed=True)}"
    if len(source) == 3:
        return f"snapshot {pointer_to(*source[0], source[1])} {source[2]!r}"
    return f"snapshot {pointer_to(*source[0], source[1])} = {show_number(value)}"


class _SortedValues:
    """Magnitudes in a sorted array, for bisect lookups with a tolerance."""

    def __init__(self, sources: dict[float, Source]) -> None:
        self.values = sorted(sources)
        self.sources = [sources[v] for v in self.values]

    def __len__(self) -> int:
        return len(self.values)

    def nearest(self, target: float, tolerance: float | None = None) -> tuple[float, Source] | None:
        """The value closest to ``target`` (only within ``tolerance`` when one is given)."""
        i = bisect.bisect_left(self.values, target)
        candidates = [j for j in (i - 1, i) if 0 <= j < len(self.values)]
        if not candidates:
            return None
        j = min(candidates, key=lambda k: abs(self.values[k] - target))
        if tolerance is not None and abs(self.values[j] - target) > tolerance:
            return None
        return self.values[j], self.sources[j]


class GroundingIndex:
    """The grounding set of one snapshot, ready for fast lookups."""

    def __init__(self, data: dict[str, Any], mode: str = "derived") -> None:
        if mode not in FIGURE_MODES:
            raise ValueError(f"unknown figures mode {mode!r}; use one of {', '.join(FIGURE_MODES)}")
        self.mode = mode
        data = snapshot_data(data)  # a plain dict: the derived index and the ranges read from one cache
        found = _Collector()
        if isinstance(data, (dict, list)):
            found.walk(data, ())
        self.snapshot_values = sum(len(values) for values in found.by_unit.values())
        self.derived_values = 0
        # Where each derived value comes from (derived.NamedValues.sources), kept for rows().
        self._derived_sources: dict[str, list] = {}
        derived_by_unit: dict[str, dict[float, Source]] = {unit: {} for unit in VALUE_UNITS}
        if mode == "derived":
            named = derived_named(data)
            derived = named.values
            self._derived_sources = named.sources
            self.derived_values = len(derived)
            for name, value in derived.items():
                derived_by_unit[value_unit(name)].setdefault(abs(value), name)
        # One sorted table per origin and unit of the values: a figure looks only in the units it
        # accepts (ACCEPTS), and in the snapshot's own fields before the derived index.
        self._tables = {("snapshot", unit): _SortedValues(found.by_unit[unit]) for unit in VALUE_UNITS}
        self._tables.update({("derived", unit): _SortedValues(derived_by_unit[unit]) for unit in VALUE_UNITS})
        self._in_percent = _SortedValues(found.in_percent)
        self.identifiers = Identifiers(found.names, found.ids)
        self.period_days = _period_days(data)
        self._data = data if isinstance(data, dict) else {}
        # reading -> (scope, first, last) -> figures, shared by the findings of this snapshot
        self._range_cache: dict[str, dict] = {}
        self._name_parts = _unique_name_parts(self._data)
        self._rows_cache: dict[Any, tuple[Any, RowList]] = {}  # a derived name or a range -> (its table, its rows)
        self._campaign_by_name = {
            str(c.get("name")).lower(): str(c.get("id"))
            for c in (self._data.get("campaigns") or []) if isinstance(c, dict) and c.get("name") and c.get("id") is not None
        } if isinstance(self._data.get("campaigns"), list) else {}

    # -- construction and cache ------------------------------------------------

    @classmethod
    def for_snapshot(cls, snapshot: Any, mode: str = "derived") -> "GroundingIndex":
        """The index of a ``Snapshot`` object, built once per snapshot and mode and kept on it
        (``snapshot_cache``)."""
        data = snapshot.data
        return cache_of(data).get(("grounding index", mode), lambda: cls(data, mode))

    # -- lookups ---------------------------------------------------------------------

    def _match(self, figure: Figure, tolerance: float | None,
               units: tuple[str, ...] | None = None) -> tuple[float, str, Source, str] | None:
        """(value in the figure's unit, description, source, unit of the value) of the set value
        that grounds the figure, or with no ``tolerance`` the nearest one.

        A percentage matches a ratio times 100 or a value already in percent; a multiplier a
        ratio; money and counts values of their own unit or of none; a figure of unknown
        measure any value (``ACCEPTS``; ``units`` overrides it). A field of the snapshot that
        rounds to the figure as printed is preferred to a nearer derived value, so a figure that
        is a row's field (``1.27`` for a stored ``1.269999981``) names that field.
        """
        target = figure.center
        scale = 100.0 if figure.measure == "percent" else 1.0
        # a field within the printed precision (not just within a hedge) is preferred
        exact = abs(figure.value) if figure.approximate != "-odd" else target
        exact_tolerance = figure.half_unit + 1e-9 * max(1.0, exact)
        hits = []
        for origin in ORIGINS:
            for unit in units or ACCEPTS[figure.measure]:
                hit = self._tables[origin, unit].nearest(target / scale, None if tolerance is None else tolerance / scale)
                if hit is not None:
                    value, source = hit
                    shown = f" (as a percentage: {show_number(value * 100.0, computed=True)})" if scale != 1.0 else ""
                    hits.append((origin == "snapshot" and abs(value * scale - exact) <= exact_tolerance,
                                 value * scale, describe_source(source, value) + shown, source, unit))
        if figure.measure == "percent":
            hit = self._in_percent.nearest(target, tolerance)
            if hit is not None:
                hits.append((abs(hit[0] - exact) <= exact_tolerance, hit[0],
                             describe_source(hit[1], hit[0]) + " (in percent)", hit[1], "ratio"))
        if not hits:
            return None
        best = min(hits, key=lambda h: (not h[0] if tolerance is not None else 0, abs(h[1] - target)))
        return best[1:]

    def _lookup(self, figure: Figure) -> tuple[float, str, tuple, str] | None:
        """(matched value in the figure's unit, reason, sources, unit of the value) for a match at
        printed precision, else None."""
        hit = self._match(figure, figure.tolerance)
        if hit is None:
            return None
        value, reason, source, unit = hit
        return value, reason, (("derived", source) if isinstance(source, str) else ("snapshot", source),), unit

    def _nearest_reason(self, figure: Figure) -> str:
        reason = ""
        hit = self._match(figure, None)
        if hit:
            reason = f"; nearest: {hit[1]}"
        if figure.measure in ("money", "count", "ratio"):
            other = self._match(figure, figure.tolerance, tuple(u for u in VALUE_UNITS if u not in ACCEPTS[figure.measure]))
            if other is not None:
                reason += f"; {other[1]} is the same size but {_UNIT_WORDS[other[3]]}, not {_UNIT_WORDS[figure.measure]}"
        return reason

    def check_texts(self, texts: dict[str, str], scopes: Iterable[str | None] = ()) -> list[FigureVerdict]:
        """Verdicts for every figure in the text fields of one finding, in field order.

        ``scopes``: the finding's scope (campaign id), so ranges the finding
        names are summed for that campaign as well as for the account. Figures
        are grounded, in this order, by the grounding set, by a range the
        finding names (derived mode), then by arithmetic on two figures
        grounded so (arithmetic does not chain).
        """
        found: list[tuple[str, Figure]] = []
        skipped: list[Skipped] = []
        for field_name, text in texts.items():
            if isinstance(text, str) and text:
                figures, spans = scan(text, self.identifiers, words=False)
                found.extend((field_name, f) for f in figures)
                skipped.extend(spans)
        verdicts: list[FigureVerdict | None] = [None] * len(found)
        operands: list[Operand] = []

        def grounded(n: int, matched: float | None, reason: str, sources: tuple, unit: str | None) -> None:
            field_name, figure = found[n]
            verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
            if matched:
                # what the operand measures: what the text says, else what it matched
                unit = _MEASURE_UNIT.get(figure.measure) or unit or "other"
                operands.append((n, abs(figure.value), figure.text, unit))
                if matched != abs(figure.value):
                    operands.append((n, matched, figure.text, unit))

        for n, (field_name, figure) in enumerate(found):
            direct = self._direct(figure, texts[field_name])
            if direct is not None:
                grounded(n, *direct)
        if self.mode == "derived" and any(v is None for v in verdicts):
            ranges = self._ranges(texts, found, skipped, scopes)
            if ranges is not None:
                for n, (_, figure) in enumerate(found):
                    if verdicts[n] is None:
                        hit = _in_ranges(ranges, figure)
                        if hit is not None:
                            value, reason, where, unit = hit
                            grounded(n, value, reason, (("range", where),), unit)
        # A plain ratio ("ROAS 11.5") multiplies like a multiplier: 3,100.00 of spend at ROAS 11.5 is 35,650 of value.
        units = {n: "multiplier" if figure.measure == "ratio" else figure.unit for n, (_, figure) in enumerate(found)}
        for n, (field_name, figure) in enumerate(found):
            if verdicts[n] is not None:
                continue
            follows = _arithmetic(figure, operands, n, units)
            if follows is not None:
                reason, used = follows
                sources = tuple(s for k in used for s in verdicts[k].sources)  # type: ignore[union-attr]
                verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
            else:
                searched = "the snapshot" if self.mode == "strict" else (
                    "the snapshot, the derived index or the date ranges this finding names")
                measured = {"money": " as money", "count": " as a count", "ratio": " as a ratio"}.get(figure.measure, "")
                verdicts[n] = FigureVerdict(
                    field_name, figure, False,
                    f"not grounded: nothing in {searched} rounds to {figure.text!r}{measured} "
                    f"({_describe_bounds(figure)}), nor any difference, ratio or percent change of "
                    f"two figures grounded in this finding{self._nearest_reason(figure)}",
                )
        return [v for v in verdicts if v is not None]

    def _ranges(
        self, texts: dict[str, str], found: list[tuple[str, Figure]], skipped: list[Skipped],
        scopes: Iterable[str | None],
    ) -> list[RangeValues] | None:
        """The figures over the date ranges one finding names, or None when it names none."""
        totals = daily_totals(self._data)
        start = totals.period.start
        text = "\n".join(t for t in texts.values() if isinstance(t, str))
        dates = [d for span in skipped for d in dates_in(span, start.year if start else None)]
        counts = [int(abs(f.value)) for _, f in found if f.day_count]
        windows = named_windows(totals, dates, counts, weeks=bool(_WEEK.search(text)))
        weekdays = bool(_WEEKDAY.search(text))
        if not windows and not weekdays:
            return None
        campaigns = [str(s) for s in scopes if s] + self._campaigns_named(text, skipped)
        targets = as_object(self._data.get("targets"))
        target_cpa, target_roas = number(targets.get("target_cpa")), number(targets.get("target_roas"))
        tables = range_values(totals, windows, campaigns, target_cpa, target_roas,
                              self._range_cache.setdefault("", {}), weekdays=weekdays)
        for reading, label in corrected_readings(self._data, totals):
            tables += range_values(reading, windows, campaigns, target_cpa, target_roas,
                                   self._range_cache.setdefault(label, {}), suffix=f" ({label})", weekdays=weekdays)
        return tables

    def _campaigns_named(self, text: str, skipped: list[Skipped]) -> list[str]:
        """Campaigns a finding names: by id, by full name, or by a part of a name only one campaign has."""
        named = []
        for span in skipped:
            if span.why.startswith("identifier: id "):
                named.append(span.text)
            elif span.why.startswith("identifier: ") and span.text.lower() in self._campaign_by_name:
                named.append(self._campaign_by_name[span.text.lower()])
        if self._name_parts is not None:
            named += [self._name_parts[1][m.group()] for m in self._name_parts[0].finditer(text)]
        return named

    def _direct(self, figure: Figure, text: str) -> tuple[float | None, str, tuple, str | None] | None:
        """(value usable for arithmetic or None, reason, sources, unit of the value) when grounded
        by the set itself, or by a platform constant the text names."""
        if figure.value == 0:
            return None, "zero is always grounded", (), None
        if figure.day_count and self.period_days and 1 <= abs(figure.value) <= self.period_days:
            return (abs(figure.value), f"{show_number(abs(figure.value))} days fits the {self.period_days}-day period",
                    (("rows", (Rows("period"),)),), "count")
        constant = _platform_constant(figure, text)
        if constant is not None:
            return constant
        return self._lookup(figure)

    # -- the rows behind a verdict -------------------------------------------------------

    ROWS_CACHE_SIZE = 256

    def rows(self, verdict: FigureVerdict) -> RowList:
        """The snapshot rows behind a grounded verdict (empty for a fabricated one, and for zero):
        a snapshot value's own field, the rows a derived value or a named range was computed
        from, the union of the operands' rows for arithmetic, in that order."""
        out = RowList()
        if not verdict.grounded:
            return out
        for kind, payload in verdict.sources:
            if kind == "snapshot":
                out.add_pointer(pointer_to(*payload[0], payload[1]))
                continue
            # A range's table is not hashable: its entry is keyed by id() and holds the table, so the
            # id cannot pass to another table while the entry lives
            table = payload[0] if kind == "range" else None
            key = (kind, payload if table is None else (id(table), payload[1]))
            entry = self._rows_cache.get(key)
            if entry is None or entry[0] is not table:
                entry = (table, self._rows_behind(kind, payload))
                if len(self._rows_cache) >= self.ROWS_CACHE_SIZE:
                    del self._rows_cache[next(iter(self._rows_cache))]
                self._rows_cache[key] = entry
            out.extend(entry[1])
        return out

    def _rows_behind(self, kind: str, payload: Any) -> RowList:
        if kind == "derived":
            return derived_rows(self._data, payload, self._derived_sources) or RowList()
        if kind == "rows":
            return rows_of(self._data, payload)
        table, metric = payload
        return rows_of(self._data, self._range_rows(table), metric)

    def _range_rows(self, table: RangeValues) -> tuple[Rows, ...]:
        """What a range a finding names covers: its scope, dates and reading, found by the
        table's place in the range cache."""
        for reading, cache in self._range_cache.items():
            for key, value in cache.items():
                if value is table or (isinstance(value, list) and any(t is table for t in value)):
                    scope, first, last = key
                    campaigns = None if scope == "account" else (scope,)
                    once = reading == DUPLICATES_ONCE
                    if first == "weekdays":
                        weekday = next((i for i, name in enumerate(WEEKDAYS) if f"on {name}s" in table.label), None)
                        return (Rows("daily", campaigns, once_per_day=once, weekday=weekday),)
                    return (Rows("daily", campaigns, first, last, once_per_day=once),
                            Rows("targets", only="by metric"))
        return ()


def _unique_name_parts(data: dict[str, Any]) -> tuple[re.Pattern[str], dict[str, str]] | None:
    """The parts of campaign names ("Search | NB | Greece | IT") that name one campaign only
    ("Greece"), and a pattern that finds them as whole words."""
    owners: dict[str, set[str]] = {}
    for camp in data.get("campaigns") or [] if isinstance(data.get("campaigns"), list) else []:
        if isinstance(camp, dict) and isinstance(camp.get("name"), str) and camp.get("id") is not None:
            for part in camp["name"].split("|"):
                part = part.strip()
                if len(part) >= 3 and not part.isdigit():
                    owners.setdefault(part, set()).add(str(camp["id"]))
    unique = {part: next(iter(ids)) for part, ids in owners.items() if len(ids) == 1}
    if not unique:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(unique, key=len, reverse=True))
    return re.compile(rf"(?<![\w]){alternatives}(?![\w])"), unique


def _describe_bounds(figure: Figure) -> str:
    low, high = figure.bounds
    if figure.approximate:
        return f"{figure.approximate}: {show_number(low, computed=True)} to {show_number(high, computed=True)}"
    return f"±{show_number(figure.half_unit, computed=True)}"


def _in_ranges(
    tables: list[RangeValues], figure: Figure,
) -> tuple[float, str, tuple[RangeValues, str], str] | None:
    """(matched value in the figure's unit, reason, (the range's table, metric), unit of the
    value) from the ranges a finding names, in the units the figure accepts."""
    target, tolerance = figure.center, figure.tolerance
    scale = 100.0 if figure.measure == "percent" else 1.0
    accepts = ACCEPTS[figure.measure]
    low = ((target - tolerance) / scale,)
    best = None
    for table in tables:
        values = table.ratios if figure.measure in ("percent", "multiplier") else table.amounts
        i = bisect.bisect_left(values, low)
        while i < len(values) and values[i][0] * scale <= target + tolerance:
            if (best is None or abs(values[i][0] * scale - target) < abs(best[0] * scale - target)) \
                    and value_unit(values[i][1]) in accepts:
                best = (values[i][0], values[i][1], table)
            i += 1
    if best is None:
        return None
    value, metric, table = best
    shown = f" (as a percentage: {show_number(value * 100.0, computed=True)})" if scale == 100.0 else ""
    return (value * scale,
            f"derived over a range this finding names: {table.name(metric)} = {show_number(value, computed=True)}{shown}",
            (table, metric), value_unit(metric))


# (figure number, value, label, unit of the value): a figure grounded directly, as an operand.
Operand = tuple[int, float, str, str]
# The unit of a value a figure of this measure stands for (an unknown figure takes its match's).
_MEASURE_UNIT = {"money": "money", "count": "count", "ratio": "ratio", "percent": "ratio", "multiplier": "ratio"}


def _sum_units(a: str, b: str) -> tuple[str, ...]:
    """money - money is money; money - count is nothing; a value of no known unit takes the other's."""
    if a == b or b == "other":
        return (a,)
    return (b,) if a == "other" else ()


def _quotient_units(a: str, b: str) -> tuple[str, ...]:
    """What a / b may be: money per count is money (CPA, CPC, cost a day); money per money a ratio,
    or a count when the divisor is a price (cost / CPA is conversions); count per count a ratio
    (CTR) or a count (clicks a day); a value divided by a ratio keeps its unit (value / ROAS is
    cost)."""
    if "other" in (a, b):
        return ("other",)
    if a == b:
        return ("ratio",) if a == "ratio" else ("ratio", "count")
    if b == "ratio":
        return (a,)
    return ("money",) if (a, b) == ("money", "count") else ("other",)


def _arithmetic(
    figure: Figure, operands: list[Operand], own: int, units: dict[int, str],
) -> tuple[str, tuple[int, ...]] | None:
    """(the reason a figure follows from one or two figures grounded in the same finding, the
    numbers of those figures).

    From two: their difference, sum, ratio or percent change (and, when one
    of them is a rate, a percentage or a multiplier, their product: "4,598
    clicks at 5.25% is 242 expected"). From one: the same figure printed
    less precisely, or the same money read out of micros (divided or
    multiplied by a million). Units are kept: a result grounds only a figure
    whose measure accepts the result's unit (money - money is money, money /
    count is money, count / count is a ratio, which only a percentage, a
    multiplier or a figure of unknown measure may be).
    """
    target, tolerance = figure.center, figure.tolerance
    accepts = ACCEPTS[figure.measure] + (("other",) if figure.measure in ("percent", "multiplier") else ())

    def near(value: float) -> bool:
        return abs(value - target) <= tolerance

    for na, a, la, ua in operands:
        if na == own or ua not in accepts:
            continue
        if near(a):  # "ROAS 14.45" in the evidence, "14.5" in the claim
            return f"the same figure as {la} in this finding, rounded", (na,)
        if figure.measure != "percent" and ua in ("money", "other"):
            for value, how in ((a / 1e6, f"{la} read as micros"), (a * 1e6, f"{la} in micros")):
                if near(value):
                    return f"arithmetic in this finding: {how} = {show_number(value, computed=True)}", (na,)
    for i, (na, a, la, ua) in enumerate(operands):
        for nb, b, lb, ub in operands[i + 1:]:
            if na in (nb, own) or nb == own:
                continue
            same = _sum_units(ua, ub)
            results: list[tuple[float, str, tuple[str, ...]]] = [
                (abs(a - b), f"{la} - {lb}", same), (a + b, f"{la} + {lb}", same)]
            if b:
                results.append((a / b, f"{la} / {lb}", _quotient_units(ua, ub)))
            if a:
                results.append((b / a, f"{lb} / {la}", _quotient_units(ub, ua)))
            if figure.measure == "percent":
                results = [(r * 100.0, f"{how} as a percentage", unit) for r, how, unit in results if "/" in how]
                results.append((abs(a - b), f"{la} - {lb} (points)", same))
                change = ("ratio",) if same else ()
                if b:
                    results.append((abs(a - b) / b * 100.0, f"change from {lb} to {la}", change))
                if a:
                    results.append((abs(a - b) / a * 100.0, f"change from {la} to {lb}", change))
            elif figure.measure == "multiplier":
                results = [(r, how, unit) for r, how, unit in results if "/" in how]
            else:
                for rate_n, rate, count, count_unit in ((na, a, b, ub), (nb, b, a, ua)):
                    if units.get(rate_n) == "percent":
                        results.append((rate * count / 100.0, f"{la} x {lb}", (count_unit,)))
                    elif units.get(rate_n) == "multiplier":
                        results.append((rate * count, f"{la} x {lb}", (count_unit,)))
            for value, how, result_units in results:
                if near(value) and any(unit in accepts for unit in result_units):
                    return f"arithmetic in this finding: {how} = {show_number(value, computed=True)}", (na, nb)
    return None


_PLATFORMS = {"google": "google", "meta": "meta", "facebook": "meta", "instagram": "meta"}
_PLATFORM_NAME = re.compile(r"(?i)\b(?P<platform>google|meta|facebook|instagram)(?:\s+ads)?(?P<possessive>['\u2019]s)?\b")
_RULE_WORD = re.compile(
    r"(?i)\b(?:allows?|allowed|allowance|lets?|permits?|may|can|up\s+to|caps?|capped|limits?|maximum|max|rule|"
    r"overdeliver\w*|over-deliver\w*)\b")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")


@functools.lru_cache(maxsize=1)
def platform_constants() -> dict[str, tuple[float, ...]]:
    """Each platform's most a day may spend, as multiples of the daily budget, from the taxonomy
    (``pacing.daily_cap_exceeded`` thresholds): every number under a key that names the platform
    (``google_multiple: 2.0``, ``meta_multiple: 1.25``), so a multiple that changed on a date and
    is listed with its dates grounds in either form."""
    kind = taxonomy.kinds().get("pacing.daily_cap_exceeded")
    found: dict[str, set[float]] = {}

    def walk(node: Any, platform: str | None) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                named = next((p for word, p in _PLATFORMS.items() if word in str(key).lower()), platform)
                walk(value, named)
        elif isinstance(node, list):
            for value in node:
                walk(value, platform)
        elif platform and isinstance(node, (int, float)) and not isinstance(node, bool) and node > 1:
            found.setdefault(platform, set()).add(float(node))

    walk(kind.thresholds if kind else {}, None)
    return {platform: tuple(sorted(values)) for platform, values in found.items()}


def _platform_constant(figure: Figure, text: str) -> tuple[float, str, tuple, str] | None:
    """A multiplier or percentage that is a platform's daily multiple ("Google allows up to 2x the
    daily budget", "Meta's 1.25x", "up to 25% above it"), grounded only where its sentence
    names the platform's rule."""
    if figure.measure not in ("multiplier", "percent") or _PLATFORM_NAME.search(text) is None:
        return None
    begin = 0
    for end in _SENTENCE_END.finditer(text):
        if end.start() >= figure.start:
            sentence = text[begin:end.start()]
            break
        begin = end.end()
    else:
        sentence = text[begin:]
    constants = platform_constants()
    names_rule = _RULE_WORD.search(sentence) is not None
    for rule in _PLATFORM_NAME.finditer(sentence):
        if not (names_rule or rule.group("possessive")):
            continue
        platform = _PLATFORMS[rule.group("platform").lower()]
        for multiple in constants.get(platform, ()):
            forms = [(multiple, f"{multiple:g}x")] if figure.measure == "multiplier" else [
                (multiple * 100.0, f"{multiple * 100.0:g}% of the daily budget"),
                ((multiple - 1.0) * 100.0, f"{(multiple - 1.0) * 100.0:g}% above the daily budget")]
            for value, form in forms:
                if abs(value - figure.center) <= figure.tolerance:
                    name = "Google" if platform == "google" else "Meta"
                    return (value, f"platform constant: {name} lets a day spend up to {form} "
                                   f"(taxonomy: pacing.daily_cap_exceeded thresholds)", (), "ratio")
    return None


class _Collector:
    """Walks a snapshot for every number (values and numbers inside strings), every name with
    digits and every id. Numbers under a ratio-like key (``search_impression_share``,
    ``pacing_tolerance``, ``target_roas``) are ratios too; numbers under a percent key, or
    followed by ``%`` inside a string, are already in percent."""

    def __init__(self) -> None:
        self.by_unit: dict[str, dict[float, Source]] = {unit: {} for unit in VALUE_UNITS}  # by the field's unit
        self.in_percent: dict[float, Source] = {}
        self.names: set[str] = set()
        self.ids: set[str] = set()
        self._texts: dict[str, list[tuple[float, bool]]] = {}

    def walk(self, node: Any, path: tuple) -> None:  # node: a dict or a list
        """The hot loop of index building: leaves are handled inline, and a path tuple is made
        only for containers and for values not seen before."""
        is_dict = isinstance(node, dict)
        by_unit = self.by_unit
        other = by_unit["other"]
        key: Any  # a str in an object, an int in a list
        for key, value in (node.items() if is_dict else enumerate(node)):
            kind = type(value)
            if kind is float or kind is int:
                magnitude = float(value if value >= 0 else -value) if -1e300 < value < 1e300 else _INF
                if magnitude == _INF:  # (nan fails the range test above)
                    if is_dict and kind is float and value == value and _is_id_key(key):
                        self.ids.add(str(value))  # an id of 1e308 is quoted as "1e+308": an identifier, not the figure 308
                    continue
                values = other
                if is_dict:
                    if kind is int and _is_id_key(key):
                        self.ids.add(str(value))
                    else:
                        unit = _key_unit(key)
                        values = by_unit[unit]
                        if unit == "ratio" and _PERCENT_KEY.search(key):
                            self.in_percent.setdefault(magnitude, (path, key))
                if magnitude not in values:
                    values[magnitude] = (path, key)
            elif kind is str:
                if is_dict and _is_id_key(key):
                    self.ids.add(value)
                numbers = self._texts.get(value)
                if numbers is None:
                    numbers = self._texts[value] = self._numbers_in(value)
                for number_in_text, percent in numbers:
                    other.setdefault(number_in_text, (path, key, value))
                    if percent:
                        self.in_percent.setdefault(number_in_text, (path, key, value))
            elif kind is dict or kind is list:
                if is_dict and kind is list and _is_id_key(key):
                    self.ids.update(str(v) for v in value if type(v) in (str, int))
                self.walk(value, path + (key,))

    def _numbers_in(self, text: str) -> list[tuple[float, bool]]:
        # A date's parts are not figures (the day of month would ground every small number).
        if not _HAS_DIGIT.search(text) or is_date_or_time(text):
            return []
        self.names.add(text)
        return [(float(m.group().replace(",", "")), text[m.end():m.end() + 1] == "%")
                for m in _NUMBER_IN_TEXT.finditer(text)]


def _key_unit(key: Any, _known: dict[str, str] = {}) -> str:  # noqa: B006 - deliberate memo
    """The unit of a snapshot field by its key: ``ratio`` (shares, rates, CTR/CVR, ROAS, tolerances),
    ``money`` (cost, budgets and amounts, conversion value, CPA, CPC, micros), ``count`` (clicks,
    impressions, conversions, rows, days) or ``other``."""
    answer = _known.get(key)
    if answer is None:
        answer = "other"
        if isinstance(key, str):
            if _RATIO_KEY.search(key):
                answer = "ratio"
            elif _MONEY_KEY.search(key):
                answer = "money"
            elif _COUNT_KEY.search(key):
                answer = "count"
        if len(_known) < 10_000:
            _known[key] = answer
    return answer


def _is_id_key(key: Any, _known: dict[str, bool] = {}) -> bool:  # noqa: B006 - deliberate memo
    """``id``, ``campaign_id``, ``campaign_ids``...: keys whose values name things."""
    answer = _known.get(key)
    if answer is None:
        answer = key == "id" or (isinstance(key, str) and key.endswith(("_id", "_ids")))
        if len(_known) < 10_000:
            _known[key] = answer
    return answer


def _period_days(data: dict[str, Any]) -> int | None:
    period = data.get("period") if isinstance(data, dict) else None
    if not isinstance(period, dict):
        return None
    days = number(period.get("days_in_month"))
    if days:
        return int(days)
    start, end = parse_day(period.get("start")), parse_day(period.get("end"))
    if start and end and end >= start:
        return (end - start).days + 1
    return None


def verdicts_for_text(text: str, snapshot: Any, *, mode: str = "derived") -> list[FigureVerdict]:
    """Verdicts for the figures of one text (a claim, an evidence line) against a ``Snapshot``."""
    return GroundingIndex.for_snapshot(snapshot, mode).check_texts({"text": text})
