"""The snapshot tabs build their tables when first shown, and show what they would have shown if built at once;
the footer shows the focused region's keys and is rebuilt only when they change."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from reviewtui.tui.screens import author as author_module
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.widgets.snapshot_panel import SnapshotPanel
from reviewtui.tui.widgets.virtual_table import VirtualTable
from reviewtui.tui.widgets.writeup_view import WriteupView

from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, settle

CASE = "c01-shoes-tracking"  # tabs: daily, campaigns, search_terms, budgets, account, period, targets, top level


def tab_names(panel: SnapshotPanel) -> list[str]:
    return [table.name for table in panel.tables]


@pytest.mark.slow
async def test_opening_a_case_builds_only_the_first_tab_s_table(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        panel = screen.panel
        assert tab_names(panel)[:4] == ["daily", "campaigns", "search_terms", "budgets"]
        assert [t.id for t in panel.query(VirtualTable)] == ["table-0"]
        text = screen_text(app)
        for title in ("daily (36)", "campaigns (2)", "search_terms (2)", "budgets (2)"):
            assert title in text  # every tab is there, with its row count
        await pilot.press("t", "]")
        await settle(pilot)
        assert [t.id for t in panel.query(VirtualTable)] == ["table-0", "table-1"]
        assert app.focused is panel.active_table and panel.active_table.current_pointer == "/campaigns/0"
        assert "/campaigns/0" in str(panel.query_one("#snapshot-status").render())


@pytest.mark.slow
async def test_a_table_built_later_gets_the_filters_and_the_marks(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        panel = screen.panel
        panel.query_one("#filter-campaign").value = "222"
        await settle(pilot)
        assert len(panel.active_table.order) == 18  # daily, campaign 222 only
        panel.set_marks(["/search_terms/1"])  # a row of a tab never shown
        await pilot.press("t", "]")
        await settle(pilot)
        campaigns = panel.active_table
        assert campaigns.section.name == "campaigns" and campaigns.order == [1]  # built with the filter in force
        assert "1 of 2 rows" in str(panel.query_one("#snapshot-status").render())
        await pilot.press("]")
        await settle(pilot)
        search_terms = panel.active_table
        assert search_terms.section.name == "search_terms"
        lines = [line for line in screen_text(app).splitlines() if "running shoes sale" in line]
        assert lines and "●" in lines[0]  # the mark shows in the table built after it was made
        await pilot.press("down", "space")  # unmark it from there
        assert panel.marks == set()


@pytest.mark.slow
async def test_jumping_to_a_row_of_a_tab_never_shown(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        assert screen.go_to_pointer("/budgets/1")
        await settle(pilot)
        table = screen.panel.active_table
        assert table.section.name == "budgets" and table.current_pointer == "/budgets/1"
        assert app.focused is table
        assert "/budgets/1" in str(screen.panel.query_one("#snapshot-status").render())


@pytest.mark.slow
async def test_clicking_a_tab_builds_its_table(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await pilot.click("#--content-tab-section-2")
        await settle(pilot)
        table = screen.panel.active_table
        assert table.section.name == "search_terms" and table.is_mounted and table.region.height > 0
        assert "running shoes sale" in screen_text(app)


@pytest.mark.slow
async def test_the_footer_follows_focus_and_is_not_rebuilt_for_the_same_keys(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one(WriteupView).focus()
        await settle(pilot)
        keys = list(screen.query(FooterKey))
        assert {"1", "d", "escape"} <= {k.key for k in keys}
        screen.refresh_bindings()  # nothing changed: the same keys stay
        await settle(pilot)
        assert list(screen.query(FooterKey)) == keys
        await pilot.press("t")
        await settle(pilot)
        assert "Mark + down" in {k.description for k in screen.query(FooterKey)}
        assert "Mark + down" in screen_text(app).splitlines()[-1]


def first_author_frame(app) -> dict:
    """What the author screen's first rendered frame showed: the tables, or the loading line."""
    seen: dict = {}
    display = app._display

    def recording(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is not None and not seen and isinstance(screen, AuthorScreen):
            panel = screen.panel
            seen["tables"] = bool(panel and panel.is_mounted and panel.active_table and panel.active_table.region.height)
            seen["loading"] = bool(screen.query("#snapshot-loading"))

    app._display = recording
    return seen


@pytest.mark.slow
async def test_a_small_snapshot_is_in_the_author_screen_s_first_frame(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        seen = first_author_frame(app)
        app.screen.select_case(CASE)
        await pilot.press("enter")
        await settle(pilot)
        assert seen == {"tables": True, "loading": False}  # no "Loading snapshot.json" step for a small file


@pytest.mark.slow
async def test_a_large_snapshot_shows_the_write_up_first_and_the_tables_when_loaded(repo, monkeypatch):
    monkeypatch.setattr(author_module, "LOAD_IN_WORKER_BYTES", 0)  # the fixture's snapshot counts as large
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        seen = first_author_frame(app)
        app.screen.select_case(CASE)
        await pilot.press("enter")
        await settle(pilot)
        assert seen == {"tables": False, "loading": True}
        screen = app.screen
        assert screen.panel is not None and screen.panel.active_table.current_pointer == "/daily/0"
