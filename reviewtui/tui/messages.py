"""Messages that cross screens, or carry a background worker's result to the UI thread.

Workers run in threads and report only through these messages (posting a
message is thread-safe), so the UI never waits on disk or on a large parse.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from ..cases import CaseSet, Problem
from ..snapshot import Snapshot
from .snapshot_sections import SectionTable


class CaseSetLoaded(Message):
    """The cases view's worker finished loading and validating the case set."""

    def __init__(self, case_set: CaseSet) -> None:
        super().__init__()
        self.case_set = case_set


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
