"""The dispute modal: send the current write-up sentence to disputed.md.

It asks what the rows show instead and why the claim stays out of the case;
the rows default to the rows marked in the snapshot.
"""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from ...caseset.disputes import field_problems
from ...authoring.drafts import DisputeDraft, parse_rows
from ..plain import para, plain

from .dialogs import ReviewModal
from .help import KeysFooter


class DisputeModal(ReviewModal[DisputeDraft]):
    """Dismisses with the draft once ``submit(draft)`` (the write to disputed.md) returns no error;
    on an error the modal stays open with the error shown and the text as typed."""

    FORM = "dispute"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Add to disputed.md"),
    ]

    def __init__(
        self, *, quote: str, case_id: str, writeup: str, rows: list[str],
        submit: Callable[[DisputeDraft], str | None] | None = None,
    ) -> None:
        super().__init__(classes="dispute")
        self.submit = submit
        self.quote = quote
        self.case_id = case_id
        self.writeup = writeup
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(f"Dispute a claim of {self.writeup}"), classes="dialog-title")
            yield Static(para(f"> {self.quote}"), classes="quote")
            yield Static(plain(f"Case: {self.case_id}"), classes="hint")
            with Grid(classes="dialog-form"):
                yield Label("Rows show")
                yield Input(placeholder="what the rows show instead, with figures", id="dispute-rows-show")
                yield Label("Rows")
                yield Input(", ".join(self.rows), placeholder="JSON Pointers: /daily/212, /daily/213", id="dispute-rows")
                yield Label("Why it stays out")
                yield Input(placeholder="why the claim is not in the case", id="dispute-why")
            yield Static("", id="dispute-error", classes="error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add to disputed.md (ctrl+s)", id="dispute-save", variant="primary")
                yield Button("Cancel (esc)", id="dispute-cancel")
        yield KeysFooter()  # the modal's own keys; without it the screen below shows the table's

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#dispute-rows-show", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "dispute-why":
            self.action_save()
        else:
            self.focus_next()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "dispute-save":
            self.action_save()
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        rows_show = " ".join(self.query_one("#dispute-rows-show", Input).value.split())
        why = " ".join(self.query_one("#dispute-why", Input).value.split())
        rows = parse_rows(self.query_one("#dispute-rows", Input).value)
        missing = field_problems(rows_show, why, rows)
        if missing:
            self.query_one("#dispute-error", Static).update(f"Fill in {' and '.join(missing)}.")
            return
        draft = DisputeDraft(rows_show, rows, why)
        error = self.submit(draft) if self.submit is not None else None
        if error:
            self.query_one("#dispute-error", Static).update(error)
            return
        self.dismiss(draft)
