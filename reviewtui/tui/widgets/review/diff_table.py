"""A table of per-case differences (``runs.CaseDiff``): between two runs, or before and after a re-score.

Recall and precision show before → after with the signed delta; ids newly
missed and newly found; fabrications added and removed. Rows that did not
change are hidden unless ``changed_only`` is off.
"""

from __future__ import annotations

from typing import Any, Sequence

from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import DataTable

from ....runs.stored_runs import CaseDiff
from ...plain import cells


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def delta_text(before: float | None, after: float | None, delta: float | None) -> Text:
    """``0.50→1.00 +0.50``, green when it went up, red when down."""
    text = Text(f"{_ratio(before)}→{_ratio(after)}")
    if delta:
        text.append(f" {delta:+.2f}", style="bold green" if delta > 0 else "bold red")
    return text


def _items(items: Sequence[str], style: str) -> Text:
    return Text("; ".join(items), style=style)


def _found(d: CaseDiff) -> Text:
    """Ids newly found, then (dim) the ones the case no longer lists as must_find: a re-score after an id
    moved to may_find no longer misses it, which is no find."""
    text = _items(d.newly_found, "green")
    for item in d.no_longer_must_find:
        text.append("; " if text.plain else "")
        text.append(f"{item} (no longer must_find)", style="dim")
    return text


class CaseDiffTable(DataTable):
    """One row per case of a ``CaseDiff`` list."""

    BINDINGS = [Binding("a", "toggle_changed", "All / changed")]

    changed_only: reactive[bool] = reactive(True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.diffs: list[CaseDiff] = []

    def on_mount(self) -> None:
        for label, key in (("case", "case"), ("recall", "recall"), ("precision", "precision"),
                           ("status", "status"), ("newly missed", "missed"), ("newly found", "found"),
                           ("fabrications added", "fab_added"), ("fabrications removed", "fab_removed")):
            self.add_column(label, key=key)
        self._rebuild()

    def show(self, diffs: Sequence[CaseDiff]) -> None:
        self.diffs = list(diffs)
        self._rebuild()

    @property
    def shown(self) -> list[CaseDiff]:
        return [d for d in self.diffs if d.changed or not self.changed_only]

    def watch_changed_only(self) -> None:
        self._rebuild()

    def action_toggle_changed(self) -> None:
        self.changed_only = not self.changed_only

    def _rebuild(self) -> None:
        if not self.columns:
            return
        self.clear()
        for d in self.shown:
            status = d.status_after if d.status_before == d.status_after else f"{d.status_before or '–'}→{d.status_after or '–'}"
            case = Text(d.case_id, style="" if d.changed else "dim")
            if d.note:
                case.append(f" ({d.note})", style="italic yellow")
            self.add_row(*cells(
                case,
                delta_text(d.recall_before, d.recall_after, d.recall_delta),
                delta_text(d.precision_before, d.precision_after, d.precision_delta),
                Text(str(status), style="" if d.status_before == d.status_after else "bold yellow"),
                _items(d.newly_missed, "red"),
                _found(d),
                _items(d.fabrications_added, "bold red"),
                _items(d.fabrications_removed, "green"),
            ), key=d.case_id)
