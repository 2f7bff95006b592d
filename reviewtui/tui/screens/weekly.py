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

import asyncio
import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual import work
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ... import assistant
from ...backends import BackendUsageError, create_backend
from ...eval import UsageError
from ...runs.runner import redact_secrets
from ...caseset.snapshot import Snapshot, SnapshotError
from ...weekly.accounts import load_accounts
from ...weekly.cli import build_parser, claude_backend
from ...weekly.reports import index_row
from ...weekly.run import (HOLD, READY, WeeklyPaths, list_weekly, load_results, read_json, read_reviewed, run_weekly,
                           set_reviewed, today)
from ...weekly.stamp import check_stamp
from ..plain import cells, para, plain
from ...caseset.snapshot_sections import snapshot_sections
from ..widgets.review.finding_text import figure_line, highlight_figures
from ..widgets.snapshot_panel import SnapshotPanel
from .base import ReviewModalScreen, ReviewScreen
from .case_review import figure_pointers
from .help import KeysFooter, register_help

STATUS_STYLES = {READY: "bold green", HOLD: "bold white on red"}


def status_cell(status: str) -> Text:
    return plain(status, STATUS_STYLES.get(status, "bold yellow"))


class WeeklyScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("v", "toggle_reviewed", "Mark reviewed"),
        Binding("g", "gate", "Gate check"),
        Binding("r", "reload", "Reload"),
        Binding("q", "app.quit", "Quit"),
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
        self.results: dict[str, dict[str, Any]] = {}

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
        self.action_reload()
        accounts.focus()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.action_reload()

    def action_reload(self) -> None:
        self.runs = list_weekly(self.results_dir)
        table = self.query_one("#weekly-runs", DataTable)
        table.clear()
        for paths in self.runs:
            try:
                manifest = read_json(paths.manifest)
            except (OSError, json.JSONDecodeError):
                manifest = {}
            counts = manifest.get("counts") or {}
            stamp = manifest.get("stamp") or {}
            table.add_row(*cells(paths.run_dir.name, manifest.get("status") or "?",
                                 stamp.get("prompt_version") or "–", stamp.get("model") or "–",
                                 *(str(counts.get(s, 0)) for s in ("ready to send", "hold for review", "failed",
                                                                   "skipped", "not run"))),
                          key=paths.run_dir.name)
        header = Text.assemble(("Weekly runs", "bold"), f" in {self.results_dir / 'weekly'} · {len(self.runs)} · "
                               "enter opens an account's report, v marks it reviewed, g checks the gate")
        if not self.runs:
            header.append("\nNo weekly run yet. Press g to check the gate, then run `reviewtui weekly ACCOUNTS`.")
        self.query_one("#weekly-header", Static).update(header)
        keep = self.current.run_dir.name if self.current else None
        names = [p.run_dir.name for p in self.runs]
        self.show_run(self.runs[names.index(keep)] if keep in names else (self.runs[0] if self.runs else None))

    def show_run(self, paths: WeeklyPaths | None) -> None:
        self.current = paths
        self.results = load_results(paths) if paths is not None else {}
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
        check = check_stamp(self.results_dir, self.app.cases_dir,
                            model=assistant.DEFAULT_MODEL)
        self.app.push_screen(GateScreen(check.reasons, str(check.manifest_path)), lambda _: self.action_reload())


