"""The runs view, the run view, the case review, re-scoring and the compare view, on fixed run files."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from textual.widgets import DataTable, OptionList, TextArea

from reviewtui.caseset.cases import load_case_set
from reviewtui.runs.manifest import read_manifest
from reviewtui.runs.stored_runs import rescore_run
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.case_review import CaseReviewScreen
from reviewtui.tui.screens.raw_output import RawOutputScreen
from reviewtui.tui.screens.compare import CompareScreen
from reviewtui.tui.screens.run_review import RunScreen
from reviewtui.tui.widgets.review.case_table import ReviewCaseTable
from reviewtui.tui.widgets.review.diff_table import CaseDiffTable
from reviewtui.tui.widgets.review.finding_text import FABRICATED_STYLE, GROUNDED_STYLE
from reviewtui.tui.widgets.review.missed_ids import MissedIdsPanel
from tests.app.apphelpers import open_runs_view
from tests.app.review_fixture import SIZE, CountingStubBackend, make_review_app, review_repo, wait_until


@pytest.fixture
def root(tmp_path, monkeypatch):
    return review_repo(tmp_path, monkeypatch)


def text_of(widget) -> str:
    """The plain text a Static shows (Rich renderables rendered wide, so nothing wraps)."""
    console = Console(width=300, record=True, color_system=None, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()



async def open_run(pilot, version: str) -> RunScreen:
    runs = await open_runs_view(pilot)
    runs.query_one(DataTable).move_cursor(row=[r.prompt_version for r in runs.runs].index(version))
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunScreen)
    return pilot.app.screen


async def review_case(pilot, run: RunScreen, case_id: str) -> CaseReviewScreen:
    run.query_one(ReviewCaseTable).select_case(case_id)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CaseReviewScreen)
    return pilot.app.screen


def options(screen: CaseReviewScreen, which: str) -> list:
    widget = screen.query_one(f"#review-{which}", OptionList)
    return [widget.get_option_at_index(i) for i in range(widget.option_count)]


def styles_at(text, fragment: str) -> set[str]:
    start = text.plain.index(fragment)
    return {str(span.style) for span in text.spans if span.start <= start and span.end >= start + len(fragment)}


@pytest.mark.slow
async def test_runs_view_lists_every_run_newest_first(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs_view(pilot)
        assert [r.prompt_version for r in screen.runs] == ["audit-t2", "audit-t1"]
        table = screen.query_one(DataTable)
        first = [str(cell) for cell in table.get_row_at(0)]
        assert first[1:6] == ["audit-t2", "audit-t2", "FAIL", "0.600", "0.800"]
        assert first[8:] == ["2025-03-21 10:30", "replay", "claude-sonnet-5-5", "ab12cd34"]


@pytest.mark.slow
async def test_run_view_header_missed_ids_and_case_table(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        header = text_of(run.query_one("#run-header"))
        assert "FAIL" in header and "recall 0.500 (gate ≥ 0.90)" in header and "fabrications 2 (gate ≤ 0)" in header
        assert "mean recall 0.500 is below 0.90" in header
        missed = text_of(run.query_one(MissedIdsPanel))
        assert "tracking.conversions_stopped missed in 2 cases" in missed  # the core's pattern sentence
        assert "2 tracking.conversions_stopped" in missed and "@333: c01-tracking, c02-search-waste" in missed
        assert "1 bidding.learning_period" in missed
        assert "The case set changed since this run was scored" in text_of(run.query_one("#run-stale"))

        table = run.query_one(ReviewCaseTable)
        assert table.shown_case_ids == ["c01-tracking", "c02-search-waste", "c03-duplicates", "c04-healthy",
                                        "c05-learning-trap"]
        await pilot.press("f")
        assert table.shown_case_ids == ["c01-tracking", "c02-search-waste", "c05-learning-trap"]
        await pilot.press("s")  # sort by recall, worst first
        assert table.sort_by == "recall"
        assert table.shown_case_ids == ["c01-tracking", "c05-learning-trap", "c02-search-waste"]
        await pilot.press("s")  # precision
        assert table.shown_case_ids == ["c05-learning-trap", "c02-search-waste", "c01-tracking"]
        await pilot.press("s")  # fabrication, most first
        assert table.shown_case_ids[:2] == ["c01-tracking", "c05-learning-trap"]
        assert "3 failing cases, sorted by fabrication" in text_of(run.query_one("#run-table-title"))


@pytest.mark.slow
async def test_case_review_marks_expectations_findings_and_fabricated_figures(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        expected = "\n".join(str(o.prompt) for o in options(screen, "expected"))
        assert "✗ missed tracking.conversions_stopped@333" in expected
        assert "✓ returned concentration.spend_single_campaign@333" in expected
        assert "✓ not said pacing.overspend" in expected

        returned = options(screen, "returned")
        finding = returned[0].prompt
        assert "may_find" in finding.plain and "concentration.spend_single_campaign@333" in finding.plain
        assert FABRICATED_STYLE in styles_at(finding, "$48,213.77")  # highlighted in place
        assert GROUNDED_STYLE in styles_at(finding, "68%")
        lines = [o.prompt.plain for o in returned[1:]]
        assert "✗ $48,213.77  fabricated: no snapshot or derived value within 0.005" in [line.strip() for line in lines]
        assert any(line.strip().startswith("✓ 3,141.50  grounded: snapshot value /daily/9/cost") for line in lines)


@pytest.mark.slow
async def test_n_and_p_step_through_failing_cases_and_r_shows_the_raw_output(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        await pilot.press("n")
        assert screen.result.case_id == "c02-search-waste"
        await pilot.press("n")
        assert screen.result.case_id == "c05-learning-trap"
        assert "✗ said tracking.conversions_stopped@111" in "\n".join(str(o.prompt) for o in options(screen, "expected"))
        await pilot.press("n")  # the last failing case: stays
        assert screen.result.case_id == "c05-learning-trap"
        await pilot.press("p")
        assert screen.result.case_id == "c02-search-waste"
        await pilot.press("r")
        assert isinstance(app.screen, RawOutputScreen)
        stored = json.loads((root / "results/audit-t1/cases/c02-search-waste.json").read_text())
        assert app.screen.query_one(TextArea).text == stored["output"]["raw_text"]
        await pilot.press("escape")
        assert app.screen is screen


@pytest.mark.slow
async def test_jump_from_evidence_and_from_a_grounded_figure_to_the_snapshot_rows(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        expected = screen.query_one("#review-expected", OptionList)
        expected.focus()
        expected.highlighted = [o.id for o in options(screen, "expected")].index("exp:must_find:0")
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        author = app.screen
        assert isinstance(author, AuthorScreen) and author.case.case_id == "c01-tracking"
        await wait_until(pilot, lambda: author.panel is not None, "the snapshot loads")
        await pilot.pause()
        assert author.panel.highlights == {"/daily/7", "/daily/9"}
        assert author.panel.active_table.current_pointer == "/daily/7"

        await pilot.press("escape")
        assert app.screen is screen
        returned = screen.query_one("#review-returned", OptionList)
        returned.focus()
        ids = [o.id for o in options(screen, "returned")]
        fabricated = ids[[o.prompt.plain.strip().startswith("✗") for o in options(screen, "returned")].index(True)]
        returned.highlighted = ids.index(fabricated)
        await pilot.press("enter")
        assert app.screen is screen  # a fabricated figure has no rows to show
        grounded = next(o.id for o in options(screen, "returned") if "3,141.50  grounded" in o.prompt.plain)
        returned.highlighted = ids.index(grounded)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        author = app.screen
        assert isinstance(author, AuthorScreen)
        await wait_until(pilot, lambda: author.panel is not None, "the snapshot loads")
        await pilot.pause()
        assert author.panel.highlights == {"/daily/9"}
        assert author.panel.active_table.current_pointer == "/daily/9"


@pytest.mark.slow
async def test_fix_in_the_author_screen_then_rescore_changes_the_scores_without_a_backend_call(root):
    rescore_run(root / "results/audit-t1", load_case_set(root / "cases"))  # the real scorer's scores first
    backend = CountingStubBackend()
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        assert screen.result.score.recall == 0.0
        await pilot.press("e")
        await pilot.app.workers.wait_for_complete()
        author = app.screen
        assert isinstance(author, AuthorScreen)
        # The senior decides the stopped tracking is a may_find here, and saves.
        entry = author.case.doc.entry("must_find", 0)
        author.history.replace("must_find", 0, entry, new_list="may_find")
        author.after_edit()
        assert author.save()
        await pilot.press("escape")
        assert app.screen is screen
        expected = [str(o.prompt) for o in options(screen, "expected")]
        assert expected[0] == "must_find (0)"  # the review shows the case as saved
        assert "· not returned tracking.conversions_stopped@333" in "\n".join(expected)

        await pilot.press("R")
        await wait_until(pilot, lambda: run.changes, "the re-score lands")
        await pilot.pause()
        assert backend.total_calls == 0  # stored outputs only
        change = run.changes["c01-tracking"]
        assert (change.recall_before, change.recall_after) == (0.0, 1.0)
        # Moved to may_find, the id is no longer missed; the model did not find it either.
        assert change.newly_found == [] and change.no_longer_must_find == ["tracking.conversions_stopped@333"]
        found_cell = str(run.query_one(CaseDiffTable).get_row("c01-tracking")[5])
        assert found_cell == "tracking.conversions_stopped@333 (no longer must_find)"
        assert [d.case_id for d in run.changes.values() if d.changed] == ["c01-tracking"]
        assert run.run.records["c01-tracking"].recall == 1.0
        manifest = read_manifest(root / "results/audit-t1/manifest.json")
        assert manifest["missed_by_kind"]["tracking.conversions_stopped"]["cases"] == 1
        changes_line = text_of(run.query_one("#run-changes-line"))
        assert "1 of 5 cases changed" in changes_line and "no API call" in changes_line
        assert run.query_one(CaseDiffTable).shown[0].case_id == "c01-tracking"
        assert screen.result.score.recall == 1.0  # the open case review shows the new score
        assert "c01-tracking *" in str(run.query_one(ReviewCaseTable).get_row_at(0)[0])


@pytest.mark.slow
async def test_compare_two_runs_shows_deltas_newly_missed_found_and_fabrications(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        runs = await open_runs_view(pilot)
        runs.query_one(DataTable).move_cursor(row=1)  # audit-t1
        await pilot.press("space")
        runs.query_one(DataTable).move_cursor(row=0)  # audit-t2
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        comparison = screen.comparison
        assert (comparison.before.prompt_version, comparison.after.prompt_version) == ("audit-t1", "audit-t2")
        header = text_of(screen.query_one("#compare-header"))
        assert "mean recall +0.100" in header and "fabrications 2 → 0" in header
        table = screen.query_one(CaseDiffTable)
        by_case = {d.case_id: d for d in table.shown}
        assert set(by_case) == {"c01-tracking", "c02-search-waste", "c03-duplicates", "c05-learning-trap"}
        assert by_case["c01-tracking"].newly_found == ["tracking.conversions_stopped@333"]
        assert by_case["c01-tracking"].fabrications_removed == ['figure "$48,213.77"']
        assert by_case["c03-duplicates"].newly_missed == ["data.duplicate_rows"]
        assert by_case["c03-duplicates"].status_after == "unparseable"
        cells = [str(c) for c in table.get_row("c01-tracking")]
        assert cells[1] == "0.00→1.00 +1.00"
        await pilot.press("a")
        assert len(table.shown) == 5  # unchanged c04 too


@pytest.mark.slow
async def test_a_narrow_terminal_keeps_room_for_the_run_views_case_table(tmp_path, monkeypatch):
    from tests.app.review_fixture import make_review_app, review_repo

    app = make_review_app(review_repo(tmp_path, monkeypatch))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f3", "down", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        side = app.screen.query_one("#run-side")
        assert side.size.width <= 40  # at most 40% of the width, not a fixed 48 columns


async def test_help_stays_in_the_footer_of_the_runs_views_at_80_columns(root):
    """At 80x24 every screen of a review keeps ? Help on its footer (the case review with shorter labels)."""
    from tests.app.apphelpers import screen_text

    app = make_review_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        run = await open_run(pilot, "audit-t1")
        assert "? Help" in screen_text(app).splitlines()[-1]
        await review_case(pilot, run, "c01-tracking")
        await pilot.pause()
        line = screen_text(app).splitlines()[-1]
        assert "? Help" in line and "n Next" in line and "R Re-score" in line, line
