"""The keys: the help screen (every key of every region, read from the classes' own BINDINGS) and the footer.

Reading the bindings (rather than a hand-written list) keeps the help true
as keys change. A new screen or widget adds itself to ``HELP_SECTIONS``.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ..textual_private import KeysFooter
from .dialogs import ReviewModal

__all__ = ["HELP_SECTIONS", "HelpScreen", "KeysFooter", "bindings_of", "register_help"]

# (region title, class whose BINDINGS are listed); filled by the modules that define them.
HELP_SECTIONS: list[tuple[str, type]] = []
# Keys a region answers that are not its own bindings (a table's enter, Textual's tab and ctrl+p): (keys, what).
HELP_ALSO: dict[type, list[tuple[str, str]]] = {}


def register_help(title: str, owner: type, *, also: list[tuple[str, str]] | None = None, first: bool = False) -> None:
    """List ``owner``'s bindings under ``title`` in ``?``, with the keys in ``also`` after them;
    ``first`` puts the section at the top (the keys that work everywhere)."""
    if all(existing is not owner for _t, existing in HELP_SECTIONS):
        HELP_SECTIONS.insert(0 if first else len(HELP_SECTIONS), (title, owner))
    if also:
        HELP_ALSO[owner] = list(also)


def bindings_of(owner: type) -> list[Binding]:
    found = []
    for item in owner.__dict__.get("BINDINGS", []):
        binding = item if isinstance(item, Binding) else Binding(*item)
        if binding.description:
            found.append(binding)
    return found


def sections_for(shown: Screen | None) -> list[tuple[str, type]]:
    """The help's sections, those of ``shown`` first: the screen's own keys, then its regions' (the widgets
    of a registered class it holds), then the keys that work everywhere, then every other screen's."""
    if shown is None:
        return list(HELP_SECTIONS)

    def here(owner: type) -> bool:
        if isinstance(shown, owner):
            return True
        return issubclass(owner, Widget) and not issubclass(owner, Screen) and bool(shown.query(owner))

    own = [section for section in HELP_SECTIONS if here(section[1])]
    return own + [section for section in HELP_SECTIONS if section not in own]


class HelpScreen(ReviewModal[None]):
    BINDINGS = [Binding("escape", "cancel", "Close"), Binding("question_mark", "cancel", "Close", show=False)]

    def __init__(self, shown: Screen | None = None) -> None:
        super().__init__()
        self.shown = shown  # the screen ? was pressed on: its keys come first

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for title, owner in sections_for(self.shown):
            # A binding's tooltip, when it has one, is the longer name its footer label is short for.
            rows = [(b.key, b.tooltip or b.description) for b in bindings_of(owner)] + HELP_ALSO.get(owner, [])
            if not rows:
                continue
            table.add_row(Text(title, style="bold underline"), "")
            for key_list, description in rows:
                keys = ", ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in key_list.split(","))
                table.add_row(keys, description)
            table.add_row("", "")
        with Vertical(classes="dialog help"):
            yield Static("Keys (esc closes)", classes="dialog-title")
            with VerticalScroll():
                yield Static(table, id="help-keys")
