"""From a case review: enter scrolls the author screen's table to the row; f3 goes to the runs view;
enter in the compare view opens that case's review."""

from __future__ import annotations

import json

import pytest
from textual.widgets import OptionList

from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.case_review import CaseReviewScreen
from reviewtui.tui.screens.run_list import RunsScreen
from tests.app.apphelpers import open_runs_view
from tests.app.review_fixture import SIZE, make_review_app, review_repo, snapshot, wait_until
from tests.app.test_review_views import open_run, options, review_case

ROW = 301  # far below the first screenful of rows


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch)
    case = root / "cases" / "c01-tracking"
    (case / "snapshot.json").write_text(json.dumps(snapshot(days=200), indent=2), encoding="utf-8")
    expected = case / "expected.yaml"
    # the may_find entry's row, far down; opening the case selects the first entry (must_find, /daily/7) on its own
    expected.write_text(expected.read_text().replace(
        "evidence: Campaign 333 takes most of the spend\n",
        f"evidence: Campaign 333 takes most of the spend\n    rows: [/daily/{ROW}]\n"))
    return root


@pytest.mark.slow
async def test_enter_on_an_expectation_scrolls_the_table_to_its_row_centred(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        expected = screen.query_one("#review-expected", OptionList)
        expected.focus()
        expected.highlighted = next(i for i, o in enumerate(options(screen, "expected")) if o.id == "exp:may_find:0")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen) and app.screen.panel is not None, "author")
        author = app.screen
        await pilot.pause()
        await pilot.pause()
        table = author.panel.active_table
        assert table.current_pointer == f"/daily/{ROW}"
        shown = table.scrollable_content_region.height - 1  # the header row stays put
        top = round(table.scroll_y)
        assert top <= ROW < top + shown, (top, shown)
        assert abs((ROW - top) - shown // 2) <= 1  # centred


@pytest.mark.slow
async def test_a_run_with_a_corrupt_manifest_is_named_with_the_parse_error(root):
    (root / "results" / "audit-t1" / "manifest.json").write_text('{"prompt_version": "audit-t1",\n  "status": ', encoding="utf-8")
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        runs = await open_runs_view(pilot)
        assert [r.prompt_version for r in runs.runs] == ["audit-t2"]
        said = " ".join(str(runs.query_one("#runs-empty").render()).split())
        assert "Not listed:" in said and "manifest.json:2: the run manifest is not valid JSON" in said


@pytest.mark.slow
async def test_f3_from_a_case_review_goes_back_to_the_runs_view(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        await review_case(pilot, run, "c01-tracking")
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)


@pytest.mark.slow
async def test_f3_with_unsaved_edits_in_an_author_screen_asks_first(root):
    from reviewtui.tui.screens.dialogs import ConfirmModal

    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        review = await review_case(pilot, run, "c01-tracking")
        await pilot.press("e")
        await pilot.pause()
        author = app.screen
        assert isinstance(author, AuthorScreen)
        author.query_one("#expectations").focus()
        await pilot.press("delete")
        assert author.dirty
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("c")  # stay
        await pilot.pause()
        assert app.screen is author
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("d")  # discard and leave
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen), "back in the runs view")
        assert review not in app.screen_stack


@pytest.mark.slow
async def test_enter_in_the_compare_view_opens_the_case_review_in_the_after_run_and_b_in_the_before(root):
    from reviewtui.tui.screens.compare import CompareScreen
    from reviewtui.tui.widgets.review.diff_table import CaseDiffTable

    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await app.compare_runs("audit-t1", "audit-t2")
        await pilot.pause()
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        table = compare.query_one(CaseDiffTable)
        case_id = table.shown[0].case_id
        await pilot.press("enter")
        await pilot.pause()
        review = app.screen
        assert isinstance(review, CaseReviewScreen) and review.result.case_id == case_id
        after = json.loads((root / "results/audit-t2/cases" / f"{case_id}.json").read_text())
        assert review.result.score.recall == after["score"]["recall"]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        review = app.screen
        before = json.loads((root / "results/audit-t1/cases" / f"{case_id}.json").read_text())
        assert isinstance(review, CaseReviewScreen) and review.result.score.recall == before["score"]["recall"]
