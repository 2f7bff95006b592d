"""The one place the app relies on Textual's private names.

Textual 8.2.8 (pinned exactly in pyproject.toml) keeps ``FooterKey`` in the
private module ``textual.widgets._footer``, and the footer's own readiness flag
and a key's reactive links in private attributes. Everything that reads them
is here, and ``tests/unit/test_textual_private.py`` fails by name when an
upgrade moves any of them, before a screen misbehaves.
"""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# What this module reads of Textual's internals: a name in a private module, and
# attributes a new Footer has (class or instance). The test checks each is still there.
PRIVATE_MODULE_NAMES = (("textual.widgets._footer", "FooterKey"),)
FOOTER_ATTRIBUTES = ("_bindings_ready", "_reactive_connect")
APP_ATTRIBUTES = ("_screen_stacks",)


def screen_stacks(app: App) -> dict[str, list[Screen]]:
    """Every mode's screen stack, by mode (Textual shows only the current mode's publicly).

    The app looks through all of them for unsaved work and for a case that is already open.
    """
    return app._screen_stacks


class KeysFooter(Footer):
    """Textual's Footer (the keys of the focused region), without its redundant work.

    Textual's Footer rebuilds its keys on every change of focus or bindings, even when the keys shown
    stay the same, and styles each new key twice (compact, then as the footer is). Opening a case asked for four
    rebuilds, about a fifth of the work before the first frame with the tables. This footer rebuilds
    once per refresh at most, only when the keys it would show differ from the keys it shows, and builds
    each key with the footer's compact setting from the start. What it shows is the same.
    """

    # Below this width the keys go compact (one blank between them), so the view keys stay on an
    # 80-column screen; a group's label ("1 2 3 Tag must/may/not") keeps its blank after it.
    COMPACT_BELOW = 120
    DEFAULT_CSS = """
    KeysFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what the keys on screen were built from
        self._rebuild_pending = False

    def on_resize(self) -> None:
        self.compact = self.app.size.width < self.COMPACT_BELOW

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
