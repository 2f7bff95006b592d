"""Rough edges found walking through the app in a real terminal (tmux, 160x45), each pinned by a test."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.cases import CasesScreen
from reviewtui.tui.screens.new_run import NewRunScreen
from reviewtui.tui.screens.run_list import RunsScreen
from reviewtui.tui.widgets.virtual_table import VirtualTable

from tests.app.apphelpers import make_app, make_review_app, open_case, screen_text, search_palette, settle, wait_until
from tests.app.review_fixture import review_repo

CASE = "c01-shoes-tracking"
WIDE = (160, 45)  # the terminal of the walkthrough


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.slow
async def test_escape_in_a_filter_goes_back_to_the_table_and_keeps_the_filter(repo):
    # Found: escape in a date filter left the case (and its marks and filters) for the cases view.
    app = make_app(repo)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_case(pilot, CASE)
        await pilot.press("t", "space")  # a marked row, to see it survive
        await pilot.press("f", "tab")
        assert isinstance(app.focused, Input) and app.focused.id == "filter-from"
        await pilot.press(*"2025-03-10")
        await settle(pilot)
        table = screen.panel.active_table
        shown = len(table.order)
        assert shown < 36
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and app.focused is table
        assert len(table.order) == shown and screen.panel.marks == {"/daily/0"}
        await pilot.press("f", "tab", "tab")  # the "to" date: enter also goes back to the table
        await pilot.press(*"2025-03-12", "enter")
        await settle(pilot)
        assert app.focused is table and len(table.order) < shown
        await pilot.press("escape")  # from the table, escape still leaves the case
        await settle(pilot)
        assert isinstance(app.screen, CasesScreen)


@pytest.mark.slow
async def test_escape_in_the_campaign_filter_goes_back_to_the_table(repo):
    app = make_app(repo)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_case(pilot, CASE)
        await pilot.press("t", "f")
        assert app.focused.id == "filter-campaign"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and isinstance(app.focused, VirtualTable)


@pytest.mark.slow
async def test_the_footer_keeps_back_help_and_the_views_with_the_table_focused(repo):
    # Found: with the snapshot table focused, the footer ran off the right edge at 160 columns and
    # hid esc, ? and f2 / f3; and escape was labelled "Back to cases" where it goes back to a case review.
    app = make_app(repo)
    async with app.run_test(size=WIDE) as pilot:
        await open_case(pilot, CASE)
        for region, own_keys in (("w", "^s Save"), ("t", "space Mark + down  s Sort column"), ("x", "e Edit")):
            await pilot.press(region)
            await settle(pilot)
            line = footer(app)
            for words in (own_keys, "^s Save", "Tag must/may/not", "d Dispute", "esc Back", "? Help", "f2 Cases", "f3 Runs"):
                assert words in line, (region, words, line)
            assert "Back to cases" not in line


@pytest.mark.slow
async def test_escape_from_a_case_opened_in_the_runs_view_goes_back_there(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch)
    app = make_review_app(root)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False), "the cases view loads")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs view")
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await search_palette(pilot, "open case c01")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen), "the author screen")
        await settle(pilot)
        line = footer(app)
        assert "esc Back " in line and "Back to cases" not in line
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)


async def test_home_and_end_go_to_the_first_and_last_case(repo):
    # Found: home and end did nothing in the cases view (DataTable scrolls sideways with them).
    app = make_app(repo)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("end")
        assert screen.current_case_id == "c03-bikes-broken"
        await pilot.press("home")
        assert screen.current_case_id == CASE


@pytest.mark.slow
async def test_home_and_end_go_to_the_first_and_last_run(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch)
    app = make_review_app(root)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs view")
        runs = app.screen
        await pilot.press("end")
        assert runs.current_run.prompt_version == "audit-t1"  # newest first: the oldest is last
        await pilot.press("home")
        assert runs.current_run.prompt_version == "audit-t2"


@pytest.mark.slow
async def test_palette_new_run_shows_the_form_already_open(tmp_path, monkeypatch):
    # Found: "New run" from the palette pushed a second form over one that may have a run under way.
    root = review_repo(tmp_path, monkeypatch)
    app = make_review_app(root)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False), "the cases view loads")
        await app.new_run()
        await wait_until(pilot, lambda: isinstance(app.screen, NewRunScreen), "the new-run form")
        form = app.screen
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, CasesScreen)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await search_palette(pilot, "new run")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, NewRunScreen), "the new-run form")
        assert app.screen is form
        assert sum(isinstance(s, NewRunScreen) for s in app.screen_stack) == 1


async def test_a_case_set_the_loader_trips_on_is_reported_not_a_crash(repo, monkeypatch):
    # Found: a snapshot.json holding a JSON list made the case loader raise in the cases view's
    # worker, which closed the whole app. The loader's bug is its own; the view now says what failed.
    from reviewtui.tui.screens import cases as cases_module

    real = cases_module.load_case_set
    calls = []

    def failing_once(root):
        calls.append(root)
        if len(calls) == 1:
            raise AttributeError("'list' object has no attribute 'get'")
        return real(root)

    monkeypatch.setattr(cases_module, "load_case_set", failing_once)
    app = make_app(repo)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, CasesScreen)
        text = screen_text(app)
        assert "could not load the cases: AttributeError: 'list' object has no attribute 'get'" in text
        assert "press r to load again" in text
        await pilot.press("r")
        await settle(pilot)
        assert app.screen.loaded and len(app.screen.rows) == 3
        assert "could not load" not in screen_text(app)

