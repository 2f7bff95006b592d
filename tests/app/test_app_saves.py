"""Pilot tests: the app never drops a senior's work (issue: races, crashes and quits in the authoring saves)."""

from __future__ import annotations

import pytest
from reviewtui.caseset import disputes
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.dialogs import ConfirmModal
from reviewtui.tui.screens.dispute import DisputeModal
from reviewtui.tui.screens.run_list import RunsScreen
from reviewtui.tui.screens.tag import TagModal
from reviewtui.tui.textual_private import screen_stacks

from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, settle
from tests.app.test_app_authoring import BRAND_SENTENCE, CASE, SEARCH_TERMS_SENTENCE, go_to_sentence, type_text

OTHER = "c02-garden-clean"


async def delete_first_entry(pilot, screen: AuthorScreen) -> None:
    screen.query_one("#expectations").focus()
    await pilot.press("down", "delete")
    assert screen.dirty


async def form_on_sentence(pilot, sentence: str, key: str):
    """Open the case, move to ``sentence`` and press ``key`` (1 / 2 / 3 tag, d dispute): (author screen, form)."""
    screen = await open_case(pilot, CASE)
    await go_to_sentence(pilot, screen, sentence)
    await pilot.press(key)
    await pilot.pause()
    return screen, pilot.app.screen


async def fill_dispute(pilot) -> None:
    await type_text(pilot, "brand spent 249.00")
    await pilot.press("tab")
    await type_text(pilot, "/daily/0")  # no row marked: the row the dispute cites, typed
    await pilot.press("tab")
    await type_text(pilot, "no plan in the snapshot")
    await pilot.press("enter")
    await pilot.pause()


def author_screens(app) -> list[AuthorScreen]:
    return [s for stack in screen_stacks(app).values() for s in stack if isinstance(s, AuthorScreen)]


@pytest.mark.slow
async def test_opening_an_open_case_shows_it_and_keeps_its_edits(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await delete_first_entry(pilot, screen)
        app.open_case(CASE)  # the palette's "Open case", on the open case itself
        await settle(pilot)
        assert app.screen is screen and screen.dirty
        await pilot.press("f3")  # the runs view, where a case review's `e` opens the case
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        app.open_case(CASE)
        await settle(pilot)
        assert app.screen is screen and screen.dirty and app.current_mode == "cases"
        assert author_screens(app) == [screen]
        # A case under another open case: a clean one above it goes, an unsaved one stays.
        app.open_case(OTHER)
        await settle(pilot)
        other = app.screen
        assert isinstance(other, AuthorScreen) and other is not screen
        app.open_case(CASE)
        await settle(pilot)
        assert app.screen is screen and author_screens(app) == [screen]
        app.open_case(OTHER)
        await settle(pilot)
        other = app.screen
        await delete_first_entry(pilot, other)
        app.open_case(CASE)
        await settle(pilot)
        assert app.screen is other and other.dirty and screen.dirty
    assert app.return_code in (None, 0) and app._exception is None


@pytest.mark.slow
async def test_reload_or_keep_both_of_a_file_made_invalid_keeps_everything(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await delete_first_entry(pilot, screen)
        mine = screen.case.doc.dump()
        expected.write_text("case: [unclosed\n")
        for choice in ("r", "k"):
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmModal)
            await pilot.press(choice)
            await settle(pilot)
            assert app.screen is screen and screen.dirty and screen.case.doc.dump() == mine
            assert any("does not parse" in (n.title or "") for n in app._notifications)
        assert expected.read_text() == "case: [unclosed\n"
    assert app._exception is None
    assert (repo / "cases" / CASE / "expected.yaml.mine").read_text() == mine


@pytest.mark.slow
async def test_a_dispute_that_cannot_be_written_keeps_its_form_and_text(repo):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    disputed.chmod(0o444)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen, modal = await form_on_sentence(pilot, BRAND_SENTENCE, "d")
        assert isinstance(modal, DisputeModal)
        await fill_dispute(pilot)
        assert app.screen is modal
        assert "read-only" in str(modal.query_one("#dispute-error").render())
        assert modal.query_one("#dispute-rows-show").value == "brand spent 249.00"
        assert modal.query_one("#dispute-why").value == "no plan in the snapshot"
        assert disputed.read_text() == before
        disputed.chmod(0o644)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
    assert disputes.load(disputed).by_id("D-wu01-2").fields["Why it stays out"] == "no plan in the snapshot"


@pytest.mark.slow
async def test_quitting_with_a_filled_form_asks_first(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        _screen, form = await form_on_sentence(pilot, SEARCH_TERMS_SENTENCE, "1")
        assert isinstance(form, TagModal) and not form.has_typed_text
        await type_text(pilot, "waste.zero")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert "tag form has typed text" in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is form and form.query_one("#tag-kind").value == "waste.zero"
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.slow
async def test_quitting_with_a_form_opened_but_not_typed_in_does_not_ask(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        _screen, form = await form_on_sentence(pilot, SEARCH_TERMS_SENTENCE, "1")
        assert isinstance(form, TagModal)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0
