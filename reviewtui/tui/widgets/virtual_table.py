"""A table that renders only the rows on screen (Textual's Line API).

The built-in DataTable builds every row up front and freezes for seconds at
100,000 rows; this one keeps the section's rows as they are and formats a
row only when a line of the screen shows it, so opening, scrolling, sorting
and filtering cost the same at 40 rows and at 100,000.

The first column is the row's label (its JSON Pointer index, or the key for
key/value sections) and stays put when scrolling sideways; the header row
stays put when scrolling down.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...files.untrusted import printable
from ...authoring.snapshot_sections import SectionTable

MAX_COLUMN_WIDTH = 40
WIDTH_SAMPLE = 400  # rows sampled to size the columns
MARK = "●"


class VirtualTable(ScrollView, can_focus=True):
    """One snapshot section. Marks and highlights are pointer sets shared with the other tabs."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First row", show=False),
        Binding("end", "edge(1)", "Last row", show=False),
        Binding("left", "column(-1)", "Column left", show=False),
        Binding("right", "column(1)", "Column right", show=False),
        Binding("space", "toggle_mark", "Mark + down"),
        Binding("s", "sort", "Sort column"),
        Binding("u", "clear_marks", "Unmark all"),
    ]
    # Below 120 columns (KeysFooter): marking first, sorting and unmarking in ? only.
    FOOTER_COMPACT = {"toggle_mark": "Mark", "sort": None, "clear_marks": None}

    COMPONENT_CLASSES = {
        "virtual-table--header",
        "virtual-table--label",
        "virtual-table--cursor",
        "virtual-table--cursor-cell",
        "virtual-table--marked",
        "virtual-table--highlight",
    }

    DEFAULT_CSS = """
    VirtualTable { height: 1fr; }
    VirtualTable > .virtual-table--header { text-style: bold; background: $panel; }
    VirtualTable > .virtual-table--label { color: $text-muted; }
    VirtualTable > .virtual-table--cursor { background: $surface-lighten-2; }
    VirtualTable:focus > .virtual-table--cursor { background: $primary 40%; }
    VirtualTable:focus > .virtual-table--cursor-cell { background: $primary; text-style: bold; }
    VirtualTable > .virtual-table--marked { color: $warning; text-style: bold; }
    VirtualTable > .virtual-table--highlight { background: $success 25%; }
    """

    cursor_row: reactive[int] = reactive(0, always_update=True)
    cursor_column: reactive[int] = reactive(0)

    class CursorMoved(Message):
        """The current row changed (its pointer is shown in the status line)."""

        def __init__(self, table: "VirtualTable", pointer: str | None) -> None:
            super().__init__()
            self.table = table
            self.pointer = pointer

    class MarksChanged(Message):
        def __init__(self, table: "VirtualTable") -> None:
            super().__init__()
            self.table = table

    def __init__(
        self,
        section: SectionTable,
        marks: set[str],
        highlights: set[str],
        *,
        filters: dict[str, str | None] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.section = section
        self.marks = marks
        self.highlights = highlights
        self.sort_column: str | None = None
        self.descending = False
        self.filters: dict[str, Any] = dict(filters or {})
        self.order: list[int] = section.view(**self.filters) if any(self.filters.values()) else list(range(len(section)))
        self._widths = self._measure()
        self._label_width = max(
            [len("#")] + [_cells(section.label(i)) for i in self._sample()]
            + [_cells(section.label(len(section) - 1)) if len(section) else 0]
        ) + 3  # the mark before the label, the gutter after it
        self._update_virtual_size()

    # -- model ------------------------------------------------------------------

    def _sample(self) -> range | list[int]:
        n = len(self.section)
        if n <= WIDTH_SAMPLE:
            return range(n)
        step = n // WIDTH_SAMPLE
        return list(range(0, n, step)) + [n - 1]

    def _measure(self) -> list[int]:
        widths = []
        sample = self._sample()
        for column in self.section.columns:
            width = max([_cells(column) + 1] + [_cells(self.section.cell(i, column)) for i in sample])
            widths.append(min(width, MAX_COLUMN_WIDTH))
        return widths

    def _update_virtual_size(self) -> None:
        body = sum(w + 2 for w in self._widths)
        self.virtual_size = Size(self._label_width + body, len(self.order) + 1)

    @property
    def current_index(self) -> int | None:
        """The section index of the cursor row, or None when no row is shown."""
        if not self.order:
            return None
        return self.order[min(self.cursor_row, len(self.order) - 1)]

    @property
    def current_pointer(self) -> str | None:
        index = self.current_index
        return None if index is None else self.section.pointer(index)

    def apply_view(self, **filters: str | None) -> None:
        """Filter (campaign, date_from, date_to) and keep the current sort; the cursor stays on its row if shown."""
        keep = self.current_index
        self.filters = filters
        self._recompute(keep)

    def _recompute(self, keep: int | None) -> None:
        self.order = self.section.view(sort_column=self.sort_column, descending=self.descending, **self.filters)
        self._update_virtual_size()
        position = self.order.index(keep) if keep is not None and keep in self._positions() else 0
        self.move_cursor(position)
        self.refresh()

    def _positions(self) -> set[int]:
        return set(self.order)

    def go_to_index(self, index: int) -> bool:
        """Put the cursor on a section row, clearing filters that hide it. False if there is no such row."""
        if not 0 <= index < len(self.section):
            return False
        if index not in self._positions():
            self.filters = {}
            self._recompute(index)
        self.move_cursor(self.order.index(index), center=True)
        return True

    # -- cursor -----------------------------------------------------------------

    def move_cursor(self, row: int, *, center: bool = False) -> None:
        row = max(0, min(row, len(self.order) - 1)) if self.order else 0
        self.cursor_row = row
        if center and not self.scrollable_content_region.height:
            # Not laid out yet (a screen opened on a row): there is nothing to scroll until it is.
            self.call_after_refresh(self._center_on_cursor)
            return
        visible = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        if center:
            self.scroll_to(y=max(0, row - visible // 2), animate=False, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, immediate=True)

    def _center_on_cursor(self, tries: int = 10) -> None:
        if self.scrollable_content_region.height:
            self.move_cursor(self.cursor_row, center=True)
        elif tries:
            self.call_after_refresh(self._center_on_cursor, tries - 1)

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh()
        self.post_message(self.CursorMoved(self, self.current_pointer))

    def watch_cursor_column(self) -> None:
        self.refresh()
        self.post_message(self.CursorMoved(self, self.current_pointer))  # the status line shows the cell's raw value
        x = self._label_width + sum(w + 2 for w in self._widths[: self.cursor_column])
        width = self._widths[self.cursor_column] + 2 if self._widths else 0
        view = self.scrollable_content_region.width - self._label_width
        if x - self._label_width < self.scroll_x:
            self.scroll_to(x=x - self._label_width, animate=False, immediate=True)
        elif x - self._label_width + width > self.scroll_x + view:
            self.scroll_to(x=x - self._label_width + width - view, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * max(1, self.scrollable_content_region.height - 2))

    def action_edge(self, direction: int) -> None:
        self.move_cursor(0 if direction < 0 else len(self.order) - 1)

    def action_column(self, delta: int) -> None:
        if self._widths:
            self.cursor_column = max(0, min(self.cursor_column + delta, len(self._widths) - 1))

    def action_toggle_mark(self) -> None:
        pointer = self.current_pointer
        if pointer is None:
            return
        if pointer in self.marks:
            self.marks.discard(pointer)
        else:
            self.marks.add(pointer)
        self.refresh()
        self.post_message(self.MarksChanged(self))
        self.move_cursor(self.cursor_row + 1)

    def action_clear_marks(self) -> None:
        if self.marks:
            self.marks.clear()
            self.post_message(self.MarksChanged(self))
            self.refresh()

    def action_sort(self) -> None:
        """Sort by the cursor's column: ascending, then descending, then file order."""
        if not self.section.columns:
            return
        column = self.section.columns[self.cursor_column]
        if self.sort_column != column:
            self.sort_column, self.descending = column, False
        elif not self.descending:
            self.descending = True
        else:
            self.sort_column, self.descending = None, False
        self._recompute(self.current_index)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_cursor(round(self.scroll_y) + event.y - 1)

    # -- rendering --------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._header(width, base)
        position = round(self.scroll_y) + y - 1
        if position >= len(self.order):
            return Strip.blank(width, base)
        return self._row(position, width, base)

    def _header(self, width: int, base: Style) -> Strip:
        style = base + self.get_component_rich_style("virtual-table--header")
        cells = []
        for column, w in zip(self.section.columns, self._widths):
            arrow = ("▼" if self.descending else "▲") if column == self.sort_column else ""
            cells.append(_fit(column + arrow, w))
        label = Strip([Segment(" " + _fit("#", self._label_width - 3), style)])
        body = Strip([Segment("".join(cells), style)])
        return self._assemble(label, body, width, style)

    def _row(self, position: int, width: int, base: Style) -> Strip:
        index = self.order[position]
        pointer = self.section.pointer(index)
        style = base
        if pointer in self.highlights:
            style += self.get_component_rich_style("virtual-table--highlight")
        is_cursor = position == self.cursor_row
        if is_cursor:
            style += self.get_component_rich_style("virtual-table--cursor")
        label_style = style + self.get_component_rich_style("virtual-table--label")
        mark = " "
        if pointer in self.marks:
            mark = MARK
            label_style += self.get_component_rich_style("virtual-table--marked")
        label = Strip([Segment(mark + _fit(self.section.label(index), self._label_width - 3), label_style)])
        segments = []
        cursor_cell = self.get_component_rich_style("virtual-table--cursor-cell") if is_cursor and self.has_focus else None
        for c, (column, w) in enumerate(zip(self.section.columns, self._widths)):
            text = _fit(self.section.cell(index, column), w)
            segments.append(Segment(text, style + cursor_cell if cursor_cell and c == self.cursor_column else style))
        return self._assemble(label, Strip(segments), width, style)

    def _assemble(self, label: Strip, body: Strip, width: int, style: Style) -> Strip:
        view = max(0, width - self._label_width)
        x = round(self.scroll_x)
        body = body.crop(x, x + view).extend_cell_length(view, style)
        return Strip.join([label, body]).crop(0, width)


def _shown(text: str) -> str:
    return printable(text.replace("\n", " "), one_line=True)  # cells hold snapshot text: no escapes to the terminal


def _cells(text: str) -> int:
    """How many terminal cells ``text`` takes as a cell shows it."""
    return cell_len(_shown(text))


def _fit(text: str, width: int) -> str:
    """Pad (or cut with an ellipsis) to ``width`` terminal cells plus two spaces of gutter. Cells, not
    characters: a Japanese campaign name takes two cells a character."""
    text = _shown(text)
    if cell_len(text) > width:
        text = set_cell_size(text, max(0, width - 1)) + "…"
    return set_cell_size(text, width) + "  "

