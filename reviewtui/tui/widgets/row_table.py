"""A DataTable of whole rows (the cases and runs views) whose home and end keys go to the first and the last row."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    """A DataTable of whole rows where home and end go to the first and the last row.

    (DataTable's own home and end scroll sideways, which in a table that fits the screen does nothing.)
    """

    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]
