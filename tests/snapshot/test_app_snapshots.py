"""Snapshot tests of the app's part one: cases view, author screen, tag modal, dispute modal.

Fixed terminal size, cursor blink off, the fixture case set copied into a
temporary folder, and a fixed stand-in for the reference auditor's check.
Update with ``pytest tests/snapshot --snapshot-update`` and inspect the SVGs.
"""

from __future__ import annotations

from tests.app.apphelpers import copy_fixture, make_app, open_case, settle

SIZE = (140, 40)
CASE = "c01-shoes-tracking"


def test_cases_view(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_author_screen(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down")  # the tagged sentence
        await pilot.press("t", "down", "space", "space")  # mark /daily/1 and /daily/2
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


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


def test_dispute_modal(snap_compare, tmp_path):
    app = make_app(copy_fixture(tmp_path / "repo"))

    async def run_before(pilot) -> None:
        await open_case(pilot, CASE)
        await pilot.press("down", "down", "down", "down", "t", "down", "space", "d")
        await pilot.pause()
        await pilot.press(*"brand", "space", *"cost", "space", *"249.0")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
