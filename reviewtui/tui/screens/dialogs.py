"""Modal dialogs shared by the screens: the base class and the confirm dialog."""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from ..plain import label as label_content
from ..plain import para, plain

ResultType = TypeVar("ResultType")


class ReviewModal(ModalScreen[ResultType]):
    """A modal that follows the app's cursor-blink setting (snapshot tests turn blinking off).

    A modal with a ``FORM`` name is a form: once its fields differ from what they held when
    it opened, it holds typed work, and quitting the app asks first.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    FORM: str | None = None
    _opened_with: tuple | None = None

    def on_mount(self) -> None:
        if not getattr(self.app, "cursor_blink", True):
            for field in self.query(Input):
                field.cursor_blink = False
        self._opened_with = self._field_values()

    def _field_values(self) -> tuple:
        return tuple((w.id, w.value) for w in self.query("Input, Select") if isinstance(w, (Input, Select)))

    @property
    def has_typed_text(self) -> bool:
        return self.FORM is not None and self._opened_with is not None and self._field_values() != self._opened_with

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmModal(ReviewModal[str]):
    """A question with a few answers; dismisses with the chosen answer's key (None on escape).

    ``choices`` are ``(key, label)`` pairs; each key is also a keyboard shortcut.
    """

    def __init__(self, title: str, question: str, choices: list[tuple[str, str]]) -> None:
        super().__init__(classes="confirm")
        self.title_text = title
        self.question = question
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.title_text), classes="dialog-title")
            yield Static(para(self.question), classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                for index, (key, label) in enumerate(self.choices):
                    # The key hint in brackets would be read as markup (``[r]`` is a style) if given as a str.
                    yield Button(label_content(f"[{key}] {label}"), id=f"choice-{key}", variant="primary" if index == 0 else "default")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id.removeprefix("choice-") if event.button.id else None)

    def on_key(self, event) -> None:
        for key, _label in self.choices:
            if event.key == key:
                event.stop()
                self.dismiss(key)
                return
