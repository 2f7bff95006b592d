"""The weekly view: runs and accounts with their flags, an account's report with figures marked,
enter on a figure jumps to its rows, v marks an account reviewed, g shows the gate check."""

from __future__ import annotations

import pytest
import json

from textual.widgets import DataTable, OptionList

from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.weekly import WeeklyScreen
from reviewtui.tui.screens.weekly.account_report import AccountReportScreen
from reviewtui.tui.screens.weekly.account_rows import AccountRowsScreen
from reviewtui.tui.screens.weekly.gate import GateScreen
from reviewtui.tui.widgets.snapshot_panel import SnapshotPanel
from tests.app.weekly_fixture import DAY, MADE_UP, write_weekly_run
from tests.fake_messages_api import write_case

SIZE = (150, 40)


def make_app(root):
    write_case(root / "cases", "c01-one", "CASE-0001")
    return ReviewApp(root / "cases", root / "results", cursor_blink=False)


async def open_account(pilot, name: str) -> AccountReportScreen:
    weekly = pilot.app.screen
    table = weekly.query_one("#weekly-accounts", DataTable)
    table.move_cursor(row=list(weekly.results).index(name))
    table.focus()
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, AccountReportScreen)
    return pilot.app.screen


async def open_gate(pilot) -> str:
    """The weekly view, then g: the gate screen's text, once the check (in a worker) has shown it."""
    from tests.app.review_fixture import wait_until

    await pilot.press("f4")
    await pilot.pause()
    await pilot.press("g")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, GateScreen) and pilot.app.screen.query("#gate-text"),
                     "the stamp check shows its screen")
    return str(pilot.app.screen.query_one("#gate-text").render())


