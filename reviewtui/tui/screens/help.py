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
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from .dialogs import ReviewModal

# (region title, class whose BINDINGS are listed); filled by the modules that define them.
HELP_SECTIONS: list[tuple[str, type]] = []


def register_help(title: str, owner: type) -> None:
    if all(existing is not owner for _t, existing in HELP_SECTIONS):
        HELP_SECTIONS.append((title, owner))


def bindings_of(owner: type) -> list[Binding]:
    found = []
    for item in owner.__dict__.get("BINDINGS", []):
        binding = item if isinstance(item, Binding) else Binding(*item)
        if binding.description:
            found.append(binding)
    return found


class KeysFooter(Footer):
    """Textual's Footer (the keys of the focused region), without its redundant work.

    Textual's Footer rebuilds its keys on every change of focus or bindings, even when the keys shown
    stay the same, and styles each new key twice (compact, then as the footer is). Opening a case asked for four
    rebuilds, about a fifth of the work before the first frame with the tables. This footer rebuilds
    once per refresh at most, only when the keys it would show differ from the keys it shows, and builds
    each key with the footer's compact setting from the start. What it shows is the same.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what the keys on screen were built from
        self._rebuild_pending = False

    def _keys_wanted(self) -> tuple:
        active = self.screen.active_bindings
        shown = tuple((binding, enabled, tooltip) for _node, binding, enabled, tooltip in active.values() if binding.show)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        return shown, palette[1:] if palette else None, self.show_command_palette, self.combine_groups

    def compose(self):
        if self._bindings_ready:
            self._shown = self._keys_wanted()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and "compact" in (widget._reactive_connect or {}):
                widget.set_reactive(FooterKey.compact, self.compact)  # the value its binding to the footer gives it
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        self._rebuild_pending = False
        if self.is_attached and self._keys_wanted() != self._shown:
            await self.recompose()


class HelpScreen(ReviewModal[None]):
    BINDINGS = [Binding("escape", "cancel", "Close"), Binding("question_mark", "cancel", "Close", show=False)]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for title, owner in HELP_SECTIONS:
            bindings = bindings_of(owner)
            if not bindings:
                continue
            table.add_row(Text(title, style="bold underline"), "")
            for binding in bindings:
                keys = ", ".join(self.app.get_key_display(Binding(key, binding.action)) for key in binding.key.split(","))
                table.add_row(keys, binding.description)
            table.add_row("", "")
        with Vertical(classes="dialog help"):
            yield Static("Keys (esc closes)", classes="dialog-title")
            with VerticalScroll():
                yield Static(table, id="help-keys")
