"""The runs view lists the assistant's run and the reference auditor's run of the same version apart."""

from __future__ import annotations

import pytest
import json
import shutil
from pathlib import Path

from textual.widgets import DataTable

from textual.command import CommandPalette

from reviewtui.tui.screens.run_review import RunScreen
from tests.app.apphelpers import open_runs_view, screen_text, search_palette, wait_until
from tests.app.review_fixture import SIZE, make_review_app, review_repo


@pytest.mark.slow
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
        runs = await open_runs_view(pilot)
        table = runs.query_one(DataTable)
        assert table.row_count == 2
        def cell(row: int, column: str) -> str:
            return str(table.get_cell_at((row, table.get_column_index(column))))

        cells = {cell(i, "model"): cell(i, "backend") for i in range(2)}
        assert cells == {"reference-auditor-1": "rules · reference auditor", "claude-sonnet-5-5": "replay"}
        folders = {cell(i, "model"): cell(i, "folder") for i in range(2)}
        assert folders == {"reference-auditor-1": "reference/audit-t1", "claude-sonnet-5-5": "audit-t1"}
        row = next(i for i in range(2) if cell(i, "model") == "reference-auditor-1")
        table.move_cursor(row=row)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert app.screen.run_dir.resolve() == (reference / "audit-t1").resolve()
        assert "audit-t1  reference/audit-t1" in screen_text(app)  # the header names the folder
        await pilot.press("R")
        await wait_until(pilot, lambda: app.screen.changes, "the re-score lands")
        # the notice is a message of its own, handled after the re-score's: under load it comes a moment later
        await wait_until(pilot, lambda: [n.title for n in app._notifications][-1:] == ["reference/audit-t1 re-scored"],
                         "the re-score's notice")
        await pilot.press("escape")

        # The palette tells the two runs of audit-t1 apart by their folders.
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        await search_palette(pilot, "open run")
        listed = "".join(screen_text(app).split())  # the highlighted letters are drawn apart
        assert "Openrunreference/audit-t1" in listed and "Openrunaudit-t1" in listed
        await pilot.press("escape")


@pytest.mark.slow
async def test_the_new_run_form_resumes_the_auditors_unfinished_run_from_its_own_folder(tmp_path, monkeypatch):
    """Without a key the form's run is the reference auditor's: its unfinished run sits in results/reference."""
    from textual.widgets import Checkbox

    from reviewtui import assistant
    from reviewtui.tui.screens.new_run import NewRunScreen

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root = review_repo(tmp_path, monkeypatch, runs=())
    unfinished = root / "results" / "reference" / assistant.PROMPT_VERSION
    unfinished.mkdir(parents=True)
    (unfinished / "manifest.json").write_text(json.dumps({"prompt_version": assistant.PROMPT_VERSION,
                                                          "backend": "rules", "status": "cancelled"}), encoding="utf-8")
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NewRunScreen)
        assert app.screen.query_one("#resume", Checkbox).value is True


@pytest.mark.slow
async def test_replacing_the_auditors_run_asks_first_and_names_its_own_folder(tmp_path, monkeypatch):
    """The form's own backend (no stand-in): a complete reference run is found where the auditor writes."""
    from reviewtui import assistant
    from reviewtui.tui.screens.dialogs import ConfirmModal
    from reviewtui.tui.screens.new_run import NewRunScreen

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root = review_repo(tmp_path, monkeypatch, runs=())
    done = root / "results" / "reference" / assistant.PROMPT_VERSION
    done.mkdir(parents=True)
    (done / "manifest.json").write_text(json.dumps({"prompt_version": assistant.PROMPT_VERSION, "backend": "rules",
                                                    "status": "complete"}), encoding="utf-8")
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs_view(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NewRunScreen)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), "asked after the case set is checked")
        question = str(app.screen.query_one(".dialog-body").render())
        assert str(Path("results") / "reference" / assistant.PROMPT_VERSION) in question and "backend rules" in question
        await pilot.press("c")  # keep it
        await pilot.pause()
        assert isinstance(app.screen, NewRunScreen) and app.screen.state != "running"
