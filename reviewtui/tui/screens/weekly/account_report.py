"""One account's report of a weekly run: the findings with every figure marked grounded or not in the
data, the holds, and the reference auditor's second opinion; ``enter`` on a grounded figure opens the
rows behind it, ``v`` marks the account reviewed.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ....caseset.snapshot import Snapshot, SnapshotError
from ....weekly.results import HOLD, READY, AccountResult
from ....weekly.folder import WeeklyPaths
from ....weekly.run import read_reviewed, set_reviewed
from ...plain import para, plain
from ...widgets.review.finding_text import figure_line, highlight_figures
from ..base import ReviewScreen
from ..case_review import figure_pointers
from .account_rows import AccountRowsScreen
from .status import status_cell


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

    def __init__(self, paths: WeeklyPaths, result: AccountResult) -> None:
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
            options.append(Option(Text("HOLD FOR REVIEW", style="bold white on red"), disabled=True))
            holds = r.get("holds") or [f"{len(r['ungrounded'])} figure(s) not found in the account's data"]
            options += [Option(para(f"  {reason}", "bold red"), disabled=True) for reason in holds]
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
        opinion = r["second_opinion"]
        options.append(None)
        options.append(Option(Text("Second opinion: the reference auditor", style="bold underline"), disabled=True))
        if opinion is None or opinion["error"]:
            options.append(Option(para(f"none: {(opinion['error'] if opinion else None) or 'not run'}", "dim"), disabled=True))
        else:
            items: Sequence[Mapping[str, Any]]
            for label, items in (("the auditor finds, the assistant does not say", opinion["auditor_only"]),
                                 ("the assistant says, the auditor does not support", opinion["assistant_only"])):
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
