"""The compare view's header shows the paired interval and the tests, the same figures as ``reviewtui compare``."""

from __future__ import annotations

import json
import random

import pytest
from textual.widgets import DataTable

from reviewtui.runs import inference
from reviewtui.tui.screens.compare import CompareScreen
from tests.app.review_fixture import SIZE, make_review_app, review_repo
from tests.app.test_review_views import text_of


@pytest.fixture
def root(tmp_path, monkeypatch):
    return review_repo(tmp_path, monkeypatch)


def recalls(root, version):
    folder = root / "results" / version / "cases"
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))["score"]["recall"] for p in folder.glob("*.json")}


async def open_compare_t1_t2(pilot) -> None:
    """From the cases view: the runs view, mark audit-t1, compare it with audit-t2."""
    await pilot.press("f3")
    await pilot.pause()
    runs = pilot.app.screen
    runs.query_one(DataTable).move_cursor(row=1)  # audit-t1
    await pilot.press("space")
    runs.query_one(DataTable).move_cursor(row=0)  # audit-t2
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CompareScreen)


@pytest.mark.slow
async def test_compare_header_shows_the_paired_interval_sign_test_and_mcnemar(root):
    before, after = recalls(root, "audit-t1"), recalls(root, "audit-t2")
    deltas = [after[c] - before[c] for c in sorted(before)]
    rng = random.Random(inference.DEFAULT_SEED)
    means = sorted(sum(rng.choices(deltas, k=len(deltas))) / len(deltas) for _ in range(inference.DEFAULT_RESAMPLES))
    low, high = means[250], means[9749]

    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_compare_t1_t2(pilot)
        header = text_of(app.screen.query_one("#compare-header"))
    # c01 and c02 pass only in audit-t2, c03 only in audit-t1: 2 of 3 changed verdicts,
    # P = 2 * (C(3,0) + C(3,1)) / 2^3 = 1.
    assert (f"paired over 5 cases: recall {sum(deltas) / 5:+.3f}, 95% CI {low:+.3f} to {high:+.3f}; "
            "verdicts 2 better, 1 worse, sign test p = 1") in header
    # tracking.conversions_stopped: missed in audit-t1 and found in audit-t2 in two cases, lost in none:
    # McNemar P = 2 * C(2,0) / 2^2 = 0.5; five kinds compared, BH lifts it to 1.
    assert "finding kinds (McNemar, BH over 5): tracking.conversions_stopped -0/+2 p(BH) = 1" in header
    assert "regression" not in header


@pytest.mark.slow
async def test_a_case_in_one_run_only_shows_a_dash_for_the_missing_status(root):
    (root / "results" / "audit-t1" / "cases" / "c04-healthy.json").unlink()
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_compare_t1_t2(pilot)
        table = app.screen.query_one("#compare-table", DataTable)
        cells = [str(c) for c in table.get_row("c04-healthy")]
        assert cells[0] == "c04-healthy (only in audit-t2)"
        assert cells[3] == "–→ok"
