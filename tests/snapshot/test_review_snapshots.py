"""Snapshot tests of the app's part two: runs view, run view, case review, compare view.

The fixed case set and the two fixed runs of tests/app/review_fixture.py are
written into a temporary folder and the app runs from there (paths on screen
are relative, dates come from the run files), at a fixed terminal size with
the cursor blink off. Update with ``pytest tests/snapshot --snapshot-update``
and inspect the SVGs.
"""

from __future__ import annotations

import pytest

from reviewtui.tui.widgets.review.case_table import ReviewCaseTable
from tests.app.review_fixture import SIZE, make_review_app, review_repo


@pytest.fixture
def root(tmp_path, monkeypatch):
    return review_repo(tmp_path, monkeypatch)


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_run_t1(pilot) -> None:
    await pilot.press("f3", "down", "enter")  # the runs view lists audit-t2 first; audit-t1 is the older
    await settle(pilot)


@pytest.mark.slow
def test_runs_view(snap_compare, root):
    assert snap_compare(make_review_app(root), terminal_size=SIZE, press=["f3"])


@pytest.mark.slow
def test_run_view_with_missed_ids(snap_compare, root):
    assert snap_compare(make_review_app(root), terminal_size=SIZE, run_before=open_run_t1)


@pytest.mark.slow
def test_case_view_with_a_fabricated_figure(snap_compare, root):
    async def run_before(pilot) -> None:
        await open_run_t1(pilot)
        await pilot.press("enter", "tab")  # c01-tracking; focus on the returned findings
        await settle(pilot)

    assert snap_compare(make_review_app(root), terminal_size=SIZE, run_before=run_before)


@pytest.mark.slow
def test_case_view_with_declared_figures(snap_compare, root):
    """audit-t2's c01 declares its figures: an untraceable "404" and a declaration the text does not print."""
    async def run_before(pilot) -> None:
        await pilot.press("f3")
        await settle(pilot)
        pilot.app.screen.open_run("audit-t2")
        await settle(pilot)
        pilot.app.screen.query_one(ReviewCaseTable).select_case("c01-tracking")
        await pilot.press("enter", "tab")
        await settle(pilot)

    assert snap_compare(make_review_app(root), terminal_size=SIZE, run_before=run_before)


@pytest.mark.slow
def test_compare_view(snap_compare, root):
    async def run_before(pilot) -> None:
        await pilot.press("f3", "down", "space", "up", "c")  # mark audit-t1, compare with audit-t2
        await settle(pilot)

    assert snap_compare(make_review_app(root), terminal_size=SIZE, run_before=run_before)
