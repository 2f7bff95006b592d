"""The command palette's entries for the views and the runs, driven as a user does: ctrl+p, type, enter."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from reviewtui.tui.screens.cases import CasesScreen
from reviewtui.tui.screens.compare import CompareScreen
from reviewtui.tui.screens.new_run import NewRunScreen
from reviewtui.tui.screens.run_review import RunScreen
from reviewtui.tui.screens.run_list import RunsScreen
from tests.app.apphelpers import make_review_app, search_palette, wait_until
from tests.app.review_fixture import SIZE, review_repo


@pytest.fixture
def root(tmp_path, monkeypatch):
    return review_repo(tmp_path, monkeypatch)


async def palette(pilot, text: str) -> None:
    """Open the palette (unless it is open), type ``text``, let the search run, press enter."""
    if not isinstance(pilot.app.screen, CommandPalette):
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the palette opens")
    await search_palette(pilot, text)
    await pilot.press("enter")
    await pilot.pause()


async def started(pilot) -> None:
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "loaded", False), "the cases view loads")


@pytest.mark.slow
async def test_palette_switches_between_the_runs_view_and_the_cases_view(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "runs view")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs view")
        assert app.current_mode == "runs"
        await palette(pilot, "cases view")
        await wait_until(pilot, lambda: isinstance(app.screen, CasesScreen), "the cases view")
        assert app.current_mode == "cases"


@pytest.mark.slow
async def test_palette_opens_a_run_by_prompt_version(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "open run audit-t1")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run view")
        assert app.screen.run_dir.name == "audit-t1" and app.current_mode == "runs"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)  # back lands on the runs view


@pytest.mark.slow
async def test_palette_compares_a_run_with_a_second_run_picked_next(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "compare run audit-t2")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette asks for the second run")
        prompt = app.screen.query_one("#--input Input")
        assert prompt.placeholder == "Compare audit-t2 with which run?"
        await palette(pilot, "audit-t1")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare view")
        comparison = app.screen.comparison
        assert (comparison.before.prompt_version, comparison.after.prompt_version) == ("audit-t1", "audit-t2")


@pytest.mark.slow
async def test_the_second_run_list_leaves_out_the_first(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "compare run audit-t1")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette asks for the second run")
        await app.workers.wait_for_complete()
        from textual.widgets import OptionList

        await wait_until(pilot, lambda: app.screen.query_one(OptionList).option_count > 0, "the runs are listed")

        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("audit-t2" in s for s in shown) and not any("audit-t1" in s for s in shown)


@pytest.mark.slow
async def test_palette_starts_a_new_run(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "new run")
        await wait_until(pilot, lambda: isinstance(app.screen, NewRunScreen), "the new-run form")
        assert app.current_mode == "runs"


@pytest.mark.slow
async def test_textuals_own_notices_show_no_markup(root):
    """The app shows every notice as plain text; Textual's own two, ctrl+c's hint and the Screenshot
    command's, are written in markup and once showed `[b]` and `[$text-success]` as such."""
    app = make_review_app(root)
    app.NOTIFICATION_TIMEOUT = 600  # on a loaded machine the first notice expired before the second came
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        await palette(pilot, "screenshot")
        await wait_until(pilot, lambda: len(app._notifications) == 2, "two notices")
        said = [(n.title, n.message) for n in app._notifications]
        assert said[0] == ("Do you want to quit?", "Press ctrl+q to quit the app")
        assert said[1][0] == "Screenshot" and said[1][1].startswith("Saved screenshot to ")
        assert not any("[" in message for _title, message in said)
        assert list(root.glob("*.svg"))
