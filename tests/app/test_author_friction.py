"""The author screen's friction from the walkthrough: modal footers, the first entry selected, dispute
form rules, the missing write-up named. The marks in the title and undoable disputes are in
test_app_authoring.py; what the session does to the files, in tests/unit/test_authoring_session.py."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from reviewtui.caseset import disputes
from reviewtui.tui.screens.dispute import DisputeModal
from reviewtui.tui.screens.tag import TagModal
from reviewtui.tui.widgets.writeup_view import WriteupView
from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, settle
from tests.app.test_app_authoring import BRAND_SENTENCE, CASE, go_to_sentence, type_text


def title(screen) -> str:
    return str(screen.query_one("#author-title", Static).render())


def footer_line(app) -> str:
    return screen_text(app).splitlines()[-1]


async def dispute_brand_sentence(pilot, screen, rows_show="brand spent 249.00 on 2025-03-01",
                                 why="no plan in the snapshot", rows: str | None = None) -> None:
    """``rows``: typed over the rows the form takes from the marks (/daily/0, /daily/1)."""
    await go_to_sentence(pilot, screen, BRAND_SENTENCE)
    await pilot.press("t", "space", "space", "d")  # mark /daily/0 and /daily/1, dispute the sentence
    await pilot.pause()
    await type_text(pilot, rows_show)
    await pilot.press("tab")
    if rows is not None:
        pilot.app.screen.query_one("#dispute-rows").value = rows
    await pilot.press("tab")
    await type_text(pilot, why)
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.slow
async def test_the_tag_and_dispute_modals_show_their_own_keys_in_the_footer(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await go_to_sentence(pilot, screen, BRAND_SENTENCE)
        await pilot.press("t", "1")
        await settle(pilot)
        assert isinstance(app.screen, TagModal)
        line = footer_line(app)
        assert "^s Save entry" in line and "esc Cancel" in line and "Sort column" not in line, line
        await pilot.press("escape")
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DisputeModal)
        line = footer_line(app)
        assert "^s Add to disputed.md" in line and "Sort column" not in line, line


@pytest.mark.slow
async def test_space_says_it_moves_down(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, CASE)
        await pilot.press("t")
        await settle(pilot)
        assert "space Mark + down" in footer_line(app)


async def test_help_stays_in_the_footer_at_80_columns_whatever_region_has_the_focus(repo):
    """At 80x24 the footer shows fewer, shorter keys (the rest are in ?), so ? Help is never cut off; at
    140 columns it shows them all, as before."""
    app = make_app(repo)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_case(pilot, CASE)
        for region in ("w", "t", "x"):
            await pilot.press(region)
            await settle(pilot)
            line = footer_line(app)
            assert "? Help" in line and "esc Back" in line, (region, line)
            if region == "t":
                assert "space Mark" in line and "Sort column" not in line and "Unmark all" not in line, line
        await pilot.press("t")
        await pilot.resize_terminal(140, 40)
        await settle(pilot)
        await settle(pilot)
        line = footer_line(app)
        assert "space Mark + down" in line and "s Sort column" in line and "Tag must/may/not" in line, line


@pytest.mark.slow
async def test_a_case_without_a_write_up_has_its_first_entry_selected_so_e_edits_it(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c02-garden-clean")
        assert screen.writeup is None and app.focused is screen.query_one("#expectations")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, TagModal) and app.screen.draft.id == "summary.no_material_issues"
        await pilot.press("escape")
        await pilot.press("t", "space", "3")  # tag from the rows alone: /daily/0
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, TagModal) and "rows alone" in screen_text(app)
        assert (modal.draft.list_name, modal.draft.rows, modal.draft.evidence, modal.draft.claim) == (
            "must_not_say", ["/daily/0"], "", None)


@pytest.mark.slow
async def test_a_missing_write_up_file_is_named_not_called_absent(repo):
    (repo / "writeups" / "wu01-shoes.md").unlink()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        text = " ".join(screen_text(app).replace("│", " ").split())
        assert "This case has no write-up." not in text
        assert "The write-up writeups/wu01-shoes.md named" in text and "is not found" in text
        assert "writeups/wu01-shoes.md" in title(screen)


@pytest.mark.slow
async def test_the_dispute_form_refuses_a_one_letter_reason(repo):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await dispute_brand_sentence(pilot, screen, why="x")
        assert isinstance(app.screen, DisputeModal)
        assert "why it stays out (at least 3 words)" in str(app.screen.query_one("#dispute-error", Static).render())
    assert disputed.read_text() == before


def test_a_sign_off_or_a_name_alone_is_not_a_claim():
    assert disputes.not_a_claim("Kind regards,  Tomás") is not None
    assert disputes.not_a_claim("Best wishes, Daniel") is not None
    assert disputes.not_a_claim("Priya Raman") is not None
    assert disputes.not_a_claim("Best campaign by far was Brand, at 8.1 ROAS.") is None
    assert disputes.not_a_claim("The account overspends by 40%.") is None


@pytest.mark.slow
async def test_d_on_the_sign_off_line_opens_no_dispute(repo):
    path = repo / "writeups" / "wu01-shoes.md"
    path.write_text(path.read_text() + "\nKind regards,  \nMargit\n")
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        view = screen.query_one(WriteupView)
        view.focus()
        await pilot.press("end")
        assert "regards" in view.sentence.text
        said: list[str] = []
        screen.notify = lambda message, **_: said.append(str(message))  # type: ignore[method-assign]
        await pilot.press("d")
        await pilot.pause()
        assert app.screen is screen
        assert said and "sign-off" in said[0]


@pytest.mark.slow
async def test_not_supported_reads_as_the_wanted_result_on_a_must_not_say_entry(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await go_to_sentence(pilot, screen, "The account overspends by 40%.")
        await pilot.press("3")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, TagModal)
        await type_text(pilot, "pacing.overspend")
        await settle(pilot)
        said = str(modal.query_one("#tag-support", Static).render())
        assert "not supported by the rows, as a must_not_say entry should be" in said
        assert "NOT supported" not in said


@pytest.mark.slow
async def test_the_cases_view_shows_the_warnings_reviewtui_check_shows(repo, capsys):
    from reviewtui.commands import check

    assert check.main(["--cases", str(repo / "cases")]) == 2
    said = capsys.readouterr().out
    assert "c02-garden-clean/expected.yaml:5: warning: must_find summary.no_material_issues" in said
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        rows = {r.case_id: r for r in screen.rows}
        status = rows["c02-garden-clean"].status().plain
        assert status.startswith("⚠ 1  expected.yaml:5: must_find summary.no_material_issues"), status
        header = str(screen.query_one("#cases-header", Static).render())
        assert "1 with errors" in header and "1 with warnings" in header and "all valid" not in header
        await pilot.press("s")  # problems
        assert "c02-garden-clean" in [r.case_id for r in screen.visible_rows()]
        await pilot.press("s")  # ok
        assert [r.case_id for r in screen.visible_rows()] == ["c01-shoes-tracking"]


@pytest.mark.parametrize(("rows", "refused"), [
    ("/daily/0, /daild/55", "disputed.md not changed: row /daild/55 does not resolve in snapshot.json"),
    # A dispute cites the rows that show what they show instead; with none it used to be written as
    # `**Rows:** (none)`, which check then let through and the write-up test tripped on.
    (" ", f"Fill in {disputes.ROWS_NEEDED}."),
])
@pytest.mark.slow
async def test_the_dispute_form_refuses_rows_that_cite_nothing(repo, rows, refused):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await dispute_brand_sentence(pilot, screen, rows=rows)
        assert isinstance(app.screen, DisputeModal)  # the form stays, with what was typed
        assert str(app.screen.query_one("#dispute-error", Static).render()).startswith(refused)
    assert disputed.read_text() == before


@pytest.mark.slow
async def test_a_date_filter_that_is_no_date_is_said_not_silently_ignored(repo):
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        await pilot.press("t", "f", "tab")  # the campaign filter, then "from"
        await type_text(pilot, "2025-13")
        await settle(pilot)
        status = str(screen.query_one("#snapshot-status", Static).render())
        assert "from '2025-13' is not a date: write YYYY-MM-DD, YYYY-MM or YYYY: not applied" in status
        table = screen.panel.active_table
        assert len(table.order) == len(table.section)  # nothing filtered, and the line says why
        for _ in range(2):
            await pilot.press("backspace")
        await type_text(pilot, "03-10")
        await settle(pilot)
        assert "not applied" not in str(screen.query_one("#snapshot-status", Static).render())
        assert 0 < len(table.order) < len(table.section)
        assert all(table.section.date_of(i) >= "2025-03-10" for i in table.order)


@pytest.mark.slow
async def test_the_write_ups_header_is_shown_line_by_line_and_cannot_be_tagged(repo):
    writeup = repo / "writeups" / "wu01-shoes.md"
    writeup.write_text(writeup.read_text(encoding="utf-8").replace(
        "# Shoes & Co: March audit\n", "# Shoes & Co: March audit\n\n**To:** Ana Ruiz, Shoes & Co  \n**Date:** 20 March 2025\n"),
        encoding="utf-8")
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, CASE)
        view = screen.query_one(WriteupView)
        view.focus()
        await pilot.press("home")
        assert view.sentence.text.startswith("Reviewed on 2025-03-19")  # the header is no sentence
        shown = screen_text(app)  # one field a line, the bold marks drawn as style
        assert "│To: Ana Ruiz, Shoes & Co│" in shown and "│Date: 20 March 2025│" in shown
        await pilot.press("1")
        await settle(pilot)
        assert "**" not in app.screen.query_one("#tag-claim").value


@pytest.mark.slow
async def test_an_80_by_24_terminal_shows_the_status_and_the_view_keys(repo):
    """At 80x24 the status column was past the right edge and the footer lost its view keys."""
    app = make_app(repo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        row = next(line for line in lines if line.strip().startswith("c03-bikes-broken"))
        assert "✗ 1" in row
        assert all(key in lines[-1] for key in ("? Help", "f2 Cases", "f3 Runs", "f4 Weekly", "^p palette"))
        await pilot.press("f3")
        await settle(pilot)
        header = next(line for line in screen_text(app).splitlines() if "prompt version" in line)
        assert "verdict" in header and "recall" in header
