"""The palette's "new case from a snapshot file" on an imported account, driven as a user does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewtui.commands.main import main
from reviewtui.tui.screens.author import AuthorScreen
from reviewtui.tui.screens.dialogs import ConfirmModal
from tests.app.apphelpers import screen_text
from tests.app.review_fixture import SIZE, make_review_app, review_repo, wait_until
from tests.app.test_app_palette import palette, started

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "accounts"


@pytest.fixture
def root(tmp_path, monkeypatch):
    """The README's "real account as a case": an import, redacted, in the working folder."""
    root = review_repo(tmp_path, monkeypatch)
    assert main(["import", "--format", "google", str(FIXTURES / "google_campaign_daily.csv"),
                 "-o", str(root / "import-raw.json")]) == 0
    assert main(["redact", str(root / "import-raw.json"), "-o", str(root / "uk-shop.json"),
                 "--key", str(tmp_path / "redact.key")]) == 0
    return root


@pytest.mark.slow
async def test_typing_a_snapshot_path_makes_and_opens_a_case(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "uk-shop.json")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen), "the new case opens")
        case = root / "cases" / "uk-shop"
        assert (case / "snapshot.json").read_bytes() == (root / "uk-shop.json").read_bytes()
        assert "case: uk-shop\nkind: ordinary\n" in (case / "expected.yaml").read_text()
        await wait_until(pilot, lambda: ("uk-shop", "ordinary") in app.case_summaries(), "the cases view lists it")


@pytest.mark.slow
async def test_picking_a_file_from_the_entry(root):
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "new case from a snapshot file")
        await palette(pilot, "uk-shop")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen), "the new case opens")
        assert (root / "cases" / "uk-shop" / "snapshot.json").is_file()


@pytest.mark.slow
async def test_typing_a_path_in_the_file_picker_it_asks_for(root, tmp_path):
    """The picker's prompt says "or type its path": a file outside the working folder, so not listed,
    typed there in full makes the case (it answered "No matches found")."""
    elsewhere = tmp_path / "exports"
    elsewhere.mkdir()
    (elsewhere / "far-shop.json").write_bytes((root / "uk-shop.json").read_bytes())
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "new case from a snapshot file")
        await palette(pilot, str(elsewhere / "far-shop.json"))
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen), "the new case opens")
        assert (root / "cases" / "far-shop" / "snapshot.json").read_bytes() == (elsewhere / "far-shop.json").read_bytes()


@pytest.mark.slow
async def test_an_unreadable_snapshot_makes_no_case(root):
    data = json.loads((root / "uk-shop.json").read_text())
    for row in data["daily"]:
        row["date"] = "-".join(reversed(row["date"].split("-")))  # DD-MM-YYYY
    (root / "bad.json").write_text(json.dumps(data))
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "bad.json")

        def refused() -> bool:
            return any("daily rows cannot be read" in n.message and "expected YYYY-MM-DD" in n.message
                       for n in app._notifications)

        await wait_until(pilot, refused, "the import is refused with a message")
        assert not (root / "cases" / "bad").exists()
        assert not isinstance(app.screen, AuthorScreen)


@pytest.mark.slow
async def test_an_unredacted_import_is_not_copied_into_the_case_set_unless_asked(root):
    """The palette's "New case" once copied an account's own names into cases/, shared with everyone who
    has the set. It asks first, naming the names and the redact command; esc or c copies nothing."""
    app = make_review_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await palette(pilot, "import-raw.json")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), "the question")
        question = screen_text(app)
        assert "'Search | Brand | UK'" in question and "reviewtui redact" in question
        await pilot.press("c")
        await pilot.pause()
        assert not (root / "cases" / "import-raw").exists() and not isinstance(app.screen, ConfirmModal)
        await palette(pilot, "import-raw.json")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), "the question again")
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen), "the case copied as asked opens")
        assert (root / "cases" / "import-raw" / "snapshot.json").read_bytes() == (root / "import-raw.json").read_bytes()
