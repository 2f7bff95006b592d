"""Figure grounding: is each figure in a finding traceable to the snapshot?

A figure is grounded when, at its printed precision (half a unit of its last
printed digit, of the scaled unit for ``1.2k``; see ``Figure.bounds`` for
rounded and hedged figures), it equals a value of the grounding set. Looked
up in this order:

1. every number in snapshot.json (values, and numbers inside strings other
   than dates) and, unless ``mode="strict"``, the derived index of
   ``derived.py``: a percentage matches a ratio times 100 or a value already
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
a derived value was computed from (``derived.derived_rows``), the union of
the operands' rows for arithmetic. Nothing is listed for verdicts nobody
asks about (the reference auditor never does).
"""

from __future__ import annotations

import bisect
import re
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Iterable

from .derived import (
    DUPLICATES_ONCE, RowList, Rows, corrected_readings, daily_totals, derived_named, derived_rows, is_ratio_name,
    number, parse_day, rows_of,
)
from .figures import Figure, Identifiers, Skipped, dates_in, is_date_or_time, scan
from .ranges import WEEKDAYS, RangeValues, named_windows, range_values

FIGURE_MODES = ("derived", "strict")
_HAS_DIGIT = re.compile(r"\d")
_WEEK = re.compile(r"(?i)\bweek")
_WEEKDAY = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b")
_RATIO_KEY = re.compile(r"share|rate|ratio|tolerance|ctr|cvr|roas|pct|percent", re.IGNORECASE)
_PERCENT_KEY = re.compile(r"pct|percent", re.IGNORECASE)
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
    sources: tuple = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        f = self.figure
        return {
            "field": self.field, "text": f.text, "start": f.start, "end": f.end, "value": f.value,
            "unit": f.unit, "decimals": f.decimals, "grounded": self.grounded, "reason": self.reason,
        }


# Where a value of the set came from, kept cheap to build and named only when a reason needs it:
# (parent path, key) for a snapshot number, (parent path, key, string) for a number inside a string,
# or the derived index's name.
Source = Any


def _pointer(path: tuple, key: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in (*path, key))


