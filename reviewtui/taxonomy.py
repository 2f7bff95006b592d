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


@dataclass(frozen=True)
class Kind:
    id: str
    meaning: str
    detection: str
    thresholds: dict[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> str:
        """The part before the dot: ``pacing``, ``tracking``, ``data``..."""
        return self.id.split(".", 1)[0]


@lru_cache(maxsize=1)
def _load() -> dict[str, Kind]:
    with TAXONOMY_PATH.open(encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    kinds: dict[str, Kind] = {}
    for entry in doc["kinds"]:
        kinds[entry["id"]] = Kind(
            id=entry["id"],
            meaning=entry["meaning"].strip(),
            detection=entry.get("detection", "").strip(),
            thresholds=dict(entry.get("thresholds") or {}),
        )
    return kinds


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
