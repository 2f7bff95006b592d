"""The stamp check for a new weekly run (``g`` in the weekly view): the reasons it refuses, or the accounts
folder to run, and the run itself in a worker, the same run as ``reviewtui weekly``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual import work
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .... import assistant
from ....backends import BackendUsageError, create_backend
from ....runs.runner import redact_secrets
from ....runs.settings import RunSettings, UsageError
from ....weekly.accounts import load_accounts, name_clashes
from ....weekly.results import AccountResult
from ....weekly.folder import WeeklyPaths
from ....weekly.run import claude_backend, run_weekly, today
from ....weekly.stamp import check_stamp_as_configured
from ...plain import para, plain
from ..base import ReviewModalScreen


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
            # The reasons are the command line's (they name `reviewtui eval`); here the same run is a form away.
            text.append("\n\nIn the app, a Claude run of the cases is f3, n, backend claude. escape closes", style="dim")
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
        clashes = name_clashes(accounts)
        if clashes:
            status.update(para("; ".join(clashes) + ". Nothing was run.", "bold red"))
            return
        self.running = True
        status.update(f"running {len(accounts)} account(s)…")
        self.run_weekly(accounts, folder)

    @work(thread=True, exclusive=True, group="weekly")
    def run_weekly(self, accounts: list[Any], folder: Path) -> None:
        app = self.app
        results_dir = Path(app.results_dir)
        try:
            backend = default_weekly_backend(results_dir)
            reference = create_backend("rules")
        except (UsageError, BackendUsageError) as exc:
            app.call_from_thread(self._ended, str(exc))
            return
        check = check_stamp_as_configured(results_dir, app.cases_dir, model=assistant.DEFAULT_MODEL)
        if not check.allowed:  # the stamp changed since the screen opened
            app.call_from_thread(self._ended, "refused: " + "; ".join(check.reasons))
            return

        async def go() -> Any:
            try:
                return await run_weekly(accounts, backend, reference,
                                        paths=WeeklyPaths.choose(results_dir, today(), folder),
                                        stamp=check.stamp(), figures=check.stamp().get("figures") or "derived",
                                        on_account=lambda r: app.call_from_thread(self._landed, r),
                                        accounts_dir=folder)
            finally:
                await backend.aclose()
                await reference.aclose()

        try:
            run = asyncio.run(go())
        except Exception as exc:  # noqa: BLE001 - a bug must end the run visibly, not kill the app
            app.call_from_thread(self._ended, redact_secrets(f"the weekly run failed: {type(exc).__name__}: {exc}"))
            return
        app.call_from_thread(self._ended, None, run.paths.run_dir)

    def _landed(self, result: AccountResult) -> None:
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
    return claude_backend(RunSettings(backend="claude", results_dir=results_dir))
