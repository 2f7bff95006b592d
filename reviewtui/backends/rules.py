"""The ``rules`` backend: the offline reference auditor, the embedded default without an API key.

Runs ``reviewtui.auditor.audit`` on the case's snapshot (the audit kept per
snapshot content and thresholds, ``auditor.support.audit_cached``: the one
the validation's support check made, in memory or on disk) and returns its
findings as the assistant's raw JSON text, so eval scores it exactly like a
model's output; that answer is kept on disk beside the audit
(``auditor.support.audit_answer``), so a rerun does not read the audit back. What the auditor could not assess goes to stderr through the
``reviewtui.auditor`` logger (warnings for bad values, info for absent
optional sections), and into the claim of the summary finding.
"""

from __future__ import annotations

import logging
from typing import Any

from ..auditor import AUDITOR_VERSION, Thresholds
from ..auditor.support import audit_answer
from ..domain.thresholds import OVERRIDE_ENV, ThresholdError
from ..caseset.cases import Case
from ..caseset.snapshot import Snapshot, SnapshotError
from .base import Backend, BackendUsageError, CaseOutput

log = logging.getLogger("reviewtui.auditor")


class RulesBackend(Backend):
    name = "rules"
    model = f"reference-auditor-{AUDITOR_VERSION}"

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        if thresholds is None:
            try:
                thresholds = Thresholds.from_environment()
            except ThresholdError as exc:
                raise BackendUsageError(str(exc)) from None
        self.thresholds = thresholds

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        snapshot = case.snapshot
        if snapshot is None:
            try:
                snapshot = Snapshot.load(case.snapshot_path)
            except SnapshotError as exc:
                return CaseOutput(case.case_id, None, error=str(exc), model=self.model)
        # The audit `reviewtui check`'s support check made of this snapshot (the validation before every
        # eval), in memory or on disk: the same content under the same thresholds is audited once
        answer = audit_answer(snapshot, self.thresholds)
        # Data worked around is worth a warning; what could not be assessed is only informative.
        for line in answer.data_notes:
            log.warning("%s: %s", case.case_id, line)
        for item in answer.not_assessed:
            log.info("%s: not assessed: %s", case.case_id, item)
        return CaseOutput(case.case_id, answer.text, model=self.model, stop_reason="end_turn")

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "thresholds": self.thresholds.source or "reviewtui/taxonomy.yaml",
            "thresholds_sha256": self.thresholds.digest(),
            "thresholds_override_env": OVERRIDE_ENV,
        }
