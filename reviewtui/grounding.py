"""Figure grounding: is each figure in a finding traceable to the snapshot?

The grounding set of a snapshot is every number in snapshot.json (values and
numbers inside strings) plus, unless ``mode="strict"``, the derived index of
``derived.py``. A figure is grounded when, at its printed precision (half a
unit of its last printed digit, of the scaled unit for ``1.2k``), it equals a
value of the set:

- a percentage matches a fraction times 100 (CTR 0.1249 -> ``12.5%``) or a
  value already in percent;
- a multiplier (``2.4x``) matches a ratio;
- signs are not compared: ``-12%`` and "fell 12%" make the same claim;
- zero is always grounded, and "N days" / "day N" when N fits the period;
- a figure that matches nothing may still be the difference, ratio or
  percent change of two figures grounded directly in the same finding
  (all its text fields together): ``CPA 108.00 vs target 45.00, 2.4x``.

``GroundingIndex.for_snapshot(snapshot, mode)`` builds the sorted value
arrays once per snapshot object and caches them; ``verdicts_for_text`` is
the one-call helper for the app and the reference auditor. Every verdict
carries a reason a person can read: what grounded the figure, by name, or
why nothing did (with the nearest value, to help the reviewer).
"""

from __future__ import annotations

import bisect
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from .derived import derived_index, number, parse_day
from .figures import Figure, Identifiers, find_figures, is_date_or_time

FIGURE_MODES = ("derived", "strict")
_HAS_DIGIT = re.compile(r"\d")
_INF = float("inf")
_NUMBER_IN_TEXT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class FigureVerdict:
    field: str
    figure: Figure
    grounded: bool
    reason: str  # what grounded it, by name, or why nothing did

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
        sources: dict[float, Source] = {}
        names: set[str] = set()
        ids: set[str] = set()
        if isinstance(data, (dict, list)):
            _collect(data, (), sources, names, ids, {})
        self.snapshot_values = len(sources)
        self.derived_values = 0
        if mode == "derived":
            derived = derived_index(data)
            self.derived_values = len(derived)
            for name, value in derived.items():
                sources.setdefault(abs(value), name)
        self._values = _SortedValues(sources)
        self.identifiers = Identifiers(names, ids)
        self.period_days = _period_days(data)

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

    def _match(self, figure: Figure, tolerance: float | None) -> tuple[float, str] | None:
        """The set value closest to the figure, in the figure's unit, with its description.

        A percentage is looked up both as a fraction (value / 100) and as a
        value already in percent; the closer of the two wins.
        """
        target = abs(figure.value)
        hits = []
        if figure.unit == "percent":
            hit = self._values.nearest(target / 100.0, None if tolerance is None else tolerance / 100.0)
            if hit is not None:
                value, source = hit
                hits.append((value * 100.0, f"{describe_source(source, value)} (as a percentage: {value * 100.0:g})"))
        hit = self._values.nearest(target, tolerance)
        if hit is not None:
            hits.append((hit[0], describe_source(hit[1], hit[0])))
        return min(hits, key=lambda h: abs(h[0] - target)) if hits else None

    def _lookup(self, figure: Figure) -> tuple[float, str] | None:
        """(matched value in the figure's unit, reason) for a match at printed precision, else None."""
        return self._match(figure, figure.half_unit + 1e-9 * max(1.0, abs(figure.value)))

    def _nearest_reason(self, figure: Figure) -> str:
        hit = self._match(figure, None)
        return f"; nearest: {hit[1]}" if hit else ""

    def check_texts(self, texts: dict[str, str]) -> list[FigureVerdict]:
        """Verdicts for every figure in the text fields of one finding, in field order.

        Arithmetic uses only figures grounded directly (not through other
        arithmetic), each as printed and as the set value it matched.
        """
        found: list[tuple[str, Figure]] = []
        for field_name, text in texts.items():
            if isinstance(text, str) and text:
                found.extend((field_name, f) for f in find_figures(text, self.identifiers))
        verdicts: list[FigureVerdict | None] = [None] * len(found)
        operands: list[tuple[int, float, str]] = []  # (figure number, value, label)
        for n, (field_name, figure) in enumerate(found):
            direct = self._direct(figure)
            if direct is None:
                continue
            matched, reason = direct
            verdicts[n] = FigureVerdict(field_name, figure, True, reason)
            if matched:
                operands.append((n, abs(figure.value), figure.text))
                if abs(matched - abs(figure.value)) > 0:
                    operands.append((n, matched, figure.text))
        for n, (field_name, figure) in enumerate(found):
            if verdicts[n] is not None:
                continue
            reason = _arithmetic(figure, operands, n)
            if reason is not None:
                verdicts[n] = FigureVerdict(field_name, figure, True, reason)
            else:
                where = "the snapshot" if self.mode == "strict" else "the snapshot or the derived index"
                verdicts[n] = FigureVerdict(
                    field_name, figure, False,
                    f"not grounded: nothing in {where} rounds to {figure.text!r} "
                    f"(±{figure.half_unit:g}), nor any difference, ratio or percent change of "
                    f"two figures grounded in this finding{self._nearest_reason(figure)}",
                )
        return [v for v in verdicts if v is not None]

    def _direct(self, figure: Figure) -> tuple[float | None, str] | None:
        """(value usable for arithmetic or None, reason) when grounded without arithmetic."""
        if figure.value == 0:
            return None, "zero is always grounded"
        if figure.day_count and self.period_days and 1 <= abs(figure.value) <= self.period_days:
            return abs(figure.value), f"{figure.value:g} days fits the {self.period_days}-day period"
        hit = self._lookup(figure)
        if hit is None:
            return None
        return hit


