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
from .figures import Figure, Identifiers, is_date_or_time, scan

FIGURE_MODES = ("derived", "strict")
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


class _Source:
    """Where a value in the set came from; the name is built only when a reason needs it."""

    __slots__ = ("kind", "where", "text", "percent")

    def __init__(self, kind: str, where: Any, text: str = "", percent: bool = False) -> None:
        self.kind = kind  # "snapshot" / "text" (where = path tuple; text = the string) / "derived" (where = name)
        self.where = where
        self.text = text
        self.percent = percent  # the table holds this value times 100

    def as_percent(self) -> "_Source":
        return _Source(self.kind, self.where, self.text, True)

    def describe(self, table_value: float) -> str:
        value = table_value / 100.0 if self.percent else table_value
        if self.kind == "derived":
            text = f"derived: {self.where} = {value:g}"
        else:
            pointer = "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in self.where)
            text = f"snapshot {pointer} = {value:g}" if self.kind == "snapshot" else f"snapshot {pointer} {self.text!r}"
        return text + (f" (as a percentage: {table_value:g})" if self.percent else "")


class _SortedValues:
    """Magnitudes in a sorted array, for bisect lookups with a tolerance."""

    def __init__(self, sources: dict[float, _Source]) -> None:
        self.values = sorted(sources)
        self.sources = [sources[v] for v in self.values]

    def __len__(self) -> int:
        return len(self.values)

    def nearest(self, target: float, tolerance: float | None = None) -> tuple[float, _Source] | None:
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
        plain: dict[float, _Source] = {}
        names: set[str] = set()
        ids: set[str] = set()
        _collect(data, (), plain, names, ids, {})
        self.snapshot_values = len(plain)
        self.derived_values = 0
        if mode == "derived":
            for name, value in derived_index(data).items():
                key = abs(value)
                if key not in plain:
                    plain[key] = _Source("derived", name)
                self.derived_values += 1
        percent: dict[float, _Source] = {}
        for value, source in plain.items():
            percent.setdefault(value * 100.0, source.as_percent())
        for value, source in plain.items():
            percent.setdefault(value, source)
        self._values = _SortedValues(plain)
        self._percents = _SortedValues(percent)
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

    def _table(self, figure: Figure) -> _SortedValues:
        return self._percents if figure.unit == "percent" else self._values

    def _lookup(self, figure: Figure) -> tuple[float, str] | None:
        """(matched value in the figure's unit, reason) for a direct match, else None."""
        target = abs(figure.value)
        hit = self._table(figure).nearest(target, figure.half_unit + 1e-9 * max(1.0, target))
        if hit is None:
            return None
        value, source = hit
        return value, source.describe(value)

    def _nearest_reason(self, figure: Figure) -> str:
        hit = self._table(figure).nearest(abs(figure.value))
        return f"; nearest: {hit[1].describe(hit[0])}" if hit else ""

    def check_texts(self, texts: dict[str, str]) -> list[FigureVerdict]:
        """Verdicts for every figure in the text fields of one finding, in field order.

        Arithmetic uses only figures grounded directly (not through other
        arithmetic), each as printed and as the set value it matched.
        """
        found: list[tuple[str, Figure]] = []
        for field_name, text in texts.items():
            if isinstance(text, str) and text:
                found.extend((field_name, f) for f in scan(text, self.identifiers)[0])
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


def _is_id_key(key: Any) -> bool:
    return isinstance(key, str) and (key == "id" or key.endswith(("_id", "_ids")))


def _collect(
    node: Any, path: tuple, out: dict[float, _Source], names: set[str], ids: set[str],
    seen_text: dict[str, list[float]],
) -> None:
    """Every number (values and numbers inside strings), name with digits and id in the snapshot."""
    if isinstance(node, dict):
        for key, value in node.items():
            if _is_id_key(key) and isinstance(value, (str, int)) and not isinstance(value, bool):
                ids.add(str(value))
            elif _is_id_key(key) and isinstance(value, list):
                ids.update(str(v) for v in value if isinstance(v, (str, int)) and not isinstance(v, bool))
            _collect(value, path + (key,), out, names, ids, seen_text)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _collect(value, path + (i,), out, names, ids, seen_text)
    elif isinstance(node, str):
        numbers = seen_text.get(node)
        if numbers is None:
            # A date's parts are not figures (the day of month would ground every small number).
            numbers = [] if is_date_or_time(node) else [
                float(m.group().replace(",", "")) for m in _NUMBER_IN_TEXT.finditer(node)]
            seen_text[node] = numbers
            if numbers:
                names.add(node)
        for value in numbers:
            if value not in out:
                out[value] = _Source("text", path, node)
    else:
        value = number(node)
        if value is not None and abs(value) not in out:
            out[abs(value)] = _Source("snapshot", path)


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
