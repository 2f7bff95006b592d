"""The run view: one stored run, read case by case.

A header with the means against the gate, the fabrications, the verdict
and each failing reason; the missed-ids panel; the case table (``s`` sorts,
``f`` shows failing cases only; ``enter`` reviews a case). ``R`` re-scores
the run from its stored outputs against the case set as it is now (after
fixing expectations in the author screen): no backend is called, and a
panel lists what changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from ...caseset.cases import Case, CaseFileError, load_case, load_case_set
from ...runs.manifest_fields import Summary
from ...runs.result_files import ResultsError
from ...runs.stored_runs import CaseDiff, Run, load_run, rescore_run, run_folder
from ...scoring.score import CaseScore
from ...caseset.snapshot import SnapshotError
from ..messages import CaseSetChecked, Rescored
from ..widgets.review.case_table import ReviewCaseTable, case_fails
from ..widgets.review.diff_table import CaseDiffTable
from ..widgets.review.missed_ids import MissedIdsPanel
from ..widgets.review.run_header import RunHeader
from .base import ReviewScreen
from .case_review import CaseResult, CaseReviewScreen
from .help import register_help


def _mean(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _count(value: Any) -> str:
    return "n/a" if value is None else str(value)


def rescore_summary(diffs: list[CaseDiff], before: Summary, after: Summary) -> str:
    """One line: how many cases changed and how the means and fabrications moved."""
    changed = sum(1 for d in diffs if d.changed)
    return (f"Re-scored from the stored outputs (no API call): {changed} of {len(diffs)} case"
            f"{'s' if len(diffs) != 1 else ''} changed · mean recall {_mean(before.get('mean_recall'))} → "
            f"{_mean(after.get('mean_recall'))} · mean precision {_mean(before.get('mean_precision'))} → "
            f"{_mean(after.get('mean_precision'))} · fabrications {_count(before.get('fabrications'))} → "
            f"{_count(after.get('fabrications'))}")


def case_result(run: Run, cases_dir: Path, case_id: str) -> CaseResult:
    """The stored output and score of a case, with the case as it is on disk now."""
    record = run.records[case_id]
    try:
        case: Case | None = load_case(cases_dir / case_id, with_snapshot=False)
    except (CaseFileError, SnapshotError, OSError):
        case = None
    output = record.outputs[0].to_dict() if record.outputs else {}
    score = record.scores[0] if record.scores else CaseScore(
        case_id, "error", 0.0, 0.0, 0, error="the result file holds no score; re-run or re-score the run")
    return CaseResult(case_id, score, output, case, repeats=record.runs)


def open_rows(app: Any, case: Case, pointers: list[str]) -> None:
    """Open the case in the author screen with these snapshot rows highlighted, the cursor on the first."""
    from .author import AuthorScreen

    app.open_case(case.case_id)
    if isinstance(app.screen, AuthorScreen):
        app.screen.show_rows(pointers)


def review_screen(run: Run, cases_dir: Path, case_id: str, **actions: Any) -> CaseReviewScreen:
    """The case review of one case of ``run``; ``n`` / ``p`` step through the run's failing cases."""
    records = sorted(run.records.values(), key=lambda r: r.case_id)
    return CaseReviewScreen([r.case_id for r in records if case_fails(r)], case_id,
                            lambda cid: case_result(run, cases_dir, cid), **actions)


class RunScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("R", "rescore", "Re-score"),
        Binding("escape", "app.pop_screen", "Back to runs"),
    ]
    DEFAULT_CSS = """
    RunScreen #run-stale { height: auto; padding: 0 1; color: $warning; display: none; }
    RunScreen #run-body { height: 1fr; }
    RunScreen #run-cases { width: 1fr; }
    RunScreen #run-table-title { height: 1; padding: 0 1; color: $text-muted; }
    RunScreen ReviewCaseTable { height: 1fr; }
    RunScreen #run-side { width: 48; max-width: 40%; }  /* a narrow terminal keeps room for the case table */
    RunScreen #run-changes { height: auto; max-height: 45%; border: round $warning; display: none; }
    RunScreen #run-changes.-shown { display: block; }
    RunScreen #run-changes-line { height: auto; padding: 0 1; }
    RunScreen CaseDiffTable { height: auto; max-height: 12; }
    """

    def __init__(self, run_dir: str | Path, cases_dir: str | Path) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)
        self.cases_dir = Path(cases_dir)
        self.run: Run = load_run(self.run_dir)  # ResultsError reaches the caller, which names the file
        self.changes: dict[str, CaseDiff] = {}

    @property
    def folder(self) -> str:
        """The run's folder under the results folder: what tells it from another run of its version."""
        return run_folder(self.run_dir, self.app.results_dir)

    def compose(self) -> ComposeResult:
        yield RunHeader(id="run-header")
        yield Static("", id="run-stale")
        with Horizontal(id="run-body"):
            with Vertical(id="run-cases"):
                yield Static("", id="run-table-title")
                yield ReviewCaseTable(id="run-table")
            with VerticalScroll(id="run-side"):
                yield MissedIdsPanel(id="run-missed")
        with Vertical(id="run-changes"):
            yield Static("", id="run-changes-line")
            yield CaseDiffTable(id="run-changes-table")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(ReviewCaseTable)
        self.watch(table, "sort_by", self._update_table_title, init=False)
        self.watch(table, "failing_only", self._update_table_title, init=False)
        self._show_run()
        table.focus()

    def on_screen_resume(self) -> None:
        self.check_case_set()  # the author screen may have changed expectations

    # -- showing ------------------------------------------------------------------------

    def _show_run(self) -> None:
        manifest = self.run.manifest
        self.query_one(RunHeader).show(manifest, self.folder)
        unscored = {r.case_id: r.status for r in sorted(self.run.records.values(), key=lambda r: r.case_id)
                    if r.status != "ok"}
        self.query_one(MissedIdsPanel).show(manifest.get("missed_by_kind") or {}, manifest.get("miss_pattern"),
                                            unscored)
        self.query_one(ReviewCaseTable).show(list(self.run.records.values()), self.changes)
        self._update_table_title()

    def _update_table_title(self) -> None:
        table = self.query_one(ReviewCaseTable)
        count = len(table.shown_case_ids)
        which = f"{count} failing case{'s' if count != 1 else ''}" if table.failing_only else f"all {count} cases"
        self.query_one("#run-table-title", Static).update(
            f"{which}, sorted by {table.sort_by} · enter reviews a case, s sorts, "
            "f shows failing cases only")

    @work(thread=True, exclusive=True, group="case-set-check")
    def check_case_set(self) -> None:
        try:
            digest = load_case_set(self.cases_dir, with_snapshots=False).digest()
        except OSError:
            digest = None
        self.post_message(CaseSetChecked(digest))

    def on_case_set_checked(self, message: CaseSetChecked) -> None:
        stored = self.run.manifest.get("case_set_hash")
        stale = bool(message.current_hash is not None and stored and message.current_hash != stored)
        self._show_stale(stale)

    def _show_stale(self, stale: bool) -> None:
        line = self.query_one("#run-stale", Static)
        line.update("The case set changed since this run was scored: R re-scores it from the stored outputs "
                    "(no API call)." if stale else "")
        line.display = stale

    # -- reviewing a case -----------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if isinstance(event.data_table, ReviewCaseTable):
            event.stop()
            self.review(str(event.row_key.value))

    def review(self, case_id: str) -> None:
        table = self.query_one(ReviewCaseTable)
        self.app.push_screen(CaseReviewScreen(table.failing_case_ids, case_id, self.case_result,
                                              open_rows=self.open_rows, edit_case=self.edit_case,
                                              rescore=self.action_rescore))

    def case_result(self, case_id: str) -> CaseResult:
        return case_result(self.run, self.cases_dir, case_id)

    def edit_case(self, case: Case) -> None:
        self.app.open_case(case.case_id)

    def open_rows(self, case: Case, pointers: list[str]) -> None:
        open_rows(self.app, case, pointers)

    # -- re-scoring -------------------------------------------------------------------------

    def action_rescore(self) -> None:
        self.notify(f"Re-scoring {self.folder} from the stored outputs…")
        self.rescore()

    @work(thread=True, exclusive=True, group="rescore")
    def rescore(self) -> None:
        case_set = load_case_set(self.cases_dir)
        if case_set.errors:
            first = case_set.errors[0]
            self.post_message(Rescored(None, f"The case set has {len(case_set.errors)} problem(s); fix them first "
                                             f"(reviewtui check lists them). First: {first}"))
            return
        try:
            diffs = rescore_run(self.run_dir, case_set)
        except ResultsError as exc:
            self.post_message(Rescored(None, str(exc)))
            return
        self.post_message(Rescored(diffs))

    def on_rescored(self, message: Rescored) -> None:
        if message.error is not None:
            self.notify(message.error, title="Not re-scored", severity="error", timeout=15)
            return
        diffs = message.diffs or []
        before: Summary = {**(self.run.manifest.get("summary") or {})}
        self.run = load_run(self.run_dir)
        self.changes = {d.case_id: d for d in diffs}
        self._show_run()
        line = rescore_summary(diffs, before, self.run.manifest.get("summary") or {})
        self.query_one("#run-changes-line", Static).update(Text(line, style="bold"))
        self.query_one(CaseDiffTable).show(diffs)
        self.query_one("#run-changes").add_class("-shown")
        self._show_stale(False)
        self.notify(line, title=f"{self.folder} re-scored", timeout=8)
        if isinstance(self.app.screen, CaseReviewScreen):
            self.app.screen.reload()


register_help("Run view", RunScreen)
register_help("Run view case table", ReviewCaseTable, also=[("enter", "Review the case")])
