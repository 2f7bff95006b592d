"""The new-run form: the run happens in a worker, reports progress, can be cancelled and resumed."""

from __future__ import annotations

import csv
import dataclasses
import shutil
import time

import pytest
from textual.widgets import Checkbox, Input, ProgressBar, Select

from reviewtui import assistant
from reviewtui.backends.base import CaseOutput
from reviewtui.commands.eval import build_parser, settings_from_args
from reviewtui.runs.manifest import read_manifest
from reviewtui.tui.screens.dialogs import ConfirmModal
from reviewtui.tui.screens.new_run import NewRunScreen
from reviewtui.tui.screens.run_review import RunScreen
from reviewtui.tui.widgets.review.case_table import ReviewCaseTable
from reviewtui.tui.widgets.review.run_progress import RunProgress
from tests.app.review_fixture import CASE_IDS, SIZE, CountingStubBackend, make_review_app, review_repo, wait_until


@pytest.fixture
def root(tmp_path, monkeypatch):
    return review_repo(tmp_path, monkeypatch, runs=())


def run_dir(root):
    return root / "results" / assistant.PROMPT_VERSION


async def open_new_run(pilot) -> NewRunScreen:
    await pilot.press("f3", "n")
    await pilot.pause()
    assert isinstance(pilot.app.screen, NewRunScreen)
    return pilot.app.screen


@pytest.mark.slow
async def test_a_run_in_the_worker_updates_progress_and_table_while_the_app_answers_keys(root):
    backend = CountingStubBackend(hold_after=2)  # the third case waits until the test lets it go
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        screen.query_one("#concurrency").value = "1"
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.progress is not None and screen.progress.done == 2, "two cases done")
        assert screen.state == "running"
        assert screen.query_one(ProgressBar).progress == 2
        assert screen.query_one(ProgressBar).total == len(CASE_IDS)
        assert screen.query_one(RunProgress).line.startswith(f"running: 2 of {len(CASE_IDS)} cases · 0 errors")
        table = screen.query_one(ReviewCaseTable)
        await wait_until(pilot, lambda: table.shown_case_ids == CASE_IDS[:2], "the table shows the two cases")
        # The UI thread is free while the worker waits: keys still move the focus.
        before = app.focused
        await pilot.press("tab")
        assert app.focused is not before
        backend.hold_after = None
        backend.release_all()
        await wait_until(pilot, lambda: screen.state == "complete", "the run completes")
        assert screen.query_one(ProgressBar).progress == len(CASE_IDS)
        assert sorted(screen.query_one(ReviewCaseTable).shown_case_ids) == sorted(CASE_IDS)
        manifest = read_manifest(run_dir(root) / "manifest.json")
        assert manifest["status"] == "complete" and manifest["gate"]["passed"] is True
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, RunScreen)


async def run_and_cancel_after_two(pilot, backend: CountingStubBackend) -> NewRunScreen:
    """Start a run one case at a time; press escape while the third case is in flight."""
    screen = await open_new_run(pilot)
    screen.query_one("#concurrency").value = "1"
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: backend.total_calls == 3, "the third case is in flight")
    await pilot.press("escape")
    await wait_until(pilot, lambda: screen.state == "cancelled", "the run is cancelled")
    return screen


@pytest.mark.slow
async def test_escape_cancels_and_keeps_what_finished(root):
    backend = CountingStubBackend(hold_after=2)
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_and_cancel_after_two(pilot, backend)
        assert isinstance(app.screen, NewRunScreen)  # escape cancelled the run, it did not leave
        manifest = read_manifest(run_dir(root) / "manifest.json")
        assert manifest["status"] == "cancelled"
        assert manifest["gate"]["passed"] is None
        assert sorted(p.stem for p in (run_dir(root) / "cases").glob("*.json")) == CASE_IDS[:2]
        with (root / "results" / f"{assistant.PROMPT_VERSION}.csv").open() as fh:
            assert [row["case_id"] for row in csv.DictReader(fh)] == CASE_IDS[:2]
        assert screen.query_one("#resume", Checkbox).value is True  # starting again resumes
        assert "NO VERDICT" in str(screen.query_one("#new-run-result").render())


