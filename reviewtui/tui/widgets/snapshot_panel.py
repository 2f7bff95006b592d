"""The snapshot region of the author screen: filters, one tab per section, a status line.

Marked rows (``space``) and highlighted rows (the selected expectation's) are
pointer sets shared by every tab, so rows from ``daily`` and ``campaigns``
can be marked together for one tag.

A section's table widget is built the first time its tab is shown (the
first tab at once, the others on ``[`` / ``]``, a click, or a jump to one of
their rows): opening a case mounts one table instead of a dozen. A table
built later gets the filters in force, and marks and highlights are the
shared sets, so it shows what it would have shown had it been built at once.
"""

from __future__ import annotations


from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static, TabbedContent, TabPane

from ..plain import label, plain
from ...authoring.snapshot_sections import DateFilterError, SectionTable, date_bound, locate, section_title
from .virtual_table import VirtualTable

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
        # In a filter field, escape (like enter in a date) goes back to the table with the filter kept,
        # rather than on to the screen's escape, which leaves the case.
        Binding("escape", "back_to_table", "Back to the table (from a filter)", show=False),
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
        self.filters: dict[str, str | None] = {}
        self.filter_problems: list[str] = []  # date filters that are not dates, said in the status line
        self._built: dict[int, VirtualTable] = {}  # position -> its table, once its tab has been shown

    def compose(self) -> ComposeResult:
        with Horizontal(id="snapshot-filters"):
            yield Select(
                [(plain(f"{cid}  {name}" if name else cid), cid) for cid, name in self.campaigns.items()],
                prompt="all campaigns",
                id="filter-campaign",
            )
            yield Input(placeholder="from YYYY-MM-DD", id="filter-from", restrict=r"[0-9-]*", max_length=10)
            yield Input(placeholder="to YYYY-MM-DD", id="filter-to", restrict=r"[0-9-]*", max_length=10)
        with TabbedContent(id="snapshot-tabs"):
            for position, table in enumerate(self.tables):
                with TabPane(label(f"{section_title(table)} ({len(table):,})"), id=f"section-{position}"):
                    if position == 0:
                        yield self._new_table(0)
        yield Static("", id="snapshot-status")

    def on_mount(self) -> None:
        self._update_status()

    # -- queries ------------------------------------------------------------------

    def table_widgets(self) -> list[VirtualTable]:
        """The tables built so far (a tab never shown has none yet)."""
        return list(self._built.values())

    def table_at(self, position: int) -> VirtualTable:
        """The table of the tab at ``position``, built and mounted into its pane if it is not yet."""
        table = self._built.get(position)
        if table is None:
            table = self._new_table(position)
            self.query_one(f"#section-{position}", TabPane).mount(table)
        return table

    def _new_table(self, position: int) -> VirtualTable:
        table = VirtualTable(self.tables[position], self.marks, self.highlights, filters=self.filters, id=f"table-{position}")
        self._built[position] = table
        return table

    @property
    def active_position(self) -> int | None:
        active = self.query_one(TabbedContent).active
        return int(active.split("-")[1]) if active else None

    @property
    def active_table(self) -> VirtualTable | None:
        position = self.active_position
        return None if position is None else self.table_at(position)

    def show_tab(self, position: int) -> VirtualTable:
        """Make the tab at ``position`` the active one; its table."""
        self.query_one(TabbedContent).active = f"section-{position}"
        return self.table_at(position)

    def marked_rows(self) -> list[str]:
        return pointer_order(self.tables, self.marks)

    # -- commands -----------------------------------------------------------------

    def jump_to(self, pointer: str, *, focus: bool = False) -> bool:
        """Show the tab holding ``pointer`` with the cursor on its row."""
        where = locate(self.tables, pointer)
        if where is None:
            return False
        position, index = where
        table = self.show_tab(position)
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
        self.set_marks([])

    def set_marks(self, pointers: list[str]) -> None:
        self.marks.clear()
        self.marks.update(pointers)
        for table in self.table_widgets():
            table.refresh()
        self._update_status()
        self.post_message(self.MarksChanged(len(self.marks)))  # the screen's title counts the marks

    def action_focus_filter(self) -> None:
        self.query_one("#filter-campaign", Select).focus()

    def _in_filters(self) -> bool:
        focused = self.screen.focused
        return focused is not None and any(node.id == "snapshot-filters" for node in focused.ancestors_with_self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back_to_table":
            return self._in_filters()  # elsewhere escape goes on to the screen (back)
        return True

    def action_back_to_table(self) -> None:
        table = self.active_table
        if table is not None:
            table.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_back_to_table()

    def action_tab(self, delta: int) -> None:
        if not self.tables:
            return
        position = self.active_position or 0
        self.show_tab((position + delta) % len(self.tables)).focus()

    # -- events -------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        self._apply_filters()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._apply_filters()

    def _apply_filters(self) -> None:
        campaign = self.query_one("#filter-campaign", Select).value
        self.filter_problems = []
        bounds: dict[str, str | None] = {}
        for key, selector, name in (("date_from", "#filter-from", "from"), ("date_to", "#filter-to", "to")):
            field = self.query_one(selector, Input)
            try:
                bounds[key] = date_bound(field.value, upper=key == "date_to")
            except DateFilterError as exc:
                bounds[key] = None  # not applied: the status line says so, the field is outlined
                self.filter_problems.append(f"{name} {exc}: not applied")
            field.set_class(bounds[key] is None and bool(field.value.strip()), "-invalid")
        self.filters = {"campaign": campaign if isinstance(campaign, str) else None, **bounds}
        for table in self.table_widgets():
            table.apply_view(**self.filters)
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
        position = self.active_position
        if position is not None:
            self.table_at(position)  # a tab shown by a click or the tab bar's keys gets its table now
        self._update_status()

    def _update_status(self) -> None:
        table = self.active_table
        parts = []
        if table is not None:
            parts.append(table.current_pointer or "(no rows shown)")
            index, columns = table.current_index, table.section.columns
            if index is not None and columns and table.cursor_column < len(columns):
                column = columns[table.cursor_column]
                parts.append(f"{column} = {table.section.raw(index, column) or '(none)'}")  # as the snapshot has it
            shown = len(table.order)
            total = len(table.section)
            parts.append(f"{shown:,} of {total:,} rows" if shown != total else f"{total:,} rows")
            if table.sort_column:
                parts.append(f"sorted by {table.sort_column} {'desc' if table.descending else 'asc'}")
        if self.marks:
            parts.append(f"{len(self.marks)} marked: {', '.join(self.marked_rows()[:4])}{' …' if len(self.marks) > 4 else ''}")
        status = plain("  ·  ".join(parts))
        for problem in self.filter_problems:
            status.append("  ·  ")
            status.append_text(plain(problem, style="bold red"))
        self.query_one("#snapshot-status", Static).update(status)
