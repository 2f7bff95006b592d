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
from textual.widgets._footer import FooterKey, FooterLabel

# What this module reads of Textual's internals: names in a private module, and
# attributes a new Footer and a new FooterKey have. The test checks each is still there.
PRIVATE_MODULE_NAMES = (("textual.widgets._footer", "FooterKey"), ("textual.widgets._footer", "FooterLabel"))
FOOTER_ATTRIBUTES = ("_bindings_ready", "_reactive_connect")
FOOTER_KEY_ATTRIBUTES = ("description", "action")
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

    Below ``COMPACT_BELOW`` columns it also shows fewer and shorter keys, so that ``? Help`` stays on an
    80-column screen whatever region has the focus: a screen or widget names, in ``FOOTER_COMPACT``, the
    actions of its bindings to show there under a shorter label, or (None) to leave out of the footer
    (``?`` lists them all). A group's label follows its keys' (the first key's entry).
    """

    # Below this width the keys go compact (one blank between them) and the regions' FOOTER_COMPACT applies;
    # a group's label ("1 2 3 Tag") keeps its blank after it.
    COMPACT_BELOW = 120
    DEFAULT_CSS = """
    KeysFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what the keys on screen were built from
        self._rebuild_pending = False

    def on_resize(self) -> None:
        compact = self.app.size.width < self.COMPACT_BELOW
        if compact != self.compact:
            self.compact = compact
            if self._bindings_ready and self.is_attached and not self._rebuild_pending:
                self._rebuild_pending = True  # the keys shown depend on it
                self.call_after_refresh(self._rebuild_if_changed)

    def _keys_wanted(self) -> tuple:
        active = self.screen.active_bindings
        shown = tuple((binding, enabled, tooltip) for _node, binding, enabled, tooltip in active.values() if binding.show)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        return shown, palette[1:] if palette else None, self.show_command_palette, self.combine_groups, self.compact

    def _compact_labels(self) -> dict[str, str | None]:
        """Action -> its label at this width (None: not shown), from the regions' FOOTER_COMPACT."""
        if not self.compact:
            return {}
        labels: dict[str, str | None] = {}
        for node, binding, _enabled, _tooltip in self.screen.active_bindings.values():
            compact = getattr(node, "FOOTER_COMPACT", None) or {}
            if binding.show and binding.action in compact:
                labels[binding.action] = compact[binding.action]
        return labels

    def compose(self):
        if self._bindings_ready:
            self._shown = self._keys_wanted()
        labels = self._compact_labels()
        group: list[str] = []  # the actions of the group whose label comes next
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                if "compact" in (widget._reactive_connect or {}):
                    widget.set_reactive(FooterKey.compact, self.compact)  # the value its binding to the footer gives it
                if widget.has_class("-grouped"):
                    group.append(widget.action)
                if widget.action in labels:
                    label = labels[widget.action]
                    if label is None:
                        continue
                    if widget.description:
                        widget.description = label
            elif isinstance(widget, FooterLabel) and group:
                short = labels.get(group[0], widget.content)
                group = []
                if short is None:
                    continue
                widget = FooterLabel(short)
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
