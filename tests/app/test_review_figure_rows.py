"""From a figure grounded by a derived value, the case review jumps to the rows it was computed from."""

from __future__ import annotations

import json

import pytest
from textual.widgets import OptionList

from reviewtui.caseset.cases import load_case_set
from reviewtui.runs.stored_runs import load_run, rescore_run
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.case_review import CaseReviewScreen
from tests.app.review_fixture import SIZE, finding, make_review_app, raw, review_repo, wait_until
from tests.app.test_review_views import open_run, options, review_case, styles_at

# The fixture's snapshot: six days, campaign 111 at /daily/0, 2, ... 10 and campaign 333 at
# /daily/1, 3, ... 11, costing 520.25 + day. Campaign 333's cost over the period is
# 6 x 520.25 + 21 = 3,142.50: no single row holds it.
CAMPAIGN_333_ROWS = {f"/daily/{i}" for i in range(1, 12, 2)}
OUTPUT = [finding("concentration.spend_single_campaign", "333",
                  "Campaign 333 spent 3,142.50 this month and wasted $48,213.77.",
                  "Its daily cost rose from 521.25 on 2025-03-01.")]


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch, runs=("audit-t1",))
    path = root / "results/audit-t1/cases/c01-tracking.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["output"]["raw_text"] = raw(OUTPUT)
    path.write_text(json.dumps(stored), encoding="utf-8")
    rescore_run(root / "results/audit-t1", load_case_set(root / "cases"))  # the real scorer names the rows
    return root


def figure_option(screen: CaseReviewScreen, text: str) -> int:
    """The position of the figure line of ``text`` ("✓ 3,142.50  grounded: ...") in the returned list."""
    return next(i for i, o in enumerate(options(screen, "returned"))
                if (o.id or "").startswith("figure:") and o.prompt.plain.strip()[2:].startswith(text))


@pytest.mark.slow
async def test_enter_on_a_derived_figure_highlights_the_rows_it_was_computed_from(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t1")
        screen = await review_case(pilot, run, "c01-tracking")
        stored = {f["text"]: f for f in screen.result.score.figures}
        assert stored["3,142.50"]["reason"] == "derived over a range this finding names: campaign 333: cost, the period = 3,142.5"
        assert set(stored["3,142.50"]["rows"]) == CAMPAIGN_333_ROWS and stored["3,142.50"]["row_count"] == 6

        said: list[str] = []
        screen.notify = lambda message, **_: said.append(str(message))  # type: ignore[method-assign]
        returned = screen.query_one("#review-returned", OptionList)
        returned.focus()
        returned.highlighted = figure_option(screen, "$48,213.77")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen  # a fabricated figure has no rows, and the screen says so
        assert said == ["fabricated: nothing in the snapshot supports this figure, so it has no rows to show"]

        returned.highlighted = figure_option(screen, "3,142.50")
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        author = app.screen
        assert isinstance(author, AuthorScreen) and author.case.case_id == "c01-tracking"
        await wait_until(pilot, lambda: author.panel is not None and author.panel.highlights, "the rows are shown")
        await pilot.pause()
        assert author.panel.highlights == CAMPAIGN_333_ROWS
        assert author.panel.active_table.current_pointer == "/daily/1"


def test_a_capped_row_list_is_said_to_be_capped():
    from reviewtui.tui.screens.case_review import figure_pointers, figure_rows_note

    capped = {"grounded": True, "rows": [f"/daily/{i}/cost" for i in range(500)], "row_count": 3100}
    assert figure_pointers(capped)[:2] == ["/daily/0", "/daily/1"]
    assert figure_rows_note(capped, 500) == ("3,100 rows support this figure; the result file keeps the first 500 "
                                             "(500 rows shown)")
    assert figure_rows_note({"rows": ["/daily/1"], "row_count": 1}, 1) is None
    assert figure_rows_note({"reason": "snapshot /daily/9/cost = 525.25"}, 1) is None  # an old result file


@pytest.mark.slow
async def test_a_declared_answer_shows_each_declaration_with_what_the_rows_give(tmp_path, monkeypatch):
    """audit-t2's c01 declares its figures (review_fixture.DECLARED_C01): its "404" is not declared
    (untraceable: grounded by the prose rules only), and it declares campaign 333's clicks over
    2025-03-04..06 without printing them. The case review shows both, the declaration and the value the
    rows give, and enter on the declaration shows the three rows it sums. The hand-written score is what
    the real scorer gives (re-scored at the end)."""
    root = review_repo(tmp_path, monkeypatch, runs=("audit-t2",))
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        run = await open_run(pilot, "audit-t2")
        screen = await review_case(pilot, run, "c01-tracking")
        title = screen.query_one("#case-title").render()
        assert "fabrication 0" in str(title) and "untraceable 1" in str(title)
        lines = {o.id: o.prompt.plain for o in options(screen, "returned") if (o.id or "").startswith("figure:")}
        assert lines == {
            "figure:0:0": "    ? 404  untraceable: not declared in the finding's figures; by the prose rules: snapshot "
                          "/daily/7/clicks = 404",
            "figure:0:1": "    ✓ 1,215  (declared, not printed)  grounded: declared and recomputed: sum of clicks, campaign 333, "
                          "2025-03-04 to 2025-03-06 = 1,215\n"
                          "      declared k: aggregate sum clicks · campaigns 333 · 2025-03-04..2025-03-06 → rows give 1,215",
        }
        block = next(o.prompt for o in options(screen, "returned") if o.id == "finding:0")
        assert "underline yellow" in styles_at(block, "404")

        returned = screen.query_one("#review-returned", OptionList)
        returned.focus()
        returned.highlighted = figure_option(screen, "1,215")
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        author = app.screen
        assert isinstance(author, AuthorScreen)
        await wait_until(pilot, lambda: author.panel is not None and author.panel.highlights, "the rows are shown")
        assert author.panel.highlights == {"/daily/7", "/daily/9", "/daily/11"}

    stored = {f["text"]: f for f in load_run(root / "results/audit-t2").records["c01-tracking"].scores[0].figures}
    rescore_run(root / "results/audit-t2", load_case_set(root / "cases"))
    rescored = {f["text"]: f for f in load_run(root / "results/audit-t2").records["c01-tracking"].scores[0].figures}
    for text in ("404", "1,215"):
        assert {k: rescored[text][k] for k in ("status", "reason", "rows")} == \
            {k: stored[text][k] for k in ("status", "reason", "rows")}, text