@pytest.mark.slow
async def test_starting_again_resumes_without_repeating_finished_cases(root):
    first = CountingStubBackend(hold_after=2)
    app = make_review_app(root, first)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_and_cancel_after_two(pilot, first)
        second = CountingStubBackend()
        app.backend_factory = lambda settings: second
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.state == "complete", "the resumed run completes")
        assert sorted(second.calls) == CASE_IDS[2:]  # the two finished cases were not asked again
        assert all(count == 1 for count in second.calls.values())
        assert "2 kept from the earlier run" in screen.query_one(RunProgress).line
        manifest = read_manifest(run_dir(root) / "manifest.json")
        assert manifest["status"] == "complete"
        assert manifest["summary"]["cases"] == len(CASE_IDS)
        assert sorted(p.stem for p in (run_dir(root) / "cases").glob("*.json")) == CASE_IDS


@pytest.mark.slow
async def test_bad_form_input_says_what_to_fix_and_runs_nothing(root):
    backend = CountingStubBackend()
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        screen.query_one("#concurrency").value = "0"
        screen.query_one("#cases").value = "no-such-folder"
        await pilot.press("ctrl+r")
        await pilot.pause()
        error = str(screen.query_one("#new-run-error").render())
        assert "Concurrency must be a whole number of at least 1" in error
        assert "Cases: folder no-such-folder not found" in error
        assert screen.state == "idle" and backend.total_calls == 0


@pytest.mark.parametrize(("backend", "argv"), [
    ("claude", ["--model", assistant.CHEAP_MODEL]),
    ("replay", ["--replay-dir", "raw"]),
    ("rules", []),
])
@pytest.mark.slow
async def test_the_form_builds_the_settings_the_same_flags_give(root, backend, argv):
    (root / "raw").mkdir()
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        screen.query_one("#backend", Select).value = backend
        screen.query_one("#model").value = assistant.CHEAP_MODEL
        screen.query_one("#replay-dir").value = "raw"
        screen.query_one("#concurrency").value = "3"
        screen.query_one("#resume", Checkbox).value = True
        await pilot.pause()
        settings = screen.read_form()
    flags = settings_from_args(build_parser().parse_args(["--backend", backend, "--concurrency", "3", *argv]))
    assert settings == dataclasses.replace(flags, resume=True)


@pytest.mark.slow
async def test_a_concurrency_that_is_not_a_number_is_refused_by_the_settings(root):
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        screen.query_one("#concurrency").value = "-2"
        assert screen.read_form() is None
        await pilot.pause()
        assert str(screen.query_one("#new-run-error").render()) == "Concurrency must be a whole number of at least 1."


@pytest.mark.slow
async def test_a_typed_fractional_concurrency_is_refused_not_read_as_another_number(root):
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        field = screen.query_one("#concurrency", Input)
        field.focus()
        field.value = ""
        await pilot.press("2", "full_stop", "5")
        assert field.value == "2.5"  # what was typed, every key kept (an integer field drops the "." and reads 25)
        assert screen.read_form() is None
        await pilot.pause()
        assert str(screen.query_one("#new-run-error").render()) == "Concurrency must be a whole number of at least 1."


@pytest.mark.slow
async def test_an_invalid_case_set_is_refused_with_the_file_and_line(root):
    (root / "cases" / "c03-duplicates" / "expected.yaml").write_text("case: c03-duplicates\nkind: weird\n")
    backend = CountingStubBackend()
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.state == "failed", "the run is refused")
        error = str(screen.query_one("#new-run-error").render())
        assert "nothing ran" in error and "c03-duplicates/expected.yaml:2" in error
        assert backend.total_calls == 0


@pytest.mark.slow
async def test_a_case_set_that_reviewtui_check_refuses_is_refused_here_too(root):
    # A write-up case whose must_find has no claim: not a load error, an error of the checks that
    # `reviewtui check` and `reviewtui eval` run (eval exits 2 on it), so the app must not run it either.
    case = root / "cases" / "c01-tracking"
    (root / "writeups").mkdir()
    (root / "writeups" / "wu01-tracking.md").write_text("# Tracking\n\nPurchases stopped recording on 4 March.\n")
    shutil.copy(case / "snapshot.json", root / "writeups" / "wu01-tracking.snapshot.json")
    expected = case / "expected.yaml"
    expected.write_text(expected.read_text().replace("kind: ordinary\n", "kind: ordinary\nsource: writeups/wu01-tracking.md\n"))
    backend = CountingStubBackend()
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.state in ("failed", "complete"), "the run ends")
        error = str(screen.query_one("#new-run-error").render())
        assert screen.state == "failed" and backend.total_calls == 0
        assert "nothing ran" in error and "c01-tracking/expected.yaml:6" in error and "has no 'claim'" in error
        assert not run_dir(root).exists()


