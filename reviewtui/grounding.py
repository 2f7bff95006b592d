"""Figure grounding (first cut: snapshot numbers only; the derived index follows)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

FIGURE_MODES = ("derived", "strict")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w-])")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}:\d{2}")


@dataclass
class FigureVerdict:
    field: str
    text: str
    start: int
    end: int
    value: float
    grounded: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class GroundingIndex:
    def __init__(self, values: list[float]) -> None:
        self.values = sorted(set(abs(v) for v in values))

    @classmethod
    def for_snapshot(cls, snapshot: Any, mode: str = "derived") -> "GroundingIndex":
        values: list[float] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
            elif isinstance(node, (int, float)) and not isinstance(node, bool):
                values.append(float(node))
            elif isinstance(node, str):
                values.extend(float(m) for m in re.findall(r"\d+(?:\.\d+)?", node))

        walk(snapshot.data)
        return cls(values)

    def check_texts(self, texts: dict[str, str]) -> list[FigureVerdict]:
        out = []
        for field_name, text in texts.items():
            dates = [m.span() for m in _DATE.finditer(text or "")]
            for m in _NUMBER.finditer(text or ""):
                if any(s <= m.start() < e for s, e in dates):
                    continue
                raw = m.group()
                value = float(raw.replace(",", ""))
                decimals = len(raw.split(".")[1]) if "." in raw else 0
                half = 0.5 * 10 ** -decimals
                i = bisect.bisect_left(self.values, abs(value) - half - 1e-9)
                ok = value == 0 or (i < len(self.values) and self.values[i] <= abs(value) + half + 1e-9)
                out.append(FigureVerdict(field_name, raw, m.start(), m.end(), value, ok,
                                         "snapshot value" if ok else "not in the snapshot"))
        return out
