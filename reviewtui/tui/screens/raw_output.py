"""The raw output modal (``r`` in a case review): the assistant's output text verbatim, with the parse or API
error above it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from ...files.untrusted import printable
from ..plain import label, plain

if TYPE_CHECKING:
    from .case_review import CaseResult  # case_review imports this module


class RawOutputScreen(ModalScreen[None]):
    """The assistant's raw output text, verbatim, with the parse or API error above it."""

    BINDINGS = [Binding("escape,r,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    RawOutputScreen { align: center middle; }
    RawOutputScreen > Vertical { width: 90%; height: 90%; border: thick $primary; background: $surface; }
    RawOutputScreen #raw-problem { color: $error; padding: 0 1; height: auto; }
    RawOutputScreen TextArea { height: 1fr; }
    """

    def __init__(self, result: CaseResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        output, score = self.result.output, self.result.score
        problem = score.error or score.parse_error or output.get("error")
        with Vertical() as box:
            box.border_title = label(f"raw output · {self.result.case_id}")
            if problem:
                yield Label(plain(f"{score.status}: {problem}"), id="raw-problem")
            yield TextArea(printable(output.get("raw_text") or "(no output text)"), read_only=True,
                           show_line_numbers=True, soft_wrap=True, id="raw-text")
