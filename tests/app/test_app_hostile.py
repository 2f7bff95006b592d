"""Hostile input through the app (Pilot): markup and escape sequences shown literally, no key leak, no crash.

The fixtures are written in the tests: case files, write-ups, disputed.md and
result files carrying Textual markup (``[@click=app.quit]``, ``[link=...]``,
an unbalanced ``[link=``), terminal escapes, and malformed values.
"""

from __future__ import annotations

import json
import shutil
from functools import partialmethod
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable

from reviewtui.tui import app as app_module
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.case_review import CaseReviewScreen
from reviewtui.tui.screens.raw_output import RawOutputScreen
from reviewtui.tui.screens.cases import CasesScreen
from reviewtui.tui.screens.dispute import DisputeModal
from reviewtui.tui.screens.run_review import RunScreen
from tests.app.apphelpers import open_runs_view
from tests.app.apphelpers import SIZE, copy_fixture, make_app, open_case, screen_text, search_palette, settle
from textual.command import CommandPalette
from tests.app.review_fixture import make_review_app, review_repo, wait_until

FAKE_KEY = "fake-hostile-key-app-93b2e1"
CLICK = "[@click=app.quit]x[/]"
LINK = "[link=http://evil.example]y[/link]"
UNBALANCED = "[link=http://evil.example]z"
ESC = "\x1b]0;pwned\x07\x1b[2J"


def write_expected(repo: Path, case: str, text: str) -> None:
    (repo / "cases" / case / "expected.yaml").write_text(text, encoding="utf-8")


def shown(app) -> str:
    """The screen's characters, runs of blanks and line breaks as one space (messages wrap)."""
    text = screen_text(app)
    assert "\x1b" not in text and FAKE_KEY not in text
    return " ".join(text.replace("│", " ").split())


@pytest.fixture
def hostile_repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    repo = copy_fixture(tmp_path / "repo")
    write_expected(repo, "c02-garden-clean", f"""\
case: c02-garden-clean
kind: {json.dumps(CLICK + ESC)}
source: {json.dumps(LINK)}
notes: {json.dumps(UNBALANCED + " " + CLICK + ESC)}
must_find:
  - id: summary.no_material_issues
    evidence: {json.dumps("steady " + CLICK + ESC)}
""")
    return repo


@pytest.mark.slow
async def test_markup_and_escapes_from_case_files_are_shown_literally_in_the_cases_view_and_author_screen(hostile_repo):
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, CasesScreen)
        shown(app)
        table = app.screen.query_one(DataTable)
        cells = [str(cell) for cell in table.get_row(app.screen.rows[1].case_id)]
        assert cells[1] == "[@click=app.quit]x[/]␛]0;pwned␇␛[2J"  # kind, its escapes made visible
        assert cells[6] == "[link=http://evil.example]y[/link]"  # source
        screen = await open_case(pilot, "c02-garden-clean")
        assert isinstance(screen, AuthorScreen)
        text = shown(app)
        assert UNBALANCED in text  # the notes, shown because the source is refused
        assert "steady [@click=app.quit]x[/]␛]0;pwned" in text  # the evidence
        # Clicking where the markup would have made a link does nothing: the app is still running.
        await pilot.click(offset=(10, 0))
        await pilot.pause()
        assert app.is_running and app.return_code is None


@pytest.mark.slow
async def test_a_source_outside_writeups_shows_nothing_of_the_outside_file(hostile_repo):
    write_expected(hostile_repo, "c02-garden-clean", """\
case: c02-garden-clean
kind: clean
source: /proc/self/environ
must_find:
  - id: summary.no_material_issues
    evidence: steady
""")
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "c02-garden-clean")
        text = shown(app)  # the key is in this process's environment: it must not be on screen
        assert "ANTHROPIC_API_KEY" not in text
        assert "resolves outside the writeups/" in text


