"""Messages that cross screens, or carry a background worker's result to the UI thread.

Workers run in threads and report only through these messages (posting a
message is thread-safe), so the UI never waits on disk or on a large parse.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from ..caseset.cases import CaseSet, Problem
from ..runs.case_records import CaseRecord
from ..runs.runner import Progress
from ..runs.stored_runs import CaseDiff, Run
from ..caseset.snapshot import Snapshot
from ..authoring.snapshot_sections import SectionTable


class CaseSetLoaded(Message):
    """The cases view's worker finished loading and validating the case set."""

    def __init__(self, case_set: CaseSet) -> None:
        super().__init__()
        self.case_set = case_set


class CaseChecksDone(Message):
    """The cases view's worker ran every ``reviewtui check`` check: all the problems, as ``check`` lists them."""

    def __init__(self, case_set: CaseSet, problems: list) -> None:
        super().__init__()
        self.case_set = case_set
        self.problems = problems


class CaseSaved(Message):
    """An author screen saved a case's expected.yaml (the cases view refreshes that row)."""

    def __init__(self, case_id: str) -> None:
        super().__init__()
        self.case_id = case_id


class SnapshotLoaded(Message):
    """The author screen's worker parsed snapshot.json and built its tables."""

    def __init__(self, snapshot: Snapshot, tables: list[SectionTable], seconds: float) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.tables = tables
        self.seconds = seconds


class SnapshotFailed(Message):
    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem


class ValidationDone(Message):
    """Live validation of the author screen's case, with the support check's findings."""

    def __init__(self, generation: int, problems: list[Problem], verdicts: dict[str, Any]) -> None:
        super().__init__()
        self.generation = generation
        self.problems = problems
        self.verdicts = verdicts


# ---- Review area: the eval and re-score workers report through these. ----


class RunProgressed(Message):
    """The new-run worker finished one more case (posted from its thread)."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class RecordLanded(Message):
    """A case was scored and written (or kept from the earlier run, when resuming)."""

    def __init__(self, record: CaseRecord) -> None:
        super().__init__()
        self.record = record


class RunEnded(Message):
    """The run finished or was cancelled (``run``), or could not start (``error``)."""

    def __init__(self, run: Run | None, error: str | None = None) -> None:
        super().__init__()
        self.run = run
        self.error = error


class Rescored(Message):
    """The re-score worker finished (``diffs``) or could not start (``error``)."""

    def __init__(self, diffs: list[CaseDiff] | None, error: str | None = None) -> None:
        super().__init__()
        self.diffs = diffs
        self.error = error


class CaseSetChecked(Message):
    """The case set's digest now (None if unreadable), to tell whether a run's scores are stale."""

    def __init__(self, current_hash: str | None) -> None:
        super().__init__()
        self.current_hash = current_hash
