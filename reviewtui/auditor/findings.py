"""What a detector records: an ``Assessment`` per (kind, scope) it looked at.

A detector says for each kind it checks whether the rows support it
(``found``), do not (``rejected``), or cannot tell (``unassessable``), with
the rows it read. The audit turns the supported ones into findings; the
support check (``support.py``) answers "do the rows support this id?" from
all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Mapping

from .. import taxonomy
from . import derived_names as names
from .quoted_figures import QuotedFigures
from .series import METRICS, Series
from ..domain.thresholds import KindThresholds, Thresholds


@dataclass
class Assessment:
    kind: str
    scope: str | None
    supported: bool | None  # None: cannot be assessed from this snapshot
    claim: str = ""
    evidence: str = ""
    severity: str = "medium"
    rows: list[str] = field(default_factory=list)  # JSON Pointers into snapshot.json
    explanation: str = ""  # why it is (not) supported, in words and figures

    def as_output(self) -> dict[str, Any]:
        """The assistant's output format for one finding."""
        return {
            "id": self.kind,
            "scope": self.scope,
            "claim": self.claim,
            "evidence": self.evidence,
            "severity": self.severity,
        }


def _sentence(text: str) -> str:
    """Capitalised first letter: texts often open with a campaign label."""
    return text[:1].upper() + text[1:]


class Context:
    """The series, the thresholds and the assessments of one audit run."""

    def __init__(self, series: Series, thresholds: Thresholds) -> None:
        self.series = series
        self.thresholds = thresholds
        self.assessments: list[Assessment] = []
        # breakage kind -> what it corrupts, set by the data checks before the rest run
        self.broken: dict[str, str] = {}
        # breakage kind -> the campaigns whose rows it touches (None: the whole account)
        self.broken_campaigns: dict[str, set[str] | None] = {}
        # facts one detector leaves for others, e.g. the first day of a conversion stop per scope
        self.stops: dict[str | None, date] = {}
        self.not_assessed: list[str] = []  # what could not be assessed, in words
        self._derived: Mapping[str, float] | None = None

    @property
    def derived(self) -> Mapping[str, float]:
        """The scoring's derived index of this snapshot: figures quoted from it are grounded."""
        if self._derived is None:
            # Only the figures quoted are computed (quoted_figures.py); the auditor still decides when the
            # index fails, it only quotes fewer figures
            self._derived = QuotedFigures(self.series.data, self._index_failed)
        return self._derived

    def _index_failed(self, exc: Exception) -> None:
        self.series.notes.append(f"the derived index failed on this snapshot ({type(exc).__name__}: {exc})")

    def quote(self, name: str) -> float | None:
        """A derived-index figure to print, or None (then the text goes without it)."""
        return self.derived.get(name)

    def period(self, scope: str | None, metric: str) -> float | None:
        """A scope's figure over the period as the derived index has it (``cost``, ``CPA``, ``share of account cost``)."""
        return self.derived.get(names.window(scope, metric, names.PERIOD))

    def day_values(self, day: date, scope: str | None) -> dict[str, float] | None:
        """One day's metrics as grounded figures: the account's day totals from the derived index, or a
        campaign's single row as the snapshot holds it (None with duplicates or values that are not numbers)."""
        if scope is None:
            values = {m: self.derived.get(f"account: {m} on {day.isoformat()}") for m in METRICS}
            return {m: v for m, v in values.items() if v is not None} or None
        rows = self.series.rows_by_cell.get((day, scope), [])
        if len(rows) != 1:
            return None
        raw = rows[0].raw
        return {m: float(raw[m]) for m in METRICS if isinstance(raw.get(m), (int, float)) and not isinstance(raw.get(m), bool)}

    def t(self, kind: str) -> KindThresholds:
        return self.thresholds.of(kind)

    def found(
        self,
        kind: str,
        scope: str | None,
        claim: str,
        evidence: str,
        *,
        high: bool = False,
        rows: list[str] | None = None,
    ) -> Assessment:
        """A supported assessment; its severity is the taxonomy's for the kind (``high``: the kind's
        condition for high severity holds)."""
        severity = taxonomy.kinds()[kind].severity.of(high)
        claim, evidence = _sentence(claim), _sentence(evidence)
        item = Assessment(kind, scope, True, claim, evidence, severity, list(rows or []), explanation=evidence)
        self.assessments.append(item)
        return item

    def rejected(self, kind: str, scope: str | None, explanation: str, *, rows: list[str] | None = None) -> None:
        self.assessments.append(Assessment(kind, scope, False, rows=list(rows or []), explanation=explanation))

    def unassessable(self, kind: str, scope: str | None, explanation: str) -> None:
        self.assessments.append(Assessment(kind, scope, None, explanation=explanation))
        # Only the account-wide gaps are worth telling the reader; one short campaign is normal.
        if scope is None and explanation not in self.not_assessed:
            self.not_assessed.append(explanation)

    def stop_of(self, scope: str | None) -> date | None:
        """The first day of a conversion stop in this campaign or account-wide, if one was found."""
        days = [d for key, d in self.stops.items() if key is None or key == scope]
        return min(days) if days else None

    def breaks(self, breakage: str, reason: str, campaigns: set[str] | None = None) -> None:
        """Record a breakage and what it corrupts, for ``withheld``."""
        self.broken[breakage] = reason
        self.broken_campaigns[breakage] = campaigns

    def withheld(self, kind: str, scope: str | None) -> bool:
        """Record and return True when a breakage found would corrupt this kind's figures (the
        breakages whose ``withholds`` in taxonomy.yaml list the kind).

        An account-wide assessment (scope None) is corrupted by any such breakage; a
        campaign's only by one that touches that campaign's rows.
        """
        if not self.broken:  # asked for every campaign and kind: most snapshots have no breakage
            return False
        reasons = [
            self.broken[b]
            for b in taxonomy.withheld_by(kind)
            if b in self.broken and (scope is None or (touched := self.broken_campaigns.get(b)) is None or scope in touched)
        ]
        if not reasons:
            return False
        # None, not False: the rows may or may not support it once the data is repaired
        self.assessments.append(
            Assessment(kind, scope, None, explanation="not assessed on broken data: " + "; ".join(reasons))
        )
        return True