@pytest.mark.slow
async def test_the_weekly_view_lists_accounts_with_their_flags_and_marks_reviewed(tmp_path):
    paths = await write_weekly_run(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        weekly = app.screen
        assert isinstance(weekly, WeeklyScreen)
        runs = weekly.query_one("#weekly-runs", DataTable)
        assert [str(c) for c in runs.get_row_at(0)][:2] == [DAY, "complete"]
        accounts = weekly.query_one("#weekly-accounts", DataTable)
        rows = {str(accounts.get_row_at(i)[0]): [str(c) for c in accounts.get_row_at(i)] for i in range(2)}
        assert rows["outdoor"][1] == "ready to send" and rows["outdoor"][5] == "0"
        assert rows["shoes"][1] == "hold for review" and rows["shoes"][5] == "1"

        accounts.move_cursor(row=list(weekly.results).index("shoes"))
        accounts.focus()
        await pilot.press("v")
        await pilot.pause()
        assert list(json.loads(paths.reviewed.read_text(encoding="utf-8"))) == ["shoes"]
        assert str(accounts.get_row_at(list(weekly.results).index("shoes"))[8]).startswith("✓ ")
        await pilot.press("v")
        await pilot.pause()
        assert json.loads(paths.reviewed.read_text(encoding="utf-8")) == {}


@pytest.mark.slow
async def test_an_accounts_report_marks_its_figures_and_enter_jumps_to_the_rows(tmp_path):
    await write_weekly_run(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        report = await open_account(pilot, "shoes")
        options = report.query_one(OptionList)
        texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
                 if options.get_option_at_index(i) is not None]
        assert texts[:5] == ["HOLD FOR REVIEW", "  1 figure(s) not found in the account's data",
                             "  finding(s) 1 (pacing.overspend) have no figure checked against the account's data",
                             "  finding 1 writes amounts in $; the account's currency is EUR",
                             "  the reference auditor disagrees: it finds 1 finding(s) the assistant does not say, "
                             "and does not support 1 the assistant says"]
        assert any(t.startswith(f"    ✗ {MADE_UP}  fabricated:") for t in texts)
        assert "  pacing.overspend: The account spends ahead of its budget." in texts  # the auditor does not support it
        # enter on the made-up figure: no rows, and it says why
        options.highlighted = next(i for i in range(options.option_count)
                                   if (options.get_option_at_index(i).id or "").startswith("figure:"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AccountReportScreen)
        await pilot.press("escape")
        await pilot.pause()

        report = await open_account(pilot, "outdoor")
        options = report.query_one(OptionList)
        options.focus()
        options.highlighted = next(i for i in range(options.option_count)
                                   if (options.get_option_at_index(i).id or "").startswith("figure:"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AccountRowsScreen)
        panel = app.screen.query_one(SnapshotPanel)
        assert panel.highlights == {"/daily/0"}


@pytest.mark.slow
async def test_the_gate_check_shows_its_reasons_when_it_refuses(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        text = await open_gate(pilot)
        assert "Refused: prompt version" in text and "no Claude run of prompt version" in text


@pytest.mark.slow
async def test_starting_a_weekly_run_from_the_app_checks_the_gate_then_runs(stamp_kit, stamped):
    """Through the fake Messages API: the stamp the eval left on the fifty cases, g shows it allowed, the folder
    starts the run."""
    from tests.app.review_fixture import wait_until
    from tests.test_weekly import account
    from reviewtui.weekly.run import today

    api = stamp_kit.api
    stamp_kit.plan_account(account(stamped / "accounts", "outdoor", "c01-tracking-stopped", "900-000-0001"),
                           "900-000-0001")
    api.clear_requests()
    app = ReviewApp(stamped / "cases", stamped / "results", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert (await open_gate(pilot)).startswith("Allowed: ")
        app.screen.query_one("#gate-accounts").value = str(stamped / "accounts")
        app.screen.query_one("#gate-accounts").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, WeeklyScreen), "the run ends and the view returns")
        await pilot.pause()
        assert list(app.screen.results) == ["outdoor"]
        assert app.screen.results["outdoor"]["status"] == "ready to send"
    assert api.count("900-000-0001") == 1
    assert (stamped / "results" / "weekly" / today() / "accounts" / "outdoor" / "report.md").is_file()


@pytest.mark.slow
async def test_the_gate_refuses_a_tampered_stamp_as_the_command_line_does(stamp_kit, stamped):
    """The manifest of a passing run says it failed nothing, but one answer was swapped for one that fabricates:
    the app's gate checks the answers against their record, names what differs and sends nothing."""
    from tests.test_stamp_tampers import tamper_an_answer

    tamper_an_answer(stamped)
    expected = "1 case(s) (c01-outdoor-retail) hold answer text that is not the text the API returned"
    stamp_kit.api.clear_requests()
    app = ReviewApp(stamped / "cases", stamped / "results", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        text = await open_gate(pilot)
        assert text.startswith("Refused: prompt version") and expected in text
        assert pilot.app.screen.reasons == [pilot.app.screen.reasons[0]] and "#gate-accounts" not in [
            f"#{w.id}" for w in pilot.app.screen.query("Input")]
    assert stamp_kit.api.count() == 0


@pytest.mark.slow
async def test_a_hand_edited_account_is_left_out_and_named_with_its_field(tmp_path):
    """findings.json is read through its checked reader: an account whose file was edited into another shape
    is not listed as if it were fine, and the notice names the file and the field (no KeyError either)."""
    paths = await write_weekly_run(tmp_path)
    edited = json.loads(paths.findings("shoes").read_text(encoding="utf-8"))
    edited["status"] = "sent"
    paths.findings("shoes").write_text(json.dumps(edited), encoding="utf-8")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        weekly = app.screen
        assert isinstance(weekly, WeeklyScreen)
        assert list(weekly.results) == ["outdoor"]
        assert weekly.query_one("#weekly-accounts", DataTable).row_count == 1
        notices = [str(n.message) for n in app._notifications]
        assert any(str(paths.findings("shoes")) in n and "/status must be one of 'ready to send'" in n and "not 'sent'" in n
                   for n in notices), notices


@pytest.mark.slow
async def test_an_unreadable_account_is_told_once_and_again_on_reload(tmp_path):
    """The notice of a hand-edited findings.json comes once when the view opens and not again on each
    return from a report (toasts of the same words piled up); r, the reload key, tells it again."""
    paths = await write_weekly_run(tmp_path)
    paths.findings("shoes").write_text("[]", encoding="utf-8")
    app = make_app(tmp_path)

    def told() -> int:
        return sum(str(paths.findings("shoes")) in str(n.message) for n in app._notifications)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        assert list(app.screen.results) == ["outdoor"]
        assert told() == 1
        await open_account(pilot, "outdoor")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, WeeklyScreen) and told() == 1
        await pilot.press("r")
        await pilot.pause()
        assert told() == 2


@pytest.mark.slow
async def test_a_weekly_record_without_its_counts_shows_no_made_up_zeros(tmp_path):
    """weekly.json with its counts deleted by hand: the runs table shows '?' for them, not 0 ready and 0 on hold
    beside an account held for review."""
    paths = await write_weekly_run(tmp_path)
    record = json.loads(paths.manifest.read_text(encoding="utf-8"))
    del record["counts"]
    paths.manifest.write_text(json.dumps(record), encoding="utf-8")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        row = [str(cell) for cell in app.screen.query_one("#weekly-runs", DataTable).get_row_at(0)]
        assert row[:2] == [DAY, "complete"] and row[4:] == ["?"] * 5


async def test_help_on_the_weekly_view_lists_its_own_keys_first(tmp_path):
    """? lists the keys of the screen it is pressed on first, then the ones that work everywhere, then the rest."""
    from reviewtui.tui.screens.help import HelpScreen
    from tests.app.apphelpers import screen_text

    app = make_app(tmp_path)
    async with app.run_test(size=(150, 200)) as pilot:  # tall enough to show every key at once
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, WeeklyScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = [" ".join(line.strip("█▌▐ ").split()) for line in screen_text(app).splitlines()]
        titles = [line for line in lines if line in ("Weekly view", "Everywhere", "Author screen", "Cases view")]
        assert titles == ["Weekly view", "Everywhere", "Author screen", "Cases view"], titles
        first_keys = lines[lines.index("Weekly view") + 1]
        assert first_keys.startswith("v "), first_keys  # the view's own first key, right under its title
