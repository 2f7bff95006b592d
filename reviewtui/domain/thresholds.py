"""The thresholds: data in ``reviewtui/taxonomy.yaml``, overridable.

Domain data, below both the scoring and the auditor: the reference auditor
decides with them, the scoring's derived index and declared figures read
the platform's daily cap from them, and the prompt renders them in words.
Every number a detector compares against lives under its kind's
``thresholds:`` mapping in taxonomy.yaml, next to the kind's meaning, so a
senior can read and tune the rules without reading Python. A run can override
any of them with a YAML file of the same shape::

    pacing.overspend:
      tolerance: 0.15

given to ``audit(..., thresholds=Thresholds.load(path))`` or, for
``reviewtui eval --backend rules``, through ``REVIEWTUI_AUDITOR_THRESHOLDS``.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import date, datetime
from pathlib import Path
from typing import Any, Mapping

import yaml

from .. import taxonomy

OVERRIDE_ENV = "REVIEWTUI_AUDITOR_THRESHOLDS"


class ThresholdError(ValueError):
    """A threshold that is missing or malformed: the message names the file and the fix."""


class Thresholds:
    """Thresholds by kind id: taxonomy.yaml's values, with overrides on top."""

    def __init__(self, overrides: Mapping[str, Mapping[str, Any]] | None = None, source: str | None = None) -> None:
        self.source = source
        self._values: dict[str, dict[str, Any]] = {
            kind_id: dict(kind.thresholds) for kind_id, kind in taxonomy.kinds().items()
        }
        for kind_id, values in (overrides or {}).items():
            where = source or "thresholds override"
            if kind_id not in self._values:
                raise ThresholdError(f"{where}: {kind_id!r} is not a taxonomy id; use an id from {taxonomy.TAXONOMY_PATH}")
            if not isinstance(values, Mapping):
                raise ThresholdError(f"{where}: {kind_id} must map threshold names to values")
            for name, value in values.items():
                if name not in self._values[kind_id]:
                    known = ", ".join(sorted(self._values[kind_id])) or "none"
                    raise ThresholdError(f"{where}: {kind_id} has no threshold {name!r} (known: {known})")
                self._values[kind_id][name] = value

    @classmethod
    def load(cls, path: str | Path) -> "Thresholds":
        path = Path(path)
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ThresholdError(f"{path}: cannot read thresholds override ({exc}); fix the file or unset {OVERRIDE_ENV}") from None
        if doc is None:
            doc = {}
        if not isinstance(doc, dict):
            raise ThresholdError(f"{path}: expected a mapping of taxonomy ids to threshold mappings")
        return cls(doc, source=str(path))

    @classmethod
    def from_environment(cls) -> "Thresholds":
        path = os.environ.get(OVERRIDE_ENV)
        return cls.load(path) if path else cls()

    def of(self, kind_id: str) -> "KindThresholds":
        return KindThresholds(kind_id, self._values.get(kind_id, {}))

    def digest(self) -> str:
        """SHA-256 of every value in force, for the run manifest."""
        text = json.dumps(self._values, sort_keys=True, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


class KindThresholds:
    """One kind's thresholds; a missing name is a clear error, not a silent default."""

    def __init__(self, kind_id: str, values: Mapping[str, Any]) -> None:
        self.kind_id = kind_id
        self._values = values

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise ThresholdError(
                f"{taxonomy.TAXONOMY_PATH}: kind {self.kind_id} has no threshold {name!r}; add it under its thresholds:"
            ) from None

    def number(self, name: str) -> float:
        value = self[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ThresholdError(f"{taxonomy.TAXONOMY_PATH}: {self.kind_id} threshold {name!r} must be a number, not {value!r}")
        return float(value)

    def date(self, name: str) -> date:
        """A threshold that is a day (``"2025-05-29"``, quoted or not in YAML)."""
        value = self[name]
        if isinstance(value, date) and not isinstance(value, datetime):
            return value
        try:
            return date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ThresholdError(f"{taxonomy.TAXONOMY_PATH}: {self.kind_id} threshold {name!r} must be a date "
                                 f"written YYYY-MM-DD, not {value!r}") from None


DAILY_CAP = "pacing.daily_cap_exceeded"


def cap_multiple(t: KindThresholds, is_meta: bool, day: date) -> float:
    """The platform's allowed multiple of the daily budget on ``day`` (``t``: the daily-cap thresholds).

    Meta's allowance is a quarter above the budget before ``meta_flexible_from``
    and three quarters above it from that day (docs/auditor.md gives the source);
    Google's is twice the budget throughout.
    """
    if not is_meta:
        return t.number("google_multiple")
    if day >= t.date("meta_flexible_from"):
        return t.number("meta_flexible_multiple")
    return t.number("meta_multiple")
