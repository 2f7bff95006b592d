"""One case open for authoring: its expectations, its disputes, undo, saving and the external-change guard.

The app's author screen drives an ``AuthoringSession`` and shows what it
holds; everything the screen decides about the files is decided here, so it
is tested without the app (tests/unit/test_authoring_session.py).

- **Expectations.** ``add`` / ``replace`` / ``remove`` edit expected.yaml's
  round-trip tree, each as one undoable step (``history.History``); nothing is
  written until ``save``.
- **Disputes.** ``dispute`` appends an entry to disputed.md and ``reopen``
  removes one; both write the file at once and are steps in the same undo
  history, so ``undo`` / ``redo`` go back and forth across tags and disputes.
- **Saving.** ``save`` writes expected.yaml through ``atomic.update_file``
  (comments and key order kept byte for byte) and refuses with
  ``ExternalChangeError`` when the file on disk is no longer the one loaded.
  The caller then picks one of three ways out: ``reload`` (theirs; ours is
  dropped), ``keep_both`` (ours to a new ``expected.yaml.mine``, numbered if
  one exists, then theirs shown) or ``save(force=True)`` (ours over theirs).
- **Validation.** ``problems`` are the structural checks of ``validate_case``;
  ``support_problems`` turns the reference auditor's verdicts on the
  must_find ids into warnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

from ..caseset import disputes
from ..caseset.disputes import Dispute
from .drafts import unresolved_row
from ..caseset.cases import Case, CaseFileError, ExpectedDoc, Problem, load_case, validate_case
from .history import History
from .support_checks import SupportVerdict
from ..caseset.writeup import Sentence, Writeup, WriteupError, parse_writeup, read_writeup

NO_WRITEUP = (
    "This case has no write-up.\n\n"
    "Tag from the rows alone: move to the snapshot (tab), mark rows with space, "
    "then press 1 (must_find), 2 (may_find) or 3 (must_not_say)."
)
MINE_SUFFIX = ".mine"  # keep both: ours goes to expected.yaml.mine (or .mine-2, .mine-3, ...)
T = TypeVar("T")


class AuthoringSession:
    def __init__(self, case_dir: Path) -> None:
        """Load the case (without its snapshot: the caller loads that when it suits it) and its write-up.

        Raises CaseFileError, SnapshotError or OSError as ``load_case`` does."""
        self.case: Case = load_case(case_dir, with_snapshot=False)
        self.history = History(self.case.doc)
        self.writeup_problem = ""  # why the write-up cannot be shown, when it cannot
        self.writeup: Writeup | None = self._load_writeup()

    # -- what the case is ---------------------------------------------------------------

    @property
    def repo_root(self) -> Path:
        return self.case.dir.parent.parent

    @property
    def disputed_path(self) -> Path:
        return disputes.disputed_path(self.repo_root)

    @property
    def mine_path(self) -> Path:
        """Where ``keep_both`` writes ours first (``save_copy`` numbers it if taken)."""
        return self.case.expected_path.with_name(self.case.expected_path.name + MINE_SUFFIX)

    @property
    def dirty(self) -> bool:
        """expected.yaml differs from what was last loaded or saved."""
        return self.history.dirty

    def _load_writeup(self) -> Writeup | None:
        path = self.case.source_path()
        if path is None or not path.is_file():
            return None
        try:
            return parse_writeup(read_writeup(path))
        except WriteupError as exc:
            self.writeup_problem = f"The write-up cannot be shown: {exc}\n\n"
            return None

    def no_writeup_text(self) -> str:
        """What the write-up region says when there is no write-up to show (and why)."""
        if not self.case.source:
            return NO_WRITEUP
        if self.writeup_problem:  # the file is there but cannot be shown: writeup_problem says why
            return NO_WRITEUP.removeprefix("This case has no write-up.").lstrip()
        return (f"The write-up {self.case.source} named in expected.yaml (source:) is not found: "
                "restore the file or fix the source line, then reopen the case."
                + NO_WRITEUP.removeprefix("This case has no write-up."))

    # -- validation ----------------------------------------------------------------------

    def problems(self) -> list[Problem]:
        """The structural checks (quick): with the snapshot's rows once ``case.snapshot`` is set."""
        return validate_case(self.case)

    def support_entries(self) -> list[tuple[int, str, int]]:
        """(index, id, line) of each must_find entry, for the support check."""
        return [(e.index, e.id, e.line) for e in self.case.must_find]

    def support_problems(self, entries: list[tuple[int, str, int]], verdicts: Mapping[str, SupportVerdict]) -> list[Problem]:
        """A warning for each must_find entry the reference auditor says the rows do not support."""
        problems = []
        for index, finding_id, line in entries:
            verdict = verdicts[finding_id]
            if verdict.available and verdict.supported is False:
                detail = f" ({verdict.detail})" if verdict.detail else ""
                problems.append(Problem(self.case.expected_path, line,
                                        f"must_find[{index}]: the rows do not support {finding_id} according to the reference auditor{detail}",
                                        "warning"))
        return problems

    # -- the write-up's marks ------------------------------------------------------------------

    def writeup_disputes(self) -> list[Dispute]:
        """The disputed.md entries of this case's write-up (DisputeFileError if the file does not parse)."""
        if not self.case.source:
            return []
        return disputes.load(self.disputed_path).for_writeup(self.case.source)

    def tagged_sentences(self) -> set[int]:
        """Indexes of the write-up sentences an expectation claims."""
        if self.writeup is None:
            return set()
        return {s.index for e in self.case.expectations() if e.claim and (s := self.writeup.find(e.claim))}

    def disputed_sentences(self, found: list[Dispute]) -> set[int]:
        """Indexes of the write-up sentences the disputes ``found`` (from ``writeup_disputes()``) quote."""
        if self.writeup is None:
            return set()
        return {s.index for d in found if (s := self.writeup.find(d.quote))}

    def dispute_of(self, sentence: Sentence) -> Dispute | None:
        """The dispute that quotes ``sentence``, if it is disputed (DisputeFileError as ``writeup_disputes``)."""
        writeup = self.writeup
        if writeup is None:
            return None
        return next((d for d in self.writeup_disputes() if writeup.find(d.quote) == sentence), None)

    # -- expectations ------------------------------------------------------------------------

    def taken_ids(self, skip: tuple[str, int] | None = None) -> set[str]:
        """The ids in use, but for the entry ``skip`` (list, index) being edited."""
        return {e.id for e in self.case.expectations() if (e.list_name, e.index) != skip}

    def entry(self, list_name: str, index: int) -> dict[str, Any]:
        return self.case.doc.entry(list_name, index)

    def add(self, list_name: str, entry: dict[str, Any]) -> int:
        """Append ``entry`` to ``list_name`` (one undoable step); returns its index."""
        return self._edited(self.history.add(list_name, entry))

    def replace(self, list_name: str, index: int, entry: dict[str, Any], new_list: str | None = None) -> tuple[str, int]:
        """Edit an entry in place, or move it to ``new_list``; returns its (list, index)."""
        return self._edited(self.history.replace(list_name, index, entry, new_list=new_list))

    def remove(self, list_name: str, index: int) -> dict[str, Any]:
        """Delete an entry; returns it."""
        return self._edited(self.history.remove(list_name, index))

    def undo(self) -> str | None:
        """Undo the last step, an expectation edit or a dispute; its label, or None when there is none.
        StepRefused (the step is dropped) or OSError when disputed.md no longer holds what it left."""
        return self._edited(self.history.undo())

    def redo(self) -> str | None:
        return self._edited(self.history.redo())

    def _edited(self, result: T) -> T:
        self.case.refresh()  # the Expectation views of the document
        return result

    # -- disputes -------------------------------------------------------------------------------

    def dispute(self, sentence: str, *, rows_show: str, rows: list[str], why: str) -> Dispute:
        """Append a dispute of ``sentence`` to disputed.md now, as an undoable step; returns the entry.
        Raises ValueError (an empty field, or a row the loaded snapshot does not hold), DisputeFileError
        or OSError, and then writes nothing."""
        if self.case.snapshot is not None and (problem := unresolved_row(self.case.snapshot, rows)) is not None:
            raise ValueError(problem)
        return self._undoable_dispute_change(
            lambda: disputes.append_dispute(
                self.disputed_path, writeup=str(self.case.source), quote=sentence, case_id=self.case.case_id,
                rows_show=rows_show, rows=rows, why=why,
            ),
            lambda added: f"dispute {added.id}",
        )

    def reopen(self, entry_id: str) -> Dispute:
        """Remove the dispute ``entry_id`` from disputed.md now, as an undoable step (its number stays taken)."""
        return self._undoable_dispute_change(lambda: disputes.reopen(self.disputed_path, entry_id),
                                             lambda _removed: f"reopen {entry_id}")

    def _undoable_dispute_change(self, change: Callable[[], Dispute],
                                 label: Callable[[Dispute], str]) -> Dispute:
        path = self.disputed_path
        before = path.read_bytes() if path.exists() else None
        result = change()
        self.history.record_file(label(result), path, before, path.read_bytes())
        return result

    # -- saving -------------------------------------------------------------------------------

    def save(self, *, force: bool = False) -> None:
        """Write expected.yaml. ExternalChangeError when it changed on disk since it was loaded (unless
        ``force``: ours over theirs); OSError (a read-only file among them). Either way nothing is written."""
        self.case.doc.save(force=force)
        self.history.mark_saved()

    def reload(self) -> None:
        """Show expected.yaml as it is on disk and start a new history. A file that does not parse
        raises CaseFileError and nothing changes: the edits stay."""
        doc = ExpectedDoc.load(self.case.expected_path)
        self.case.doc = doc
        self.history.reset(doc)
        self.case.refresh()

    def keep_both(self) -> tuple[Path, CaseFileError | None]:
        """Write ours to a new .mine file (never over an earlier one), then reload theirs. Returns the
        file written and, when theirs does not parse, why (then the edits stay, as with ``reload``).
        OSError: no copy could be written, and nothing changes."""
        written = self.case.doc.save_copy(self.mine_path)
        try:
            self.reload()
        except CaseFileError as exc:
            return written, exc
        return written, None