@pytest.mark.slow
async def test_unreadable_write_up_and_disputed_md_are_messages_not_crashes(hostile_repo):
    (hostile_repo / "writeups" / "wu01-shoes.md").write_bytes("Caf\xe9 lost its tag.\n".encode("latin-1"))
    (hostile_repo / "disputed.md").write_bytes("# Disputed claims\n\n## writeups/wu01-shoes.md\n\n> Caf\xe9\n".encode("latin-1"))
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c01-shoes-tracking")
        # The message names the file by its full path: how it wraps depends on the temporary folder's name.
        assert "The write-up cannot be shown:" in shown(app)
        assert "not UTF-8 text" in screen.session.writeup_problem
        assert app.is_running


@pytest.mark.slow
async def test_a_dispute_quote_with_markup_is_shown_literally(hostile_repo):
    write_up = hostile_repo / "writeups" / "wu01-shoes.md"
    write_up.write_text(f"Spend {UNBALANCED} fell sharply. Then {CLICK} it rose.\n", encoding="utf-8")
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "c01-shoes-tracking")
        text = shown(app)
        assert f"Spend {UNBALANCED} fell sharply." in text
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DisputeModal)
        assert f"> Spend {UNBALANCED} fell sharply." in shown(app)


@pytest.mark.slow
async def test_a_cases_folder_of_malformed_files_still_lists_every_case(hostile_repo):
    (hostile_repo / "cases" / "c03-bikes-broken" / "expected.yaml").write_text(
        "case: c03-bikes-broken\nnotes: " + "[" * 400 + "]" * 400 + "\n", encoding="utf-8")
    (hostile_repo / "cases" / "c01-shoes-tracking" / "snapshot.json").write_text('{"a": ' + "9" * 5000 + "}",
                                                                                  encoding="utf-8")
    shutil.copytree(hostile_repo / "cases" / "c02-garden-clean", hostile_repo / "cases" / "c04-source-map")
    write_expected(hostile_repo, "c04-source-map", "case: c04-source-map\nkind: clean\nsource: {a: 1}\n")
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = {row.case_id: row for row in app.screen.rows}
        assert set(rows) == {"c01-shoes-tracking", "c02-garden-clean", "c03-bikes-broken", "c04-source-map"}
        assert "nesting deeper than 8 levels" in rows["c03-bikes-broken"].problems[0].message
        assert "Exceeds the limit (4300 digits)" in rows["c01-shoes-tracking"].problems[0].message
        await open_case(pilot, "c04-source-map")  # source {a: 1} used to crash the author screen
        assert "'source' must be a path such as writeups/wu01-name.md, not CommentedMap" in shown(app)
        assert app.is_running


# -- result files -------------------------------------------------------------------------------


@pytest.fixture
def review_root(tmp_path, monkeypatch):
    root = review_repo(tmp_path, monkeypatch)
    manifest_path = root / "results" / "audit-t1" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest.update(model=CLICK + ESC, backend=UNBALANCED)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    record_path = root / "results" / "audit-t1" / "cases" / "c01-tracking.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["kind"] = CLICK + ESC
    record["score"]["status"] = "unparseable"
    record["score"]["parse_error"] = f"bad output {UNBALANCED} {ESC}"
    record["output"]["raw_text"] = f"{{{CLICK} {ESC}"
    record_path.write_text(json.dumps(record), encoding="utf-8")
    # Crafted runs: each must be left out with a message, the good runs still listed.
    crafted = {
        "bad-recall": {"summary": {"mean_recall": "1.0"}},
        "bad-date": {"finished_at": 20250101},
        "bad-gate": {"gate": "passed"},
        "deep": {"backend_details": json.loads("[" * 40 + "]" * 40)},
        "huge-int": {"summary": {"cases": 10**30}},
    }
    for name, fields in crafted.items():
        (root / "results" / name).mkdir()
        (root / "results" / name / "manifest.json").write_text(json.dumps({**manifest, **fields, "prompt_version": name}),
                                                               encoding="utf-8")
    (root / "results" / "huge-text").mkdir()
    (root / "results" / "huge-text" / "manifest.json").write_text('{"cases": ' + "9" * 5000 + "}", encoding="utf-8")
    return root