async def complete_a_run(pilot) -> tuple[NewRunScreen, CountingStubBackend]:
    """A first run to its end; the backend the next run from this screen gets (it counts its calls)."""
    screen = await open_new_run(pilot)
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: screen.state == "complete", "the first run completes")
    second = CountingStubBackend()
    pilot.app.backend_factory = lambda settings: second
    return screen, second


@pytest.mark.slow
async def test_starting_a_run_that_would_replace_one_asks_first_and_names_it(root):
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen, second = await complete_a_run(pilot)
        before = (run_dir(root) / "manifest.json").read_text()
        assert screen.query_one("#resume", Checkbox).value is False
        await pilot.press("ctrl+r")  # a stray start, Resume not ticked
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), "asked after the case set is checked")
        question = str(app.screen.query_one(".dialog-body").render())
        assert f"holds the run of {assistant.PROMPT_VERSION}" in question and "PASS" in question
        await pilot.press("enter")  # another stray enter keeps the run: cancel is the first button
        await pilot.pause()
        assert app.screen is screen and second.total_calls == 0
        assert (run_dir(root) / "manifest.json").read_text() == before
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), "asked again")
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.state == "complete" and second.total_calls == len(CASE_IDS),
                         "the replacing run completes")


@pytest.mark.slow
async def test_a_case_set_with_errors_is_refused_before_asking_to_replace_a_run(root):
    """Asking "Replace a run?" of a run that will not start, because its case set has errors, asks for nothing:
    the refusal comes first, and the run on disk stays as it was."""
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen, second = await complete_a_run(pilot)
        before = (run_dir(root) / "manifest.json").read_text()
        (root / "cases" / "c03-duplicates" / "expected.yaml").write_text("case: c03-duplicates\nkind: weird\n")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.state == "failed" or isinstance(app.screen, ConfirmModal),
                         "refused or asked")
        assert app.screen is screen and screen.state == "failed"
        error = str(screen.query_one("#new-run-error").render())
        assert "nothing ran" in error and "c03-duplicates/expected.yaml:2" in error
        assert second.total_calls == 0 and (run_dir(root) / "manifest.json").read_text() == before


@pytest.mark.slow
async def test_the_resume_checkbox_says_on_or_off_in_words(root):
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        box = screen.query_one("#resume", Checkbox)
        assert box.value is False and str(box.label).startswith("Resume: OFF")
        box.focus()
        await pilot.press("space")
        await pilot.pause()
        assert box.value is True and str(box.label).startswith("Resume: ON")


@pytest.mark.slow
async def test_resume_ticked_on_a_complete_run_keeps_it_and_says_there_is_nothing_to_run(root):
    app = make_review_app(root, CountingStubBackend())
    async with app.run_test(size=SIZE) as pilot:
        screen, second = await complete_a_run(pilot)
        before = {p: p.read_bytes() for p in run_dir(root).rglob("*") if p.is_file()}
        screen.query_one("#resume", Checkbox).value = True
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.run is not None and screen.run.note is not None, "the resume ends")
        assert second.total_calls == 0
        assert screen.state == "complete" and "nothing to resume" in screen.query_one(RunProgress).line
        assert "PASS" in str(screen.query_one("#new-run-result").render())
        assert {p: p.read_bytes() for p in run_dir(root).rglob("*") if p.is_file()} == before  # the stamp stays


class BusyBackend(CountingStubBackend):
    """Answers without ever handing the event loop back, as the reference auditor does (CPU work, no await)."""

    async def run(self, case, *, repeat=0):
        time.sleep(0.3)  # the auditor's work on one snapshot
        self.calls[case.case_id] = self.calls.get(case.case_id, 0) + 1
        return CaseOutput(case.case_id, '{"findings": []}', model=self.model)


@pytest.mark.slow
async def test_escape_stops_a_run_whose_backend_never_yields(root):
    backend = BusyBackend()
    app = make_review_app(root, backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run(pilot)
        screen.query_one("#concurrency").value = "1"
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: backend.total_calls >= 1, "the first case is answered")
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.state in ("cancelled", "complete"), "the run ends")
        assert screen.state == "cancelled" and backend.total_calls < len(CASE_IDS)