class GateScreen(ReviewModalScreen[None]):
    """The stamp check for a new weekly run: each reason it refuses, or a field for the accounts folder.

    When the check allows the run, enter on the folder starts it in a worker (the same run as
    ``reviewtui weekly``) and the weekly view shows it when it ends.
    """

    BINDINGS = [Binding("escape", "app.pop_screen", "Close")]
    DEFAULT_CSS = """
    GateScreen { align: center middle; }
    GateScreen #gate-box { width: 100; height: auto; max-height: 34; padding: 1 2; border: round $accent;
                           background: $surface; }
    GateScreen #gate-text, GateScreen #gate-status { height: auto; }
    GateScreen Input { margin-top: 1; }
    """

    def __init__(self, reasons: list[str], manifest: str) -> None:
        super().__init__()
        self.reasons = reasons
        self.manifest = manifest
        self.running = False

    def compose(self) -> ComposeResult:
        if self.reasons:
            text = Text.assemble((f"Refused: prompt version {assistant.PROMPT_VERSION} has not cleared the gate "
                                  "for the weekly run", "bold red"), "\n")
            for reason in self.reasons:
                text.append_text(para(f"\n• {reason}"))
            text.append("\n\nescape closes", style="dim")
        else:
            text = Text.assemble((f"Allowed: {self.manifest} is a complete Claude run of prompt version "
                                  f"{assistant.PROMPT_VERSION} that passed the gate", "bold green"),
                                 "\n\nThe accounts folder (<name>.json or <name>/snapshot.json each); enter starts "
                                 "the weekly run, escape closes.")
        with Vertical(id="gate-box"):
            yield Static(text, id="gate-text")
            if not self.reasons:
                yield Input(placeholder="accounts folder", id="gate-accounts")
            yield Static("", id="gate-status")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        folder = Path(event.value.strip() or ".")
        status = self.query_one("#gate-status", Static)
        if self.running:
            return
        if not folder.is_dir():
            status.update(plain(f"{folder} is not a folder of account snapshots", "bold red"))
            return
        accounts = load_accounts(folder)
        if not accounts:
            status.update(plain(f"no account snapshots in {folder}", "bold red"))
            return
        self.running = True
        status.update(f"running {len(accounts)} account(s)…")
        self.run_weekly(accounts)

    @work(thread=True, exclusive=True, group="weekly")
    def run_weekly(self, accounts: list[Any]) -> None:
        app = self.app
        results_dir = Path(app.results_dir)
        try:
            backend = default_weekly_backend(results_dir)
            reference = create_backend("rules")
        except (UsageError, BackendUsageError) as exc:
            app.call_from_thread(self._ended, str(exc))
            return
        check = check_stamp(results_dir, app.cases_dir, model=assistant.DEFAULT_MODEL)
        if not check.allowed:  # the stamp changed since the screen opened
            app.call_from_thread(self._ended, "refused: " + "; ".join(check.reasons))
            return

        async def go() -> Any:
            try:
                return await run_weekly(accounts, backend, reference, paths=WeeklyPaths.for_date(results_dir, today()),
                                        stamp=check.stamp(), figures=check.stamp().get("figures") or "derived",
                                        on_account=lambda r: app.call_from_thread(self._landed, r))
            finally:
                await backend.aclose()
                await reference.aclose()

        try:
            run = asyncio.run(go())
        except Exception as exc:  # noqa: BLE001 - a bug must end the run visibly, not kill the app
            app.call_from_thread(self._ended, redact_secrets(f"the weekly run failed: {type(exc).__name__}: {exc}"))
            return
        app.call_from_thread(self._ended, None, run.paths.run_dir)

    def _landed(self, result: dict[str, Any]) -> None:
        self.query_one("#gate-status", Static).update(plain(f"{result['account']}: {result['status']}"))

    def _ended(self, problem: str | None, run_dir: Path | None = None) -> None:
        self.running = False
        if problem:
            self.query_one("#gate-status", Static).update(para(problem, "bold red"))
            return
        self.app.notify(f"weekly run written to {run_dir}")
        self.dismiss(None)


def default_weekly_backend(results_dir: Path) -> Any:
    """The Claude backend as ``reviewtui weekly`` builds it with its defaults."""
    return claude_backend(build_parser().parse_args(["ACCOUNTS", "--results-dir", str(results_dir)]))