async def test_a_run_whose_status_summary_or_gate_was_deleted_is_named_not_listed_without_a_verdict(tmp_path,
                                                                                                     monkeypatch):
    """A run's folder is swapped in only when the run ends, with its status, summary and gate verdict: a manifest
    without one was edited by hand. It is left out and named with the field, as a field of the wrong type is,
    never listed with "–" or "no verdict"."""
    root = review_repo(tmp_path, monkeypatch)
    manifest = json.loads((root / "results" / "audit-t1" / "manifest.json").read_text(encoding="utf-8"))
    for field in ("status", "summary", "gate"):
        (root / "results" / f"no-{field}").mkdir()
        (root / "results" / f"no-{field}" / "manifest.json").write_text(json.dumps(
            {k: v for k, v in {**manifest, "prompt_version": f"no-{field}"}.items() if k != field}), encoding="utf-8")
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_runs_view(pilot)
        assert sorted(r.prompt_version for r in screen.runs) == ["audit-t1", "audit-t2"]
        said = " ".join(str(screen.query_one("#runs-empty").render()).split())
        for field in ("status", "summary", "gate"):
            assert (f"Not listed: results/no-{field}/manifest.json:1: the run manifest has the wrong shape: "
                    f"the top level has no '{field}'; move the folder away and rerun") in said, (field, said)


@pytest.mark.slow
async def test_crafted_runs_are_left_out_with_a_message_and_markup_in_runs_is_literal(review_root):
    app = make_review_app(review_root)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_runs_view(pilot)
        assert sorted(r.prompt_version for r in screen.runs) == ["audit-t1", "audit-t2"]
        text = shown(app)
        for name, what in (("bad-recall", "/summary/mean_recall must be a number"),
                           ("bad-date", "/finished_at must be str"), ("bad-gate", "/gate must be an object"),
                           ("deep", "nesting deeper than 16 levels"), ("huge-int", "/summary/cases is"),
                           ("huge-text", "Exceeds the limit (4300 digits)")):
            assert f"Not listed: results/{name}/manifest.json" in text.replace("\n", ""), name
            assert what in text.replace("\n", ""), name
        row = [str(cell) for cell in screen.query_one(DataTable).get_row_at(1)]
        assert CLICK + "␛]0;pwned␇␛[2J" in row and UNBALANCED in row

        screen.query_one(DataTable).move_cursor(row=1)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert "[@click=app.quit]x[/]" in shown(app)
        await pilot.press("enter")  # the first case: c01-tracking
        await pilot.pause()
        assert isinstance(app.screen, CaseReviewScreen)
        assert f"bad output {UNBALANCED}" in shown(app)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RawOutputScreen)
        text = shown(app)
        assert f"unparseable: bad output {UNBALANCED} ␛]0;pwned␇␛[2J" in text and CLICK in text
        assert app.is_running


@pytest.mark.slow
async def test_rescoring_with_a_catastrophic_pattern_finishes(review_root):
    expected = review_root / "cases" / "c01-tracking" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8").replace(
        'says: ["overspen"]', 'says: ["overspen", "(a+)+$"]', 1),
        encoding="utf-8")
    record_path = review_root / "results" / "audit-t2" / "cases" / "c01-tracking.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    claim = "a" * 50_000 + "!"  # hours with a backtracking engine
    record["output"]["raw_text"] = json.dumps({"findings": [
        {"id": "tracking.conversions_stopped", "scope": "333", "claim": claim, "evidence": "x", "severity": "high"}]})
    record_path.write_text(json.dumps(record), encoding="utf-8")
    app = make_review_app(review_root)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("f3")
        await pilot.pause()
        app.screen.open_run("audit-t2")
        await pilot.pause()
        run = app.screen
        assert isinstance(run, RunScreen)
        await pilot.press("R")
        await wait_until(pilot, lambda: run.changes, "the re-score finished")


def test_the_app_exits_non_zero_after_an_unhandled_error(tmp_path, monkeypatch):
    repo = copy_fixture(tmp_path / "repo")

    def explode(self) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(App, "run", partialmethod(App.run, headless=True, size=SIZE))
    monkeypatch.setattr(CasesScreen, "on_mount", explode)
    assert app_module.main(["--cases", str(repo / "cases"), "--results-dir", str(repo / "results")]) == 1


