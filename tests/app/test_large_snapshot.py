"""Large snapshots: the snapshot loads in a worker while the app answers keys; 100,000-row tables work."""

from __future__ import annotations

import pytest
import threading

from reviewtui.caseset.snapshot import Snapshot
from reviewtui.tui.screens import author as author_module
from reviewtui.tui.screens.help import HelpScreen
from reviewtui.tui.widgets.snapshot_panel import SnapshotPanel
from reviewtui.tui.widgets.virtual_table import VirtualTable
from reviewtui.tui.widgets.writeup_view import WriteupView

from tests.app.apphelpers import SIZE, make_app, open_case, settle
from tests.app.casegen import make_large_case


@pytest.mark.slow
async def test_the_app_answers_keys_while_the_snapshot_is_loading(repo, monkeypatch):
    # Snapshots up to LOAD_IN_WORKER_BYTES are parsed while the screen is built; make this small one
    # take the worker's path, which is what a large one does.
    monkeypatch.setattr(author_module, "LOAD_IN_WORKER_BYTES", 0)
    release = threading.Event()

    class SlowSnapshot(Snapshot):
        """A snapshot.json that takes until the test says so to parse (only the author screen sees it)."""

        @classmethod
        def load(cls, path):
            assert release.wait(30), "the test never released the snapshot load"
            return Snapshot.load(path)

    monkeypatch.setattr(author_module, "Snapshot", SlowSnapshot)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        path = repo / "cases" / "c01-shoes-tracking" / "snapshot.json"
        path.write_text(path.read_text() + "\n")  # not the cases view's snapshot any more: parsed again
        app.screen.select_case("c01-shoes-tracking")
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert screen.panel is None and "Loading snapshot.json" in str(screen.query_one("#snapshot-loading").render())
        view = screen.query_one(WriteupView)
        first = view.cursor
        await pilot.press("down", "down")
        assert view.cursor == first + 2  # the write-up answers while the snapshot is still loading
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        release.set()
        await settle(pilot)
        assert screen.query(SnapshotPanel) and screen.panel is not None


@pytest.mark.parametrize("in_worker", [False, True])
async def test_the_author_screen_takes_the_snapshot_the_cases_view_loaded_while_its_file_is_unchanged(repo, monkeypatch, in_worker):
    """Parsing a 100,000-row snapshot again takes most of a second, and its rows' reading and its audit
    are kept on the loaded snapshot: the author screen shares the cases view's, unless the file changed."""
    if in_worker:
        monkeypatch.setattr(author_module, "LOAD_IN_WORKER_BYTES", 0)
    case = "c01-shoes-tracking"
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, case)
        kept = next(c.snapshot for c in app.case_set.cases if c.case_id == case)
        assert kept is not None and screen.snapshot is kept and screen.panel is not None
        await pilot.press("escape")
        path = repo / "cases" / case / "snapshot.json"
        path.write_text(path.read_text().replace('"clicks": 310', '"clicks": 311', 1))
        screen = await open_case(pilot, case)
        assert screen.snapshot is not kept and screen.snapshot.text == path.read_text()
        assert '"clicks": 311' in screen.snapshot.text and screen.panel is not None


@pytest.mark.slow
async def test_a_100000_row_snapshot_opens_scrolls_sorts_and_filters(tmp_path):
    repo = tmp_path / "repo"
    make_large_case(repo / "cases", rows=100_000)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c99-large")
        assert screen.case.snapshot_path.stat().st_size > author_module.LOAD_IN_WORKER_BYTES  # loaded in the worker
        table = screen.panel.active_table
        assert isinstance(table, VirtualTable) and len(table.order) == 100_000
        table.focus()
        await pilot.press("end")
        assert table.current_pointer == "/daily/99999"
        assert "/daily/99999" in str(screen.query_one("#snapshot-status").render())
        await pilot.press("space")  # marks the last row
        assert screen.panel.marked_rows() == ["/daily/99999"]
        # Sort by cost (column 5: date, campaign_id, impressions, clicks, cost).
        await pilot.press("home", "right", "right", "right", "right", "s")
        costs = [table.section.value(i, "cost") for i in table.order[:50]]
        assert costs == sorted(costs) and table.sort_column == "cost"
        await pilot.press("s")
        assert table.section.value(table.order[0], "cost") == max(table.section.value(i, "cost") for i in range(100_000))
        # Filter by campaign and by date range.
        screen.panel.query_one("#filter-campaign").value = "333"
        await pilot.pause()
        assert len(table.order) == 33_333
        assert all(table.section.campaigns_of(i) == {"333"} for i in table.order[:100])
        screen.panel.query_one("#filter-from").value = "2025-03-02"
        screen.panel.query_one("#filter-to").value = "2025-03-03"
        await pilot.pause()
        rows = table.section.items
        expected = [i for i, r in enumerate(rows) if r["campaign_id"] == "333" and "2025-03-02" <= r["date"] <= "2025-03-03"]
        assert expected and sorted(table.order) == expected
        # Jumping to a filtered-out row clears the filters and shows it.
        assert screen.go_to_pointer("/daily/50000")
        assert table.current_pointer == "/daily/50000"


async def test_a_save_keeps_the_snapshot_the_cases_view_loaded_while_its_file_is_unchanged(repo):
    """A save writes expected.yaml only: the cases view re-reads the case without parsing snapshot.json again
    (most of a second at 100,000 rows), unless that file changed too."""
    from tests.app.apphelpers import wait_until

    case = "c01-shoes-tracking"
    app = make_app(repo)

    def listed():
        return next(c for c in app.case_set.cases if c.case_id == case)

    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, case)
        before = listed()
        kept = before.snapshot
        assert kept is not None and before.must_find
        await pilot.press("x", "delete", "ctrl+s")
        await wait_until(pilot, lambda: listed() is not before, "the cases view re-reads the saved case")
        saved = listed()
        assert saved.must_find == [] and saved.snapshot is kept
        path = repo / "cases" / case / "snapshot.json"
        path.write_text(path.read_text().replace('"clicks": 310', '"clicks": 311', 1))
        await pilot.press("ctrl+z", "ctrl+s")
        await wait_until(pilot, lambda: listed() is not saved, "the cases view re-reads the saved case")
        assert listed().must_find and listed().snapshot is not kept and listed().snapshot.text == path.read_text()
