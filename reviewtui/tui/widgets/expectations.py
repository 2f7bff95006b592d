"""The expectations region: must_find, may_find and must_not_say with their evidence.

Moving the highlight over an entry posts ``EntryHighlighted`` so the author
screen can highlight the entry's rows and its source sentence.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from ...caseset.cases import LISTS, Case, Expectation
from ..plain import safe

LIST_STYLES = {"must_find": "bold green", "may_find": "bold cyan", "must_not_say": "bold red"}


def entry_key(list_name: str, index: int) -> str:
    return f"{list_name}:{index}"


def parse_entry_key(key: str) -> tuple[str, int]:
    list_name, _, index = key.partition(":")
    return list_name, int(index)


def entry_label(entry: Expectation, problem_count: int) -> Text:
    label = Text()
    label.append(entry.id or "(no id)", style="bold")
    label.append(f"  {len(entry.rows)} row{'s' if len(entry.rows) != 1 else ''}", style="dim")
    if entry.claim:
        label.append("  ✎ claim", style="dim")
    if problem_count:
        label.append(f"  ⚠ {problem_count}", style="bold yellow")
    label.append("\n  ")
    label.append(entry.evidence or "(no evidence)", style="italic" if entry.evidence else "bold red")
    return label


class ExpectationList(OptionList):
    BINDINGS = [
        Binding("e", "edit", "Edit"),
        Binding("enter", "edit", "Edit", show=False),
        Binding("delete", "delete", "Delete"),
        Binding("backspace", "delete", "Delete", show=False),
    ]

    class EntryHighlighted(Message):
        def __init__(self, list_name: str, index: int, automatic: bool = False) -> None:
            super().__init__()
            self.list_name = list_name
            self.index = index
            self.automatic = automatic  # selected by coming to the list, not by the user moving

    class EditRequested(Message):
        def __init__(self, list_name: str, index: int) -> None:
            super().__init__()
            self.list_name = list_name
            self.index = index

    class DeleteRequested(Message):
        def __init__(self, list_name: str, index: int) -> None:
            super().__init__()
            self.list_name = list_name
            self.index = index

    def show_case(self, case: Case, problem_counts: dict[str, int]) -> None:
        """Rebuild from the case, keeping the highlight on the same entry when it still exists."""
        keep = self.current_key
        self.clear_options()
        for list_name in LISTS:
            entries = case.expectations(list_name)
            self.add_option(Option(Text(f"{list_name} ({len(entries)})", style=LIST_STYLES[list_name]), disabled=True))
            for entry in entries:
                key = entry_key(list_name, entry.index)
                self.add_option(Option(safe(entry_label(entry, problem_counts.get(key, 0))), id=key))
        if keep is not None and self.select_key(keep):
            self._restored: str | None = keep  # the same entry as before the rebuild: not a new selection to act on

    @property
    def current_key(self) -> str | None:
        if self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id

    def select_key(self, key: str) -> bool:
        try:
            self.highlighted = self.get_option_index(key)
        except OptionDoesNotExist:  # the entry was deleted
            return False
        return True

    def on_focus(self) -> None:
        """Coming to the list with nothing selected selects the first entry, so ``e`` and ``delete`` act on it."""
        if self.highlighted is None:
            self._automatic = True
            self.action_first()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        automatic, self._automatic = getattr(self, "_automatic", False), False
        restored, self._restored = getattr(self, "_restored", None), None
        if event.option.id and event.option.id != restored:
            self.post_message(self.EntryHighlighted(*parse_entry_key(event.option.id), automatic=automatic))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    def action_edit(self) -> None:
        if (key := self.current_key) is not None:
            self.post_message(self.EditRequested(*parse_entry_key(key)))

    def action_delete(self) -> None:
        if (key := self.current_key) is not None:
            self.post_message(self.DeleteRequested(*parse_entry_key(key)))
