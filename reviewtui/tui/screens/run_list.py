"""The runs view (the app's "runs" mode): every run under the results folder, newest first.

Each row is one run folder: the assistant's ``results/<prompt_version>/``,
or the reference auditor's and replays' own folders (``identity.py``),
whose backend cell says so. Columns: prompt version, folder (which tells two
runs of one version apart), gate verdict, mean recall and precision,
fabrications, cases, date, backend, model, case-set hash. ``enter`` opens a
run, ``n`` starts a new run (or resumes an unfinished one), ``space`` marks a
run and ``c`` compares the marked run with the one under the cursor.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from ...runs.identity import REFERENCE
from ...runs.result_files import ResultsError
from ...runs.stored_runs import RunInfo, list_runs, run_key
from ..plain import cells, para
from ..widgets.row_table import RowTable
from .base import ReviewScreen
from .compare import CompareScreen
from .help import KeysFooter, register_help
from .new_run import NewRunScreen
from .run_review import RunScreen


def verdict_cell(info: RunInfo) -> Text:
    if info.passed is True:
        return Text("PASS", style="bold green")
    if info.passed is False:
        return Text("FAIL", style="bold red")
    return Text(f"no verdict ({info.status or '?'})", style="yellow")


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def backend_cell(info: RunInfo) -> str:
    """The backend, and whose results these are when they are not the assistant's."""
    name = info.backend or "–"
    return f"{name} · reference auditor" if info.role == REFERENCE else name


def short_date(iso: str | None) -> str:
    """``2025-03-20T09:00:42+00:00`` -> ``2025-03-20 09:00`` (the run's own clock, as recorded)."""
    return (iso or "")[:16].replace("T", " ")


COLUMNS = (("", "mark"), ("prompt version", "version"), ("folder", "folder"), ("verdict", "verdict"),
           ("recall", "recall"), ("precision", "precision"), ("fab", "fab"), ("cases", "cases"), ("date", "date"),
           ("backend", "backend"), ("model", "model"), ("case set", "hash"))


class RunsScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("n", "new_run", "New run"),
        # Short footer labels (the help shows the tooltips) so the view keys fit 80 columns.
        Binding("space", "mark", "Mark", tooltip="Mark for compare"),
        Binding("c", "compare", "Compare", tooltip="Compare with the marked run"),
        Binding("r", "reload", "Reload"),
        Binding("q", "app.quit", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    RunsScreen #runs-header { height: auto; padding: 0 1; background: $panel; }
    RunsScreen DataTable { height: 1fr; }
    RunsScreen #runs-empty { height: auto; padding: 1 2; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[RunInfo] = []
        self.marked: str | None = None  # run folder name marked for compare

    @property
    def results_dir(self) -> Path:
        return Path(self.app.results_dir)

    @property
    def cases_dir(self) -> Path:
        return Path(self.app.cases_dir)

    def compose(self) -> ComposeResult:
        yield Static("", id="runs-header")
        yield Static("", id="runs-empty")
        yield RowTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # The verdict and the means before the details, so an 80-column terminal shows them.
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.action_reload()
        table.focus()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.action_reload()  # a run may have finished or been re-scored meanwhile

    def action_reload(self) -> None:
        skipped: list[str] = []
        self.runs = list_runs(self.results_dir, skipped)
        table = self.query_one(DataTable)
        keep = run_key(self.current_run, self.results_dir) if self.current_run else None
        table.clear()
        for info in self.runs:
            name = run_key(info, self.results_dir)
            table.add_row(*cells(
                Text("●", style="bold cyan") if name == self.marked else "",
                Text(info.prompt_version, style="bold"),
                name,
                verdict_cell(info),
                _ratio(info.mean_recall),
                _ratio(info.mean_precision),
                Text(str(info.fabrications if info.fabrications is not None else "–"),
                     style="bold red" if info.fabrications else ""),
                str(info.cases if info.cases is not None else "–"),
                short_date(info.date),
                backend_cell(info),
                info.model or "–",
                (info.case_set_hash or "")[:8],
            ), key=name)
        names = [run_key(info, self.results_dir) for info in self.runs]
        if keep in names:
            table.move_cursor(row=names.index(keep))
        self.query_one("#runs-header", Static).update(Text.assemble(
            ("Runs", "bold"), f" in {self.results_dir} · {len(self.runs)} run{'s' if len(self.runs) != 1 else ''}"
            " · newest first · enter opens, n starts a new run, space marks and c compares"))
        lines = [] if self.runs else [f"No runs under {self.results_dir} yet. Press n to start one."]
        lines += [f"Not listed: {problem}" for problem in skipped]
        self.query_one("#runs-empty", Static).update(para("\n".join(lines)))
        self.query_one("#runs-empty").display = bool(lines)

    @property
    def current_run(self) -> RunInfo | None:
        table = self.query_one(DataTable)
        if not self.runs or not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((info for info in self.runs if run_key(info, self.results_dir) == key), None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_run(str(event.row_key.value))

    def open_run(self, name: str) -> None:
        try:
            screen = RunScreen(self.results_dir / name, self.cases_dir)
        except ResultsError as exc:
            self.notify(str(exc), title=f"Cannot open run {name}", severity="error", timeout=15)
            return
        self.app.push_screen(screen)

    def action_new_run(self) -> None:
        self.app.push_screen(NewRunScreen(self.cases_dir, self.results_dir))

    def action_mark(self) -> None:
        current = self.current_run
        if current is None:
            return
        name = run_key(current, self.results_dir)
        self.marked = None if self.marked == name else name
        self.action_reload()

    def action_compare(self) -> None:
        current = self.current_run
        marked = next((info for info in self.runs if run_key(info, self.results_dir) == self.marked), None)
        if current is None or marked is None or marked is current:
            self.notify("Mark one run with space, move to another and press c", severity="warning")
            return
        self.compare(run_key(marked, self.results_dir), run_key(current, self.results_dir))

    def compare(self, first: str, second: str) -> None:
        """Open the compare view of two runs (by ``run_key``); the older one is "before"."""
        runs = {run_key(info, self.results_dir): info for info in list_runs(self.results_dir)}
        missing = [name for name in (first, second) if name not in runs]
        if missing:
            self.notify(f"No run {missing[0]} under {self.results_dir}", title="Cannot compare", severity="error", timeout=10)
            return
        before, after = sorted((runs[first], runs[second]), key=lambda info: info.date or "")
        try:
            screen = CompareScreen(before.run_dir, after.run_dir)
        except ResultsError as exc:
            self.notify(str(exc), title="Cannot compare", severity="error", timeout=15)
            return
        self.app.push_screen(screen)


register_help("Runs view", RunsScreen, also=[("enter", "Open the run")])