async def test_a_case_folder_linked_out_of_the_case_root_is_never_opened_or_saved(hostile_repo, tmp_path):
    outside = Path(shutil.copytree(hostile_repo / "cases" / "c01-shoes-tracking", tmp_path / "elsewhere" / "c09-outside"))
    (hostile_repo / "cases" / "c09-outside").symlink_to(outside, target_is_directory=True)
    before = (outside / "expected.yaml").read_bytes()
    app = make_app(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "c09-outside" not in {row.case_id for row in app.screen.rows}
        assert "c09-outside is a link to" in shown(app)
        app.open_case("c09-outside")  # as the command palette would
        await pilot.pause()
        assert isinstance(app.screen, CasesScreen)
        await pilot.press("ctrl+s")
    assert (outside / "expected.yaml").read_bytes() == before


ODD_FOLDER_NAMES = ["c04 space", "c05-accént", "c06..dots", "c07\nnewline", "c08-[brackets]", "c09-[b]old"]


@pytest.mark.slow
async def test_case_folders_with_odd_names_open_and_the_other_cases_keep_their_edits(tmp_path):
    """A folder name is no widget id: the author screen of "c04 space" once crashed the app, and with it
    the unsaved edits of every other open case."""
    repo = copy_fixture(tmp_path / "repo")
    for name in ODD_FOLDER_NAMES:
        shutil.copytree(repo / "cases" / "c01-shoes-tracking", repo / "cases" / name)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        for name in ODD_FOLDER_NAMES:  # from the cases view, as a user opens one
            screen = await open_case(pilot, name)
            assert screen.case.case_id == name
            assert shown(app).startswith(name.replace("\n", "␊") + " [ordinary]")
            await pilot.press("escape")
        await pilot.press("ctrl+p")  # the palette shows the names as they are, and opens the case
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        await search_palette(pilot, "c09")
        assert "Open case c09-[b]old" in shown(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and app.screen.case.case_id == "c09-[b]old"
        await pilot.press("escape")
        edited = await open_case(pilot, "c01-shoes-tracking")
        edited.query_one("#expectations").focus()
        await pilot.press("delete")
        assert edited.dirty
        for name in ODD_FOLDER_NAMES:  # over a case with unsaved edits, as the palette's "Open case" does
            app.open_case(name)
            await settle(pilot)
            assert isinstance(app.screen, AuthorScreen) and app.screen.case.case_id == name
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is edited
        assert edited.dirty and app._exception is None


@pytest.mark.slow
async def test_a_tab_in_an_entry_is_written_back_as_a_tab_never_as_its_picture(tmp_path):
    """The form shows a tab as ␉ (an Input draws its value raw); saving the form once wrote ␉ into
    expected.yaml. A field is read back as the characters it shows: the evidence's tab is whitespace
    (the line is normalised), the claim's and the pattern's stay tabs."""
    repo = copy_fixture(tmp_path / "repo")
    expected = repo / "cases" / "c01-shoes-tracking" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8").replace(
        '    says: ["overspend"]', '    says: ["over\\tspend"]\n    claim: "Spend\\tis over."').replace(
        "evidence: spend to date is on the budget schedule", 'evidence: "spend to date\\tis on the budget schedule"'),
        encoding="utf-8")
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c01-shoes-tracking")
        screen.query_one("#expectations").focus()
        await pilot.press("down", "e")  # the must_not_say entry
        await settle(pilot)
        form = app.screen
        assert form.query_one("#tag-says").value == '["over␉spend"]'
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("ctrl+s")
        await settle(pilot)
    text = expected.read_text(encoding="utf-8")
    assert "␉" not in text
    entry = screen.session.entry("must_not_say", 0)
    assert entry["says"] == ["over\tspend"] and entry["claim"] == "Spend\tis over."
    assert entry["evidence"] == "spend to date is on the budget schedule"
