"""Undo and redo of edits to an ``ExpectedDoc``, and whether it has unsaved changes.

Each step stores the document's YAML text before and after the edit, and
undoing re-reads the earlier text into the round-trip tree. Working on the
serialised text (rather than inverse operations) means an undo gives back
exactly what was there, comments on a deleted entry included, and "unsaved"
is simply "the text differs from what was last saved".

A change the app saves to another file at once (a dispute added to or
reopened in ``disputed.md``) is a ``FileStep`` in the same list, so ``ctrl+z``
undoes the last thing done whatever it was: undoing writes the file's earlier
text back, and only while the file still holds exactly what the change wrote
(if anything else changed it since, the step is refused and dropped).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..files.atomic import FileChangedError, update_file

from ..caseset.cases import CaseFileError, ExpectedDoc

EDITED_KEYS = ("id", "evidence", "rows", "says", "claim")


@dataclass(frozen=True)
class Step:
    label: str
    before: str
    after: str


@dataclass(frozen=True)
class FileStep:
    """A change already saved to ``path``: its bytes before (None: no file) and after."""

    label: str
    path: Path
    before: bytes | None
    after: bytes

    def put(self, expected: bytes | None, data: bytes | None) -> None:
        """Replace the file's bytes ``expected`` by ``data`` (under the folder lock, atomically);
        StepRefused if the file holds anything else."""
        def build(current: bytes | None) -> bytes:
            if current != expected:
                raise StepRefused(f"{self.path.name} changed since {self.label}; not undone or redone, edit it by hand")
            return data if data is not None else b""

        try:
            update_file(self.path, build)
        except FileChangedError:
            raise StepRefused(f"{self.path.name} changed during the undo; nothing was written, try again") from None
        if data is None:
            self.path.unlink()  # the change created the file: undone, there is none again


class StepRefused(Exception):
    """A file step cannot be undone or redone: the file no longer holds what the step left."""


class History:
    def __init__(self, doc: ExpectedDoc, limit: int = 500) -> None:
        self.doc = doc
        self.limit = limit
        self._undo: list[Step | FileStep] = []
        self._redo: list[Step | FileStep] = []
        self._current = doc.dump()
        self._saved = self._current

    # -- state ----------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        """True when the document differs from what was last loaded or saved."""
        return self._current != self._saved

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def mark_saved(self) -> None:
        self._saved = self._current

    def reset(self, doc: ExpectedDoc) -> None:
        """Start over on a freshly loaded document (after a reload from disk)."""
        self.__init__(doc, self.limit)  # type: ignore[misc]

    # -- edits ------------------------------------------------------------------

    def apply(self, label: str, edit: Callable[[ExpectedDoc], Any]) -> Any:
        """Run ``edit(doc)`` as one undoable step; returns what the edit returned."""
        before = self._current
        result = edit(self.doc)
        after = self.doc.dump()
        # Re-read the text so every node carries the line it will have in the saved file
        # (validation messages point at those lines; nodes built in memory have none),
        # and so an edit that would not save as valid YAML is refused, not kept.
        try:
            self._restore(after)
        except CaseFileError as exc:
            self._restore(before)
            raise ValueError(f"{label}: the edited document would not be valid YAML ({exc}); edit refused") from None
        if after != before:
            self._undo.append(Step(label, before, after))
            del self._undo[: -self.limit]
            self._redo.clear()
        return result

    def record_file(self, label: str, path: Path, before: bytes | None, after: bytes) -> None:
        """Record a change the caller already wrote to another file, as an undoable step."""
        self._undo.append(FileStep(label, Path(path), before, after))
        del self._undo[: -self.limit]
        self._redo.clear()

    def add(self, list_name: str, entry: dict[str, Any]) -> int:
        return self.apply(f"add {entry.get('id', 'entry')} to {list_name}", lambda d: d.add_entry(list_name, entry))

    def remove(self, list_name: str, index: int) -> dict[str, Any]:
        entry_id = self.doc.entry(list_name, index).get("id", "entry")
        return self.apply(f"delete {entry_id} from {list_name}", lambda d: d.remove_entry(list_name, index))

    def replace(self, list_name: str, index: int, entry: dict[str, Any], new_list: str | None = None) -> tuple[str, int]:
        """Edit an entry in place (keeping its comments and unknown keys), or move it to ``new_list``.

        The fields the app edits (``EDITED_KEYS``) that are missing from ``entry`` or None are
        removed; other keys such as ``note`` stay. Returns the entry's new (list, index).
        """
        target = new_list or list_name

        def edit(doc: ExpectedDoc) -> tuple[str, int]:
            if target == list_name:
                old = doc.entry(list_name, index)
                fields: dict[str, Any] = {key: None for key in old if key in EDITED_KEYS and key not in entry}
                fields.update(entry)
                doc.update_entry(list_name, index, fields)
                return list_name, index
            doc.remove_entry(list_name, index)
            return target, doc.add_entry(target, entry)

        return self.apply(f"edit {entry.get('id', 'entry')}", edit)

    # -- undo / redo ------------------------------------------------------------

    def undo(self) -> str | None:
        """Undo the last step; returns its label, or None when there is nothing to undo."""
        if not self._undo:
            return None
        step = self._undo.pop()
        if isinstance(step, FileStep):
            step.put(step.after, step.before)  # StepRefused: the step is dropped
        else:
            self._restore(step.before)
        self._redo.append(step)
        return step.label

    def redo(self) -> str | None:
        if not self._redo:
            return None
        step = self._redo.pop()
        if isinstance(step, FileStep):
            step.put(step.before, step.after)
        else:
            self._restore(step.after)
        self._undo.append(step)
        return step.label

    def _restore(self, text: str) -> None:
        self.doc.reparse(text)
        self._current = text
