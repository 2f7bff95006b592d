"""The snapshot region of the author screen: filters, one tab per section, a status line.

Marked rows (``space``) and highlighted rows (the selected expectation's) are
pointer sets shared by every tab, so rows from ``daily`` and ``campaigns``
can be marked together for one tag.
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static, TabbedContent, TabPane

from ..snapshot_sections import SectionTable, locate, section_title
from .virtual_table import VirtualTable

DATE_PREFIX = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


def pointer_order(tables: list[SectionTable], pointers: set[str]) -> list[str]:
    """Pointers in tab order, then row order (unknown pointers last, as given)."""

    def key(pointer: str) -> tuple[int, int, str]:
        where = locate(tables, pointer)
        return (where[0], where[1], pointer) if where else (len(tables), 0, pointer)

    return sorted(pointers, key=key)


class SnapshotPanel(Vertical):
    BINDINGS = [
        Binding("f", "focus_filter", "Filter"),
        Binding("[", "tab(-1)", "Prev tab", show=False),
        Binding("]", "tab(1)", "Next tab", show=False),
    ]

    class MarksChanged(Message):
        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    def __init__(self, tables: list[SectionTable], campaigns: dict[str, str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tables = tables
        self.campaigns = campaigns
        self.marks: set[str] = set()
        self.highlights: set[str] = set()

    def compose(self) -> ComposeResult:
        with Horizontal(id="snapshot-filters"):
            yield Select(
                [(f"{cid}  {name}" if name else cid, cid) for cid, name in self.campaigns.items()],
                prompt="all campaigns",
                id="filter-campaign",
            )
            yield Input(placeholder="from YYYY-MM-DD", id="filter-from", restrict=r"[0-9-]*", max_length=10)
            yield Input(placeholder="to YYYY-MM-DD", id="filter-to", restrict=r"[0-9-]*", max_length=10)
        with TabbedContent(id="snapshot-tabs"):
            for position, table in enumerate(self.tables):
                with TabPane(f"{section_title(table)} ({len(table):,})", id=f"section-{position}"):
                    yield VirtualTable(table, self.marks, self.highlights, id=f"table-{position}")
        yield Static("", id="snapshot-status")

    def on_mount(self) -> None:
        self._update_status()

    # -- queries ------------------------------------------------------------------

    def table_widgets(self) -> list[VirtualTable]:
        return list(self.query(VirtualTable))

    @property
    def active_table(self) -> VirtualTable | None:
        active = self.query_one(TabbedContent).active
        if not active:
            return None
        position = int(active.split("-")[1])
        return self.query_one(f"#table-{position}", VirtualTable)

    def marked_rows(self) -> list[str]:
        return pointer_order(self.tables, self.marks)

    # -- commands -----------------------------------------------------------------

    def jump_to(self, pointer: str, *, focus: bool = False) -> bool:
        """Show the tab holding ``pointer`` with the cursor on its row."""
        where = locate(self.tables, pointer)
        if where is None:
            return False
        position, index = where
        self.query_one(TabbedContent).active = f"section-{position}"
        table = self.query_one(f"#table-{position}", VirtualTable)
        table.go_to_index(index)
        if focus:
            table.focus()
        return True

    def set_highlights(self, pointers: list[str]) -> None:
        self.highlights.clear()
        self.highlights.update(pointers)
        for table in self.table_widgets():
            table.refresh()
        if pointers:
            self.jump_to(pointers[0])

    def clear_marks(self) -> None:
        self.marks.clear()
        for table in self.table_widgets():
            table.refresh()
        self._update_status()

    def set_marks(self, pointers: list[str]) -> None:
        self.marks.clear()
        self.marks.update(pointers)
        for table in self.table_widgets():
            table.refresh()
        self._update_status()

    def action_focus_filter(self) -> None:
        self.query_one("#filter-campaign", Select).focus()

    def action_tab(self, delta: int) -> None:
        tabs = self.query_one(TabbedContent)
        position = int((tabs.active or "section-0").split("-")[1])
        tabs.active = f"section-{(position + delta) % len(self.tables)}"
        if self.active_table is not None:
            self.active_table.focus()

    # -- events -------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        self._apply_filters()

    def on_input_changed(self, event: Input.Changed) -> None:
        value = event.value
        event.input.set_class(bool(value) and not DATE_PREFIX.match(value), "-invalid")
        self._apply_filters()

    def _apply_filters(self) -> None:
        campaign = self.query_one("#filter-campaign", Select).value
        date_from = self.query_one("#filter-from", Input).value
        date_to = self.query_one("#filter-to", Input).value
        filters = {
            "campaign": campaign if isinstance(campaign, str) else None,
            "date_from": date_from if DATE_PREFIX.match(date_from) else None,
            # "2025-03" as an upper bound means the whole of March.
            "date_to": (date_to + "\uffff") if DATE_PREFIX.match(date_to) else None,
        }
        for table in self.table_widgets():
            table.apply_view(**filters)
        self._update_status()

    def on_virtual_table_cursor_moved(self, event: VirtualTable.CursorMoved) -> None:
        if event.table is self.active_table:
            self._update_status()

    def on_virtual_table_marks_changed(self, event: VirtualTable.MarksChanged) -> None:
        for table in self.table_widgets():
            if table is not event.table:
                table.refresh()
        self._update_status()
        self.post_message(self.MarksChanged(len(self.marks)))

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._update_status()

    def _update_status(self) -> None:
        table = self.active_table
        parts = []
        if table is not None:
            parts.append(table.current_pointer or "(no rows shown)")
            shown = len(table.order)
            total = len(table.section)
            parts.append(f"{shown:,} of {total:,} rows" if shown != total else f"{total:,} rows")
            if table.sort_column:
                parts.append(f"sorted by {table.sort_column} {'desc' if table.descending else 'asc'}")
        if self.marks:
            parts.append(f"{len(self.marks)} marked: {', '.join(self.marked_rows()[:4])}{' …' if len(self.marks) > 4 else ''}")
        self.query_one("#snapshot-status", Static).update("  ·  ".join(parts))
