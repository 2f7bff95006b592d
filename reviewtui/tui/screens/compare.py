"""Compare two runs of the same cases (say two prompt versions), case by case.

A header with the two runs and how the means and fabrications moved, the
paired interval of the recall delta with the sign test, the per-kind McNemar
tests (``reviewtui compare`` computes the same), a warning when the runs were
scored against different case sets, and the
per-case table: recall and precision before → after with deltas, ids newly
missed and newly found, fabrications added and removed. ``a`` shows every
case instead of only the changed ones.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from ...runs.compare import PairedComparison, interval_line, kinds_line, paired_comparison
from ...runs.result_files import ResultsError
from ...runs.stored_runs import RunInfo, load_run, run_folder
from ..plain import safe
from ..widgets.review.diff_table import CaseDiffTable
from .base import ReviewScreen
from .help import register_help
from .run_review import open_rows, review_screen


def _run_label(info: RunInfo, results_dir: Path) -> str:
    return f"{run_folder(info.run_dir, results_dir)} ({info.model or info.backend or '?'}, {(info.date or '')[:16].replace('T', ' ')})"


def _signed(value: float | None) -> Text:
    if value is None:
        return Text("n/a", style="dim")
    return Text(f"{value:+.3f}", style="bold green" if value > 0 else "bold red" if value < 0 else "")


def comparison_header(paired: PairedComparison, results_dir: Path) -> Text:
    comparison = paired.comparison
    a, b = comparison.before, comparison.after
    text = Text.assemble(("Compare ", "bold"), (_run_label(a, results_dir), "bold"), "  →  ",
                         (_run_label(b, results_dir), "bold"), "\n")
    text.append_text(Text.assemble(
        "mean recall ", _signed(comparison.mean_recall_delta),
        "   mean precision ", _signed(comparison.mean_precision_delta),
        f"   fabrications {a.fabrications} → {b.fabrications}",
        f"   {len(comparison.changed)} of {len(comparison.cases)} cases changed",
    ))
    text.append("\n" + interval_line(paired))
    text.append("\n" + kinds_line(paired))
    if paired.regression:
        text.append("\nregression: " + "; ".join(paired.regression), style="bold red")
    if a.case_set_hash != b.case_set_hash:
        text.append("\nThe two runs were scored against different case sets: some deltas may come from edited "
                    "expectations, not from the prompt. Re-score the older run (R in its run view) to compare "
                    "like with like.", style="yellow")
    return text


class CompareScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("enter", "review('after')", "Review (after)"),
        Binding("b", "review('before')", "Review (before)"),
        Binding("escape", "app.pop_screen", "Back"),
    ]
    DEFAULT_CSS = """
    CompareScreen #compare-header { height: auto; padding: 0 1; border-bottom: solid $secondary; }
    CompareScreen CaseDiffTable { height: 1fr; }
    CompareScreen #compare-hint { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, before_dir: str | Path, after_dir: str | Path) -> None:
        super().__init__()
        # The same paired figures as `reviewtui compare`; ResultsError reaches the caller.
        self.paired = paired_comparison(load_run(before_dir), load_run(after_dir))
        self.comparison = self.paired.comparison

    def compose(self) -> ComposeResult:
        yield Static(safe(comparison_header(self.paired, Path(self.app.results_dir))), id="compare-header")
        yield Static("", id="compare-hint")
        yield CaseDiffTable(id="compare-table")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(CaseDiffTable)
        table.show(self.comparison.cases)
        self.watch(table, "changed_only", self._update_hint)
        table.focus()

    def _update_hint(self, changed_only: bool) -> None:
        shown = len(self.query_one(CaseDiffTable).shown)
        which = "changed cases" if changed_only else "all cases"
        self.query_one("#compare-hint", Static).update(
            f"{shown} {which} (a toggles all / changed) · enter reviews the case in the after run, b in the before run")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_review("after")

    def action_review(self, which: str) -> None:
        """Open the case review of the case under the cursor, in the before or the after run."""
        table = self.query_one(CaseDiffTable)
        if not table.row_count:
            return
        case_id = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        info = self.comparison.before if which == "before" else self.comparison.after
        try:
            run = load_run(info.run_dir)
        except ResultsError as exc:
            self.notify(str(exc), title=f"Cannot open the {which} run", severity="error", timeout=15)
            return
        if case_id not in run.records:
            self.notify(f"{case_id} is not in the {which} run ({run_folder(info.run_dir, self.app.results_dir)})",
                        severity="warning")
            return
        cases_dir = Path(self.app.cases_dir)
        self.app.push_screen(review_screen(run, cases_dir, case_id,
                                           open_rows=lambda case, pointers: open_rows(self.app, case, pointers),
                                           edit_case=lambda case: self.app.open_case(case.case_id)))
        self.notify(f"{case_id} as the {which} run ({run_folder(info.run_dir, self.app.results_dir)}) scored it")


register_help("Compare view", CompareScreen)
register_help("Compare table", CaseDiffTable)
