"""Pilot tests of the app on real files in a temporary copy of tests/fixtures/app."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from reviewtui.caseset import disputes
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.cases import CasesScreen
from reviewtui.tui.screens.dialogs import ConfirmModal
from reviewtui.tui.screens.dispute import DisputeModal
from reviewtui.tui.screens.help import HelpScreen
from reviewtui.tui.screens.tag import TagModal
from reviewtui.tui.widgets.writeup_view import WriteupView

from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, search_palette, settle, wait_until

CASE = "c01-shoes-tracking"
SEARCH_TERMS_SENTENCE = 'Search terms such as "free shoes" wasted 166.50 with no conversions.'
BRAND_SENTENCE = "Brand search (111) spent 1,234.50 more than planned."


async def go_to_sentence(pilot, screen: AuthorScreen, text: str) -> None:
    view = screen.query_one(WriteupView)
    view.focus()
    await pilot.press("home")
    for _ in range(len(screen.writeup.sentences)):
        if view.sentence.text == text:
            return
        await pilot.press("down")
    raise AssertionError(f"sentence not found: {text}")


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])


@pytest.mark.slow
async def test_cases_view_shows_counts_status_and_filters(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CasesScreen)
        rows = {r.case_id: r for r in screen.rows}
        assert rows[CASE].counts == (1, 0, 1) and rows[CASE].ok
        assert rows["c03-bikes-broken"].status().plain.startswith("✗ 1  expected.yaml:6: must_find[0]: row '/daily/400'")
        await pilot.press("s")  # status filter: problems only (errors or warnings, as reviewtui check has them)
        assert [r.case_id for r in screen.visible_rows()] == ["c02-garden-clean", "c03-bikes-broken"]
        await pilot.press("s", "k", "k")  # status ok, kind: ordinary then broken_data
        assert screen.visible_rows() == []
        await pilot.press("s", "k", "k", "k")  # status all; kind clean, trap, all
        assert len(screen.visible_rows()) == 3


@pytest.mark.slow
async def test_tagging_a_sentence_and_marked_rows_writes_the_entry(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    before = expected.read_text()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await go_to_sentence(pilot, screen, SEARCH_TERMS_SENTENCE)
        await pilot.press("t")  # the snapshot table (daily tab)
        await pilot.press("down", "down", "down", "space", "space")  # mark /daily/3 and /daily/4
        assert screen.panel.marked_rows() == ["/daily/3", "/daily/4"]
        await pilot.press("2")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, TagModal)
        await type_text(pilot, "waste.zero_conv_search_terms")
        modal.query_one("#tag-scope").focus()
        await pilot.press("enter", "down", "down", "enter")  # open the scope list, pick 222
        await settle(pilot)
        assert modal.query_one("#tag-scope").value == "222"
        assert "supported by the rows" in str(modal.query_one("#tag-support").render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert screen.dirty and "unsaved" in str(screen.query_one("#author-title").render())
        assert screen.panel.marks == set()
        assert screen.session.entry("may_find", 0) == {  # the form's draft reached the session
            "id": "waste.zero_conv_search_terms@222", "evidence": SEARCH_TERMS_SENTENCE,
            "rows": ["/daily/3", "/daily/4"], "claim": SEARCH_TERMS_SENTENCE,
        }
        assert expected.read_text() == before  # saved only on ctrl+s (the lines it writes: test_authoring_session.py)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not screen.dirty
    assert "  - id: waste.zero_conv_search_terms@222" in expected.read_text()


@pytest.mark.slow
async def test_a_dispute_takes_the_sentence_and_the_marked_rows_and_a_reopen_unmarks_a_sentence(repo):
    """The keys reach the session (tests/unit/test_authoring_session.py has what disputed.md then holds)."""
    disputed = repo / "disputed.md"
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await go_to_sentence(pilot, screen, BRAND_SENTENCE)
        await pilot.press("t", "space", "space")  # mark /daily/0 and /daily/1
        await pilot.pause()
        assert "2 rows marked" in str(screen.query_one("#author-title").render())
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DisputeModal)
        await type_text(pilot, "brand spent 249.00 on 2025-03-01")
        await pilot.press("tab", "tab")
        await type_text(pilot, "no plan in the snapshot")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        view = screen.query_one(WriteupView)
        assert view.sentence.index in view.disputed
        assert screen.panel.marks == set() and "marked" not in str(screen.query_one("#author-title").render())
        entry = disputes.load(disputed).by_id("D-wu01-2")
        assert entry is not None and entry.quote == BRAND_SENTENCE and entry.rows == ["/daily/0", "/daily/1"]
        assert entry.case == CASE and entry.fields["Rows show"] == "brand spent 249.00 on 2025-03-01"
        # d on a disputed sentence asks, and o reopens it
        await go_to_sentence(pilot, screen, "The account overspends by 40%.")
        assert view.sentence.index in view.disputed
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("o")
        await pilot.pause()
        assert view.sentence.index not in view.disputed
    assert disputes.load(disputed).by_id("D-wu01-1") is None


@pytest.mark.slow
async def test_the_external_change_dialog_keep_both_and_reload(repo):
    """The dialog's answers reach the session and the screen shows the file on disk after each
    (each answer's effect on the files: tests/unit/test_authoring_session.py)."""
    expected = repo / "cases" / CASE / "expected.yaml"
    app = make_app(repo)
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()
        await pilot.press("down", "delete")  # focus selects the must_find entry; delete the must_not_say one
        assert screen.case.must_not_say == []
        theirs = expected.read_text().replace("kind: ordinary", "kind: trap  # changed by a colleague")
        expected.write_text(theirs)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert expected.read_text() == theirs  # not overwritten
        buttons = next(line for line in screen_text(app).splitlines() if "Reload theirs" in line)
        for label in ("Reload theirs (drop mine)", "Keep both", "Cancel"):  # all three fit at 180 columns
            assert label in buttons
        await pilot.press("k")
        await pilot.pause()
        assert app.screen is screen and not screen.dirty
        assert screen.case.kind == "trap" and "[trap]" in str(screen.query_one("#author-title").render())
        assert (repo / "cases" / CASE / "expected.yaml.mine").is_file()
        screen.query_one("#expectations").focus()
        await pilot.press("down", "delete")
        assert len(screen.case.expectations()) == 1 and screen.dirty
        expected.write_text(expected.read_text() + "# touched\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is screen and not screen.dirty
        assert [e.id for e in screen.case.expectations()] == ["tracking.conversions_stopped@222", "pacing.overspend"]
    assert expected.read_text() == theirs + "# touched\n"


@pytest.mark.slow
async def test_undo_and_redo_keys_across_a_delete_and_a_dispute(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    disputed = repo / "disputed.md"
    original, original_disputes = expected.read_text(), disputed.read_text()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()
        await pilot.press("delete")  # focus selected the first entry
        assert screen.case.must_find == [] and screen.dirty
        await go_to_sentence(pilot, screen, BRAND_SENTENCE)
        await pilot.press("t", "space", "d")  # a dispute cites at least one row: /daily/0
        await pilot.pause()
        await type_text(pilot, "brand spent 249.00 on 2025-03-01")
        await pilot.press("tab", "tab")
        await type_text(pilot, "no plan in the snapshot")
        await pilot.press("enter")
        await pilot.pause()
        with_dispute = disputed.read_text()
        view = screen.query_one(WriteupView)
        assert view.sentence.index in view.disputed
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert disputed.read_text() == original_disputes and view.sentence.index not in view.disputed
        await pilot.press("ctrl+z")
        assert [e.id for e in screen.case.must_find] == ["tracking.conversions_stopped@222"]
        assert not screen.dirty
        await pilot.press("ctrl+y")
        assert screen.case.must_find == []
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert disputed.read_text() == with_dispute and view.sentence.index in view.disputed
        await pilot.press("ctrl+z", "ctrl+z", "ctrl+s")
        await pilot.pause()
    assert expected.read_text() == original and disputed.read_text() == original_disputes


@pytest.mark.slow
async def test_leaving_with_unsaved_changes_asks_first(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    original = expected.read_text()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()
        await pilot.press("delete", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("c")  # cancel: stay
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("d")  # discard and leave
        await pilot.pause()
        assert isinstance(app.screen, CasesScreen)
    assert expected.read_text() == original


@pytest.mark.slow
async def test_quitting_with_unsaved_changes_can_save_first(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()
        await pilot.press("delete", "ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("s")
        await pilot.pause()
    assert app.return_code == 0
    assert "tracking.conversions_stopped" not in expected.read_text()


@pytest.mark.slow
async def test_live_validation_reports_bad_rows_and_unsupported_must_find(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c03-bikes-broken")
        assert "row '/daily/400' does not resolve" in str(screen.query_one("#problems").render())
        # Tag a must_find the (stand-in) auditor does not support, with a duplicate-free id.
        await pilot.press("1")
        await pilot.pause()
        await type_text(pilot, "pacing.underspend")
        app.screen.query_one("#tag-evidence").focus()
        await type_text(pilot, "spend below schedule")
        await pilot.press("ctrl+s")
        await settle(pilot)
        text = str(screen.query_one("#problems").render())
        assert "must_find[1]: the rows do not support pacing.underspend" in text
        assert "row '/daily/400' does not resolve" in text


async def must_not_say_form(pilot, kind: str):
    """Open the case, press 3 and type ``kind``: (author screen, tag form)."""
    screen = await open_case(pilot, CASE)
    await pilot.press("3")
    await pilot.pause()
    await type_text(pilot, kind)
    return screen, pilot.app.screen


@pytest.mark.slow
async def test_tag_modal_refuses_unknown_kind_and_duplicate_id(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen, modal = await must_not_say_form(pilot, "pacing.overspent")
        await pilot.press("ctrl+s")
        assert "unknown finding kind 'pacing.overspent'" in str(modal.query_one("#tag-error").render())
        await pilot.press("backspace", "d")  # pacing.overspend: already a must_not_say entry
        await pilot.press("ctrl+s")
        assert "already an entry" in str(modal.query_one("#tag-error").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and not screen.dirty


@pytest.mark.slow
async def test_editing_an_entry_moves_it_to_another_list(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()
        await pilot.press("e")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, TagModal)
        assert modal.query_one("#tag-rows").value == "/daily/17, /daily/19"
        modal.query_one("#tag-list").focus()
        await pilot.press("enter", "down", "enter")  # must_find -> may_find
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.case.must_find == []
        moved = screen.case.may_find[0]
        assert moved.id == "tracking.conversions_stopped@222" and moved.rows == ["/daily/17", "/daily/19"]
        assert moved.claim and moved.claim.startswith("Purchase conversions")


@pytest.mark.slow
async def test_selecting_an_entry_highlights_its_rows_and_sentence(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        screen.query_one("#expectations").focus()  # selects the first entry
        await wait_until(pilot, lambda: screen.panel.highlights == {"/daily/17", "/daily/19"}, "the entry's rows are lit")
        assert screen.panel.active_table.current_pointer == "/daily/17"
        assert screen.query_one(WriteupView).sentence.text.startswith("Purchase conversions in campaign 222")


@pytest.mark.slow
async def test_palette_jumps_to_a_row_by_pointer(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        await search_palette(pilot, "/search_terms/1")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert screen.panel.active_table.current_pointer == "/search_terms/1"


@pytest.mark.slow
async def test_help_lists_the_keys_of_every_region(repo):
    app = make_app(repo)
    async with app.run_test(size=(140, 150)) as pilot:  # tall enough to show every key at once
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for words in ("Tag must_find", "Dispute / reopen", "Mark + down", "Open case", "Undo", "Kind filter"):
            assert words in text
        # The keys a region answers through Textual or its table, listed too; the ones for everywhere first.
        lines = [" ".join(line.strip("█▌▐ ").split()) for line in text.splitlines()]
        assert lines.index("Everywhere") < lines.index("Author screen")
        for line in ("^p Palette: open a case, a run, a row; new run or case",
                     "tab, shift+tab Next / previous region or field", "f4 Weekly", "home, end First / last case",
                     "⏎ Open the run", "⏎ Review the case", "tab Switch sides"):
            assert line in lines, line


@pytest.mark.slow
async def test_tag_modal_refuses_a_says_pattern_check_would_reject(repo):
    """One rule for `says` patterns: the form refuses, with check's own words, what check would report as an
    error blocking the eval; a pattern check accepts is added."""
    from reviewtui.caseset.cases import validate_case
    from reviewtui.files.untrusted import says_problem

    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen, modal = await must_not_say_form(pilot, "pacing.underspend")
        modal.query_one("#tag-evidence").value = "spend to date is on the budget schedule"
        says = modal.query_one("#tag-says")
        says.value = '["under-?pac", "underspen(?=d)"]'
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is modal
        refused = says_problem("underspen(?=d)")
        assert refused is not None and "lookaround" in refused
        assert str(modal.query_one("#tag-error").render()) == f"{refused}; reviewtui check would reject it"
        says.value = '["under-?pac", "underspend"]'
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert screen.case.must_not_say[-1].says == ["under-?pac", "underspend"]
        assert [p for p in validate_case(screen.case) if "says" in p.message] == []
