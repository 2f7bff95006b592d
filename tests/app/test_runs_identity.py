"""The runs view lists the assistant's run and the reference auditor's run of the same version apart."""

from __future__ import annotations

import json
import shutil

from textual.widgets import DataTable

from reviewtui.tui.screens.run import RunScreen
from reviewtui.tui.screens.runs import RunsScreen
from tests.app.review_fixture import SIZE, make_review_app, review_repo


async def test_an_auditor_run_of_the_same_version_is_its_own_labelled_row(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch, runs=("audit-t1",))
    reference = root / "results" / "reference"
    reference.mkdir()
    shutil.copytree(root / "results" / "audit-t1", reference / "audit-t1")
    manifest_path = reference / "audit-t1" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest.update(backend="rules", results_role="reference", model="reference-auditor-1")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")

    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await pilot.pause()
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        table = runs.query_one(DataTable)
        assert table.row_count == 2
        cells = {str(table.get_row_at(i)[2]): str(table.get_row_at(i)[3]) for i in range(2)}
        assert cells == {"reference-auditor-1": "rules · reference auditor", "claude-sonnet-5-5": "replay"}
        row = next(i for i in range(2) if str(table.get_row_at(i)[2]) == "reference-auditor-1")
        table.move_cursor(row=row)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert app.screen.run_dir.resolve() == (reference / "audit-t1").resolve()
