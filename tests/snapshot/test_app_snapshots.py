"""Snapshot tests of the app's part one: cases view, author screen, tag modal, dispute modal.

Fixed terminal size, cursor blink off, the fixture case set copied into a
temporary folder, and a fixed stand-in for the reference auditor's check.
Update with ``pytest tests/snapshot --snapshot-update`` and inspect the SVGs.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tests.app.apphelpers import copy_fixture, make_app, open_case, settle

SIZE = (140, 40)
CASE = "c01-shoes-tracking"


async def cases_table_measured(pilot) -> None:
    """Settle, then wait for the cases table to have measured its columns.

    DataTable sizes its columns when it is next idle after the rows are added; on a busy machine the
    screenshot could otherwise catch the rows drawn in the header-wide columns.
    """
    await settle(pilot)
    table = pilot.app.screen.query_one(DataTable)
    for _ in range(500):
        widths = [column.content_width for column in table.columns.values()]
        if table.row_count and widths and widths[0] >= len(CASE):
            break
        await pilot.pause(0.01)
    await pilot.pause()


def test_cases_view(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))
    assert snap_compare(app, terminal_size=SIZE, run_before=cases_table_measured)


@pytest.mark.slow
def test_author_screen(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down")  # the tagged sentence
        await pilot.press("t", "down", "space", "space")  # mark /daily/1 and /daily/2
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.slow
def test_author_screen_at_80x24(snap_compare, tmp_path):
    """The smallest screen the app is made for, with the table focused (the most keys): ? Help is on it."""
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down")
        await pilot.press("t", "down", "space")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_tag_modal(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down", "down", "down")  # "Brand search (111) spent 1,234.50 more than planned."
        await pilot.press("t", "space", "2")
        await pilot.pause()
        await pilot.press(*"budget.misallocat", "right")  # right accepts the completion
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.slow
def test_dispute_modal(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down", "down", "down", "t", "down", "space", "d")
        await pilot.pause()
        await pilot.press(*"brand", "space", *"cost", "space", *"249.0")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
