"""The finding taxonomy, read from ``taxonomy.yaml`` (one source of truth).

Everything that needs the list of finding ids (the prompt, the output
schema's enum, ``reviewtui check``, the app's id picker, the reference
auditor) reads it from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

TAXONOMY_PATH = Path(__file__).with_name("taxonomy.yaml")


SEVERITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class Severity:
    """A kind's severity: its level, or ``high`` when the condition holds (a sentence that may name
    the kind's thresholds as ``{name}``)."""

    level: str
    high_when: str = ""

    def of(self, high: bool = False) -> str:
        return "high" if high and self.high_when else self.level


@dataclass(frozen=True)
class Kind:
    id: str
    meaning: str
    detection: str
    thresholds: dict[str, Any] = field(default_factory=dict)
    severity: Severity = Severity("medium")
    withholds: tuple[str, ...] = ()  # a data breakage: the kinds not assessed where it touches

    @property
    def group(self) -> str:
        """The part before the dot: ``pacing``, ``tracking``, ``data``..."""
        return self.id.split(".", 1)[0]


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    with TAXONOMY_PATH.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@lru_cache(maxsize=1)
def _load() -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for entry in _document()["kinds"]:
        severity = entry.get("severity") or {}
        level = severity.get("level", "medium")
        if level not in SEVERITIES:
            raise ValueError(f"{TAXONOMY_PATH}: {entry['id']} severity level {level!r} is not one of {', '.join(SEVERITIES)}")
        kinds[entry["id"]] = Kind(
            id=entry["id"],
            meaning=entry["meaning"].strip(),
            detection=entry.get("detection", "").strip(),
            thresholds=dict(entry.get("thresholds") or {}),
            severity=Severity(level, str(severity.get("high") or "").strip()),
            withholds=tuple(entry.get("withholds") or ()),
        )
    for kind in kinds.values():
        unknown = [k for k in kind.withholds if k not in kinds]
        if unknown:
            raise ValueError(f"{TAXONOMY_PATH}: {kind.id} withholds unknown kinds {unknown}")
    return kinds


def withheld_by(kind_id: str) -> tuple[str, ...]:
    """The data breakages that leave ``kind_id`` not assessed where they touch."""
    return tuple(k.id for k in _load().values() if kind_id in k.withholds)


def severity_scale() -> dict[str, str]:
    """What high, medium and low mean (money at stake, certainty), in the order of ``SEVERITIES``."""
    scale = _document().get("severity_scale") or {}
    return {level: str(scale.get(level, "")).strip() for level in SEVERITIES}


def kinds() -> dict[str, Kind]:
    """All kinds by id, in the file's order."""
    return _load()


def kind_ids() -> list[str]:
    return list(_load())


def is_kind(kind_id: str) -> bool:
    return kind_id in _load()


def split_id(finding_id: str) -> tuple[str, str | None]:
    """``"waste.zero_conv_campaign@333"`` -> ``("waste.zero_conv_campaign", "333")``."""
    kind, sep, scope = finding_id.partition("@")
    return kind, (scope if sep else None)


def join_id(kind: str, scope: str | None) -> str:
    return f"{kind}@{scope}" if scope else kind
