"""The confirm dialog shows each answer's key as typed, not read as markup."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Button

from reviewtui.tui.screens.dialogs import ConfirmModal


class _DialogApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(ConfirmModal("Changed on disk", "expected.yaml changed.", [("r", "Reload"), ("c", "Cancel")]))


async def test_the_key_hints_show_in_brackets_on_the_buttons() -> None:
    app = _DialogApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels == ["[r] Reload", "[c] Cancel"]
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
