"""The weekly view (the app's "weekly" mode, f4): the weekly runs and their accounts.

Top, every ``results/weekly/<date>/`` run, newest first, with its counts.
Below, the accounts of the selected run: status (ready to send, hold for
review, failed, skipped, not run), findings, figures and those not in the
data, the reference auditor's disagreements, and whether a reviewer marked
it reviewed. ``enter`` on an account opens its report; ``v`` marks it
reviewed (or unmarks it), saved in the run's ``reviewed.json``; ``g`` checks
the stamp for a new weekly run and shows the reasons when it refuses, or,
when it allows it, asks for the accounts folder and starts the run.

The account report shows the findings with every figure marked grounded or
not in the data, as the case review does; ``enter`` on a grounded figure
opens the account's snapshot with the rows behind it highlighted. It ends
with the reference auditor's second opinion.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from .... import assistant
from ....weekly.reports import index_row
from ....runs.result_files import ResultsError
from ....weekly.results import AccountResult, WeeklyManifest, read_weekly_manifest
from ....weekly.folder import WeeklyPaths
from ....weekly.run import list_weekly, load_results, read_reviewed, set_reviewed
from ....weekly.stamp import check_stamp_as_configured
from ...plain import cells, plain
from ..base import ReviewScreen
from ..help import KeysFooter, register_help
from .account_report import AccountReportScreen
from .gate import GateScreen
from .status import status_cell


class WeeklyScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("v", "toggle_reviewed", "Mark reviewed"),
        Binding("g", "gate", "Gate check"),
        Binding("r", "reload", "Reload"),
        Binding("q", "app.quit", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    WeeklyScreen #weekly-header { height: auto; padding: 0 1; background: $panel; }
    WeeklyScreen #weekly-runs { height: 8; }
    WeeklyScreen #weekly-accounts { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[WeeklyPaths] = []
        self.current: WeeklyPaths | None = None
        self.results: dict[str, AccountResult] = {}
        self._told: set[str] = set()  # the unreadable files already named since the view opened or r was pressed

    @property
    def results_dir(self) -> Path:
        return Path(self.app.results_dir)

    def compose(self) -> ComposeResult:
        yield Static("", id="weekly-header")
        yield DataTable(id="weekly-runs", cursor_type="row")
        yield DataTable(id="weekly-accounts", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        runs = self.query_one("#weekly-runs", DataTable)
        for label in ("date", "status", "prompt", "model", "ready", "on hold", "failed", "skipped", "not run"):
            runs.add_column(label, key=label)
        accounts = self.query_one("#weekly-accounts", DataTable)
        for label in ("account", "status", "findings", "high", "figures", "not in data", "auditor only",
                      "assistant only", "reviewed", "reason"):
            accounts.add_column(label, key=label)
        self.reload()
        accounts.focus()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.reload()

    def action_reload(self) -> None:
        self._told.clear()
        self.reload()

    def _tell(self, problem: str, title: str) -> None:
        # mount, resume and the runs table's highlight each reload: a file stays named once, not a pile of toasts
        if problem not in self._told:
            self._told.add(problem)
            self.app.notify(problem, title=title, severity="warning", timeout=15)

    def reload(self) -> None:
        self.runs = list_weekly(self.results_dir)
        table = self.query_one("#weekly-runs", DataTable)
        table.clear()
        for paths in self.runs:
            try:
                manifest = read_weekly_manifest(paths.manifest)
            except (OSError, ResultsError) as exc:
                self._tell(str(exc), "Weekly run not readable")
                manifest = WeeklyManifest()
            counts = manifest.get("counts")  # absent (a hand edit, an unreadable record): '?', never a made-up 0
            stamp = manifest.get("stamp") or {}
            table.add_row(*cells(paths.run_dir.name, manifest.get("status") or "?",
                                 stamp.get("prompt_version") or "–", stamp.get("model") or "–",
                                 *(str(counts.get(s, 0)) if counts is not None else "?"
                                   for s in ("ready to send", "hold for review", "failed", "skipped", "not run"))),
                          key=paths.run_dir.name)
        header = Text.assemble(("Weekly runs", "bold"), f" in {self.results_dir / 'weekly'} · {len(self.runs)} · "
                               "enter opens an account's report, v marks it reviewed, g checks the gate")
        if not self.runs:
            header.append("\nNo weekly run yet. Press g: it checks the gate and, when the gate allows it, runs the "
                          "accounts folder you name.")
        self.query_one("#weekly-header", Static).update(header)
        keep = self.current.run_dir.name if self.current else None
        names = [p.run_dir.name for p in self.runs]
        self.show_run(self.runs[names.index(keep)] if keep in names else (self.runs[0] if self.runs else None))

    def show_run(self, paths: WeeklyPaths | None) -> None:
        self.current = paths
        problems: list[str] = []
        self.results = load_results(paths, problems) if paths is not None else {}
        for problem in problems:  # the account is left out of the table; the file and the field are named
            self._tell(problem, "Account not readable")
        self._fill_accounts()

    def _fill_accounts(self) -> None:
        table = self.query_one("#weekly-accounts", DataTable)
        keep = self.current_account
        table.clear()
        reviewed = read_reviewed(self.current) if self.current is not None else {}
        for name, result in self.results.items():
            row = index_row(result)
            table.add_row(*cells(
                plain(name, "bold"), status_cell(row["status"]), row["findings"], row["high"], row["figures"],
                plain(row["ungrounded"], "bold red" if row["ungrounded"] != "0" else ""),
                row["auditor_only"], row["assistant_only"],
                plain("✓ " + reviewed[name][:16].replace("T", " "), "green") if name in reviewed else "",
                row["reason"]), key=name)
        names = list(self.results)
        if keep in names:
            table.move_cursor(row=names.index(keep))

    @property
    def current_account(self) -> str | None:
        table = self.query_one("#weekly-accounts", DataTable)
        if not self.results or not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "weekly-runs" and event.row_key is not None:
            chosen = next((p for p in self.runs if p.run_dir.name == event.row_key.value), None)
            if chosen is not None and chosen != self.current:
                self.show_run(chosen)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id == "weekly-accounts" and self.current is not None:
            self.app.push_screen(AccountReportScreen(self.current, self.results[str(event.row_key.value)]))
        elif event.data_table.id == "weekly-runs":
            self.query_one("#weekly-accounts", DataTable).focus()

    def action_toggle_reviewed(self) -> None:
        name = self.current_account
        if self.current is None or name is None:
            self.notify("No account here to mark", severity="warning")
            return
        marks = set_reviewed(self.current, name, name not in read_reviewed(self.current))
        self.notify(f"{name}: {'marked reviewed' if name in marks else 'no longer marked reviewed'}")
        self._fill_accounts()

    def action_gate(self) -> None:
        """The stamp check (it scores the stamp's answers again: a second or so) off the UI thread, then its screen."""
        self.notify("checking the stamp of the current prompt version…")
        self._check_gate()

    @work(thread=True, exclusive=True, group="weekly-gate")
    def _check_gate(self) -> None:
        check = check_stamp_as_configured(self.results_dir, self.app.cases_dir, model=assistant.DEFAULT_MODEL)
        self.app.call_from_thread(self.app.push_screen, GateScreen(check.reasons, str(check.manifest_path)),
                                  lambda _: self.action_reload())


register_help("Weekly view", WeeklyScreen, also=[("enter", "Open the account's report")])
register_help("Account report", AccountReportScreen)