class AccountReportScreen(ReviewScreen[None]):
    """One account's report: findings with figures marked, the holds, the second opinion."""

    BINDINGS = [
        Binding("v", "toggle_reviewed", "Mark reviewed"),
        Binding("escape", "app.pop_screen", "Back"),
    ]
    DEFAULT_CSS = """
    AccountReportScreen #account-title { height: auto; padding: 0 1; background: $boost; }
    AccountReportScreen OptionList { height: 1fr; border: round $secondary; }
    """

    def __init__(self, paths: WeeklyPaths, result: dict[str, Any]) -> None:
        super().__init__()
        self.paths = paths
        self.result = result
        self._pointers: dict[str, list[str]] = {}
        self._figures: dict[str, dict[str, Any]] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="account-title")
        yield OptionList(id="account-report")
        yield Footer()

    def on_mount(self) -> None:
        self._show_title()
        self.query_one(OptionList).add_options(self._options())
        self.query_one(OptionList).focus()

    def _show_title(self) -> None:
        r = self.result
        reviewed = self.result["account"] in read_reviewed(self.paths)
        self.query_one("#account-title", Static).update(Text.assemble(
            plain(r.get("display_name") or r["account"], "bold"), plain(f"  {r.get('account_id') or ''}  "),
            status_cell(r["status"]), "  ", plain(r.get("period") or "", "dim"), "  ",
            ("✓ reviewed" if reviewed else "not reviewed yet (v marks it)", "green" if reviewed else "dim")))

    def _options(self) -> list[Option | None]:
        r = self.result
        options: list[Option | None] = []
        if r["status"] == HOLD:
            options.append(Option(Text(f"HOLD FOR REVIEW: {len(r['ungrounded'])} figure(s) not found in the "
                                       "account's data", style="bold white on red"), disabled=True))
        elif r["status"] != READY:
            options.append(Option(para(f"{r['status']}: {r.get('reason')}", "bold yellow"), disabled=True))
        for i, finding in enumerate(r.get("findings") or []):
            options.append(None)
            head = Text.assemble((f"#{i + 1} ", "bold"), plain(finding.get("full_id") or finding["id"], "bold"),
                                 plain(f"  · {finding.get('severity', '')}", "dim"))
            for field in ("claim", "evidence"):
                text = str(finding.get(field) or "")
                if text:
                    head.append(f"\n  {field}: ", style="dim")
                    head.append_text(highlight_figures(text, [f for f in finding["figures"] if f["field"] == field]))
            options.append(Option(head, id=f"finding:{i}", disabled=True))
            for j, figure in enumerate(finding["figures"]):
                option_id = f"figure:{i}:{j}"
                self._figures[option_id] = figure
                self._pointers[option_id] = figure_pointers(figure) if figure.get("grounded") else []
                options.append(Option(figure_line(figure), id=option_id))
        opinion = r.get("second_opinion") or {}
        options.append(None)
        options.append(Option(Text("Second opinion: the reference auditor", style="bold underline"), disabled=True))
        if opinion.get("error") or not opinion:
            options.append(Option(para(f"none: {opinion.get('error') or 'not run'}", "dim"), disabled=True))
        else:
            for label, items in (("the auditor finds, the assistant does not say", opinion.get("auditor_only")),
                                 ("the assistant says, the auditor does not support", opinion.get("assistant_only"))):
                options.append(Option(Text(label + ":", style="bold"), disabled=True))
                for item in items or []:
                    scope = f" (campaign {item['scope']})" if item.get("scope") else ""
                    options.append(Option(para(f"  {item['id']}{scope}: {item.get('claim') or ''}"), disabled=True))
                if not items:
                    options.append(Option(Text("  nothing", style="dim"), disabled=True))
        return options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        figure = self._figures.get(option_id)
        if figure is None:
            return
        pointers = self._pointers.get(option_id) or []
        if not pointers:
            self.notify("not found in the account's data: no rows to show" if not figure.get("grounded")
                        else f"no snapshot rows behind this figure ({figure.get('reason')})", severity="warning")
            return
        try:
            snapshot = Snapshot.load(self.result["snapshot"])
        except SnapshotError as exc:
            self.notify(str(exc), title="Cannot open the account's snapshot", severity="error", timeout=10)
            return
        self.app.push_screen(AccountRowsScreen(snapshot, pointers, title=f"{self.result['account']}: "
                                               f"rows behind {figure.get('text')}"))

    def action_toggle_reviewed(self) -> None:
        name = self.result["account"]
        set_reviewed(self.paths, name, name not in read_reviewed(self.paths))
        self._show_title()


class AccountRowsScreen(ReviewScreen[None]):
    """An account's snapshot with the rows behind a figure highlighted, the cursor on the first."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    AccountRowsScreen #rows-title { height: auto; padding: 0 1; background: $boost; }
    """

    def __init__(self, snapshot: Snapshot, pointers: list[str], *, title: str) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.pointers = pointers
        self.title_text = title
        self.tables = snapshot_sections(snapshot.data)

    def compose(self) -> ComposeResult:
        yield Static(plain(self.title_text, "bold"), id="rows-title")
        campaigns = {cid: str(c.get("name") or "") for cid, c in sorted(self.snapshot.campaigns.items())}
        yield SnapshotPanel(self.tables, campaigns, id="snapshot")
        yield Footer()

    def on_mount(self) -> None:
        panel = self.query_one(SnapshotPanel)
        panel.set_highlights(self.pointers)
        panel.jump_to(self.pointers[0], focus=True)


register_help("Weekly view", WeeklyScreen)
register_help("Account report", AccountReportScreen)
