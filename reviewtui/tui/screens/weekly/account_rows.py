"""An account's snapshot with the rows behind a figure highlighted (``enter`` on a figure of an account report)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from ....caseset.snapshot import Snapshot
from ...plain import plain
from ....authoring.snapshot_sections import snapshot_sections
from ...widgets.snapshot_panel import SnapshotPanel
from ..base import ReviewScreen


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
