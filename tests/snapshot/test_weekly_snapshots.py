"""Snapshot test of an account's report in the weekly view: a held account, its made-up figure marked."""

from __future__ import annotations

import pytest
from pathlib import Path

from textual.widgets import DataTable

from reviewtui.tui.app import ReviewApp
from tests.app.weekly_fixture import write_weekly_run
from tests.fake_messages_api import write_case

SIZE = (130, 36)


@pytest.mark.slow
def test_account_report_on_hold(snap_compare, tmp_path, monkeypatch):
    write_case(tmp_path / "cases", "c01-one", "CASE-0001")
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot) -> None:
        await write_weekly_run(Path("."))
        await pilot.press("f4")
        await pilot.pause()
        table = pilot.app.screen.query_one("#weekly-accounts", DataTable)
        table.move_cursor(row=1)  # shoes, on hold
        table.focus()
        await pilot.press("enter")
        await pilot.pause()

    app = ReviewApp(Path("cases"), Path("results"), cursor_blink=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