def _arithmetic(figure: Figure, operands: list[tuple[int, float, str]], own: int) -> str | None:
    """The reason a figure equals a difference, ratio or percent change of two grounded figures."""
    target = abs(figure.value)
    tolerance = figure.half_unit + 1e-9 * max(1.0, target)
    for i, (na, a, la) in enumerate(operands):
        for nb, b, lb in operands[i + 1:]:
            if na == nb or na == own or nb == own:
                continue
            results = [(abs(a - b), f"{la} - {lb}")]
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
            for value, how in results:
                if abs(value - target) <= tolerance:
                    return f"arithmetic in this finding: {how} = {value:.6g}"
    return None


def _collect(
    node: dict | list, path: tuple, out: dict[float, Source], names: set[str], ids: set[str],
    seen_text: dict[str, list[float]],
) -> None:
    """Every number (values and numbers inside strings), name with digits and id in the snapshot.

    The hot loop of index building: leaves are handled inline, and a path
    tuple is made only for containers and for values not seen before.
    """
    is_dict = isinstance(node, dict)
    for key, value in (node.items() if is_dict else enumerate(node)):
        kind = type(value)
        if kind is float or kind is int:
            magnitude = float(value if value >= 0 else -value) if -1e300 < value < 1e300 else _INF
            if magnitude not in out and magnitude != _INF:  # (nan fails the range test above)
                out[magnitude] = (path, key)
            if is_dict and kind is int and _is_id_key(key):
                ids.add(str(value))
        elif kind is str:
            if is_dict and _is_id_key(key):
                ids.add(value)
            numbers = seen_text.get(value)
            if numbers is None:
                # A date's parts are not figures (the day of month would ground every small number).
                numbers = [] if not _HAS_DIGIT.search(value) or is_date_or_time(value) else [
                    float(m.group().replace(",", "")) for m in _NUMBER_IN_TEXT.finditer(value)]
                seen_text[value] = numbers
                if numbers:
                    names.add(value)
            for number_in_text in numbers:
                if number_in_text not in out:
                    out[number_in_text] = (path, key, value)
        elif kind is dict or kind is list:
            if is_dict and kind is list and _is_id_key(key):
                ids.update(str(v) for v in value if type(v) in (str, int))
            _collect(value, path + (key,), out, names, ids, seen_text)


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
