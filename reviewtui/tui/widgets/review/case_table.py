"""The run view's case table: one row per case, sortable, filterable to failing cases.

Rows are rebuilt on every sort or filter change (a run has about fifty
cases), which keeps the row order and the ``failing only`` filter in one
place. After a re-score, the cases that changed carry a ``*`` and an arrow
beside each value that moved.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import DataTable

from ....runs.case_records import CaseRecord
from ....runs.stored_runs import CaseDiff
from ...plain import cells

# Each sort puts the worst cases first: low recall / precision, many fabrications, failed status.
_STATUS_RANK = {"error": 0, "unparseable": 1, "ok": 2}
SORTS: dict[str, Callable[[CaseRecord], Any]] = {
    "case": lambda r: r.case_id,
    "recall": lambda r: (r.recall, r.case_id),
    "precision": lambda r: (r.precision, r.case_id),
    "fabrication": lambda r: (-r.fabrication, r.case_id),
    "status": lambda r: (_STATUS_RANK.get(r.status, -1), r.case_id),
}
SORT_CYCLE = tuple(SORTS)


def case_fails(record: CaseRecord) -> bool:
    """A case a reviewer should open: output not scored, a must_find missed, or anything fabricated."""
    return record.status != "ok" or bool(record.missed_ids) or record.fabrication > 0


def ordered_records(records: Sequence[CaseRecord], sort: str, failing_only: bool) -> list[CaseRecord]:
    rows = [r for r in records if case_fails(r)] if failing_only else list(records)
    return sorted(rows, key=SORTS[sort])


def _moved(delta: float | None, *, higher_is_better: bool = True) -> Text:
    if not delta:
        return Text("")
    better = delta > 0 if higher_is_better else delta < 0
    return Text(" ▲" if delta > 0 else " ▼", style="green" if better else "red")


class ReviewCaseTable(DataTable):
    """Cases of one run: kind, status, recall, precision, fabrication and missed ids."""

    BINDINGS = [
        Binding("s", "cycle_sort", "Sort"),
        Binding("f", "toggle_failing", "Failing only"),
    ]

    sort_by: reactive[str] = reactive("case")
    failing_only: reactive[bool] = reactive(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.records: list[CaseRecord] = []
        self.changes: dict[str, CaseDiff] = {}

    def on_mount(self) -> None:
        # The scores before the kind, so an 80-column terminal shows them beside the missed-ids panel.
        for label, key in (("case", "case"), ("status", "status"), ("recall", "recall"), ("precision", "precision"),
                           ("fab", "fabrication"), ("missed ids", "missed"), ("kind", "kind")):
            self.add_column(label, key=key)
        self._rebuild()

    def show(self, records: Sequence[CaseRecord], changes: Mapping[str, CaseDiff] | None = None) -> None:
        """Show these cases; ``changes`` (case id to its re-score diff) marks what moved."""
        self.records = list(records)
        self.changes = {k: v for k, v in (changes or {}).items() if v.changed}
        self._rebuild()

    @property
    def shown_case_ids(self) -> list[str]:
        return [r.case_id for r in ordered_records(self.records, self.sort_by, self.failing_only)]

    @property
    def failing_case_ids(self) -> list[str]:
        """Failing cases in the order shown (the order ``n``/``p`` step through)."""
        return [r.case_id for r in ordered_records(self.records, self.sort_by, True)]

    @property
    def current_case_id(self) -> str | None:
        if not self.row_count:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)

    def select_case(self, case_id: str) -> None:
        if case_id in self.shown_case_ids:
            self.move_cursor(row=self.shown_case_ids.index(case_id))

    def watch_sort_by(self) -> None:
        self._rebuild()

    def watch_failing_only(self) -> None:
        self._rebuild()

    def action_cycle_sort(self) -> None:
        self.sort_by = SORT_CYCLE[(SORT_CYCLE.index(self.sort_by) + 1) % len(SORT_CYCLE)]

    def action_toggle_failing(self) -> None:
        self.failing_only = not self.failing_only

    def _rebuild(self) -> None:
        if not self.columns:
            return  # not mounted yet; on_mount rebuilds
        keep = self.current_case_id
        self.clear()
        for record in ordered_records(self.records, self.sort_by, self.failing_only):
            change = self.changes.get(record.case_id)
            self.add_row(*cells(
                Text(record.case_id + (" *" if change else ""), style="bold" if case_fails(record) else ""),
                Text(record.status, style="" if record.status == "ok" else "bold red"),
                Text.assemble(Text(f"{record.recall:.2f}", style="red" if record.recall < 1 else ""),
                              _moved(change.recall_delta if change else None)),
                Text.assemble(Text(f"{record.precision:.2f}", style="red" if record.precision < 1 else ""),
                              _moved(change.precision_delta if change else None)),
                Text(str(record.fabrication), style="bold red" if record.fabrication else ""),
                Text("; ".join(record.missed_ids), style="red"),
                record.kind,
            ), key=record.case_id)
        if keep is not None:
            self.select_case(keep)