def describe_source(source: Source, value: float) -> str:
    """``snapshot /daily/12/cost = 243.6``, ``derived: account: CTR, period = 0.0125``..."""
    if isinstance(source, str):
        return f"derived: {source} = {value:g}"
    if len(source) == 3:
        return f"snapshot {_pointer(source[0], source[1])} {source[2]!r}"
    return f"snapshot {_pointer(source[0], source[1])} = {value:g}"


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
        found = _Collector()
        if isinstance(data, (dict, list)):
            found.walk(data, ())
        self.snapshot_values = len(found.values)
        self.derived_values = 0
        # Where each derived value comes from (derived.NamedValues.sources), kept for rows().
        self._derived_sources: dict[str, list] = {}
        if mode == "derived":
            named = derived_named(data)
            derived = named.values
            self._derived_sources = named.sources
            self.derived_values = len(derived)
            for name, value in derived.items():
                found.values.setdefault(abs(value), name)
                if is_ratio_name(name):
                    found.ratios.setdefault(abs(value), name)
        self._values = _SortedValues(found.values)
        self._ratios = _SortedValues(found.ratios)
        self._in_percent = _SortedValues(found.in_percent)
        self.identifiers = Identifiers(found.names, found.ids)
        self.period_days = _period_days(data)
        self._data = data if isinstance(data, dict) else {}
        # reading -> (scope, first, last) -> figures, shared by the findings of this snapshot
        self._range_cache: dict[str, dict] = {}
        self._name_parts = _unique_name_parts(self._data)
        self._rows_cache: dict[Any, RowList] = {}  # a derived name or a range -> its rows
        self._campaign_by_name = {
            str(c.get("name")).lower(): str(c.get("id"))
            for c in (self._data.get("campaigns") or []) if isinstance(c, dict) and c.get("name") and c.get("id") is not None
        } if isinstance(self._data.get("campaigns"), list) else {}

    # -- construction and cache ------------------------------------------------

    _cache: dict[tuple[int, str], "GroundingIndex"] = {}
    _cache_lock = threading.Lock()

    @classmethod
    def for_snapshot(cls, snapshot: Any, mode: str = "derived") -> "GroundingIndex":
        """The index of a ``Snapshot`` object, built once per object and mode."""
        key = (id(snapshot), mode)
        with cls._cache_lock:
            cached = cls._cache.get(key)
        if cached is not None:
            return cached
        index = cls(snapshot.data, mode)
        with cls._cache_lock:
            if key not in cls._cache:
                cls._cache[key] = index
                weakref.finalize(snapshot, cls._cache.pop, key, None)
            return cls._cache[key]

    # -- lookups ---------------------------------------------------------------------

    def _match(self, figure: Figure, tolerance: float | None) -> tuple[float, str, Source] | None:
        """The set value closest to the figure, in the figure's unit, with its description and source.

        A percentage matches a ratio times 100 or a value already in percent;
        a multiplier matches a ratio; other figures match any value.
        """
        target = figure.center
        hits = []
        if figure.unit == "percent":
            hit = self._ratios.nearest(target / 100.0, None if tolerance is None else tolerance / 100.0)
            if hit is not None:
                value, source = hit
                hits.append((value * 100.0, f"{describe_source(source, value)} (as a percentage: {value * 100.0:g})",
                             source))
            table = self._in_percent
        else:
            table = self._ratios if figure.unit == "multiplier" else self._values
        hit = table.nearest(target, tolerance)
        if hit is not None:
            hits.append((hit[0], describe_source(hit[1], hit[0]) + (" (in percent)" if table is self._in_percent else ""),
                         hit[1]))
        return min(hits, key=lambda h: abs(h[0] - target)) if hits else None

    def _lookup(self, figure: Figure) -> tuple[float, str, tuple] | None:
        """(matched value in the figure's unit, reason, sources) for a match at printed precision, else None."""
        hit = self._match(figure, figure.tolerance)
        if hit is None:
            return None
        value, reason, source = hit
        return value, reason, (("derived", source) if isinstance(source, str) else ("snapshot", source),)

    def _nearest_reason(self, figure: Figure) -> str:
        hit = self._match(figure, None)
        return f"; nearest: {hit[1]}" if hit else ""

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
        operands: list[tuple[int, float, str]] = []  # (figure number, value, label)

        def grounded(n: int, matched: float | None, reason: str, sources: tuple) -> None:
            field_name, figure = found[n]
            verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
            if matched:
                operands.append((n, abs(figure.value), figure.text))
                if matched != abs(figure.value):
                    operands.append((n, matched, figure.text))

        for n, (_, figure) in enumerate(found):
            direct = self._direct(figure)
            if direct is not None:
                grounded(n, *direct)
        if self.mode == "derived" and any(v is None for v in verdicts):
            ranges = self._ranges(texts, found, skipped, scopes)
            if ranges is not None:
                for n, (_, figure) in enumerate(found):
                    if verdicts[n] is None:
                        hit = _in_ranges(ranges, figure)
                        if hit is not None:
                            value, reason, where = hit
                            grounded(n, value, reason, (("range", where),))
        units = {n: figure.unit for n, (_, figure) in enumerate(found)}
        for n, (field_name, figure) in enumerate(found):
            if verdicts[n] is not None:
                continue
            hit = _arithmetic(figure, operands, n, units)
            if hit is not None:
                reason, used = hit
                sources = tuple(s for k in used for s in verdicts[k].sources)  # type: ignore[union-attr]
                verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
            else:
                where = "the snapshot" if self.mode == "strict" else (
                    "the snapshot, the derived index or the date ranges this finding names")
                verdicts[n] = FigureVerdict(
                    field_name, figure, False,
                    f"not grounded: nothing in {where} rounds to {figure.text!r} "
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
        targets = self._data.get("targets") if isinstance(self._data.get("targets"), dict) else {}
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

    def _direct(self, figure: Figure) -> tuple[float | None, str, tuple] | None:
        """(value usable for arithmetic or None, reason, sources) when grounded by the set itself."""
        if figure.value == 0:
            return None, "zero is always grounded", ()
        if figure.day_count and self.period_days and 1 <= abs(figure.value) <= self.period_days:
            return (abs(figure.value), f"{figure.value:g} days fits the {self.period_days}-day period",
                    (("rows", (Rows("period"),)),))
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
                out.add_pointer(_pointer(payload[0], payload[1]))
                continue
            key = (kind, payload if kind != "range" else (id(payload[0]), payload[1]))
            found = self._rows_cache.get(key)
            if found is None:
                found = self._rows_behind(kind, payload)
                if len(self._rows_cache) >= self.ROWS_CACHE_SIZE:
                    del self._rows_cache[next(iter(self._rows_cache))]
                self._rows_cache[key] = found
            out.extend(found)
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
        return f"{figure.approximate}: {low:g} to {high:g}"
    return f"±{figure.half_unit:g}"


def _in_ranges(tables: list[RangeValues], figure: Figure) -> tuple[float, str, tuple[RangeValues, str]] | None:
    """(matched value in the figure's unit, reason, (the range's table, metric)) from the ranges a finding names."""
    target, tolerance = figure.center, figure.tolerance
    scale = 100.0 if figure.unit == "percent" else 1.0
    low = ((target - tolerance) / scale,)
    best = None
    for table in tables:
        values = table.ratios if figure.unit in ("percent", "multiplier") else table.amounts
        i = bisect.bisect_left(values, low)
        while i < len(values) and values[i][0] * scale <= target + tolerance:
            if best is None or abs(values[i][0] * scale - target) < abs(best[0] * scale - target):
                best = (values[i][0], values[i][1], table)
            i += 1
    if best is None:
        return None
    value, metric, table = best
    shown = f" (as a percentage: {value * 100.0:g})" if scale == 100.0 else ""
    return value * scale, f"derived over a range this finding names: {table.name(metric)} = {value:g}{shown}", (table, metric)


def _arithmetic(
    figure: Figure, operands: list[tuple[int, float, str]], own: int, units: dict[int, str],
) -> tuple[str, tuple[int, ...]] | None:
    """(the reason a figure follows from one or two figures grounded in the same finding, the
    numbers of those figures).

    From two: their difference, sum, ratio or percent change (and, when one
    of them is a rate, a percentage or a multiplier, their product: "4,598
    clicks at 5.25% is 242 expected"). From one: the same figure printed
    less precisely, or the same money read out of micros (divided or
    multiplied by a million).
    """
    target, tolerance = figure.center, figure.tolerance

    def near(value: float) -> bool:
        return abs(value - target) <= tolerance

    for na, a, la in operands:
        if na == own:
            continue
        if near(a):  # "ROAS 14.45" in the evidence, "14.5" in the claim
            return f"the same figure as {la} in this finding, rounded", (na,)
        if figure.unit != "percent":
            for value, how in ((a / 1e6, f"{la} read as micros"), (a * 1e6, f"{la} in micros")):
                if near(value):
                    return f"arithmetic in this finding: {how} = {value:.6g}", (na,)
    for i, (na, a, la) in enumerate(operands):
        for nb, b, lb in operands[i + 1:]:
            if na == nb or na == own or nb == own:
                continue
            results = [(abs(a - b), f"{la} - {lb}"), (a + b, f"{la} + {lb}")]
            if b:
                results.append((a / b, f"{la} / {lb}"))
            if a:
                results.append((b / a, f"{lb} / {la}"))
            if figure.unit == "percent":
                results = [(r * 100.0, f"{how} as a percentage") for r, how in results if "/" in how]
                results.append((abs(a - b), f"{la} - {lb} (points)"))
                if b:
                    results.append((abs(a - b) / b * 100.0, f"change from {lb} to {la}"))
                if a:
                    results.append((abs(a - b) / a * 100.0, f"change from {la} to {lb}"))
            elif figure.unit == "multiplier":
                results = [(r, how) for r, how in results if "/" in how]
            else:
                for rate_n, rate, count in ((na, a, b), (nb, b, a)):
                    if units.get(rate_n) == "percent":
                        results.append((rate * count / 100.0, f"{la} x {lb}"))
                    elif units.get(rate_n) == "multiplier":
                        results.append((rate * count, f"{la} x {lb}"))
            for value, how in results:
                if near(value):
                    return f"arithmetic in this finding: {how} = {value:.6g}", (na, nb)
    return None


class _Collector:
    """Walks a snapshot for every number (values and numbers inside strings), every name with
    digits and every id. Numbers under a ratio-like key (``search_impression_share``,
    ``pacing_tolerance``, ``target_roas``) are ratios too; numbers under a percent key, or
    followed by ``%`` inside a string, are already in percent."""

    def __init__(self) -> None:
        self.values: dict[float, Source] = {}
        self.ratios: dict[float, Source] = {}
        self.in_percent: dict[float, Source] = {}
        self.names: set[str] = set()
        self.ids: set[str] = set()
        self._texts: dict[str, list[tuple[float, bool]]] = {}

    def walk(self, node: dict | list, path: tuple) -> None:
        """The hot loop of index building: leaves are handled inline, and a path tuple is made
        only for containers and for values not seen before."""
        is_dict = isinstance(node, dict)
        values = self.values
        for key, value in (node.items() if is_dict else enumerate(node)):
            kind = type(value)
            if kind is float or kind is int:
                magnitude = float(value if value >= 0 else -value) if -1e300 < value < 1e300 else _INF
                if magnitude == _INF:  # (nan fails the range test above)
                    continue
                if magnitude not in values:
                    values[magnitude] = (path, key)
                if is_dict:
                    if kind is int and _is_id_key(key):
                        self.ids.add(str(value))
                    elif _ratio_key(key):
                        self.ratios.setdefault(magnitude, (path, key))
                        if _PERCENT_KEY.search(key):
                            self.in_percent.setdefault(magnitude, (path, key))
            elif kind is str:
                if is_dict and _is_id_key(key):
                    self.ids.add(value)
                numbers = self._texts.get(value)
                if numbers is None:
                    numbers = self._texts[value] = self._numbers_in(value)
                for number_in_text, percent in numbers:
                    values.setdefault(number_in_text, (path, key, value))
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


def _ratio_key(key: Any, _known: dict[str, bool] = {}) -> bool:  # noqa: B006 - deliberate memo
    answer = _known.get(key)
    if answer is None:
        answer = isinstance(key, str) and bool(_RATIO_KEY.search(key))
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
