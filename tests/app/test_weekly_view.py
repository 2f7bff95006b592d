"""The weekly view: runs and accounts with their flags, an account's report with figures marked,
enter on a figure jumps to its rows, v marks an account reviewed, g shows the gate check."""

from __future__ import annotations

import asyncio
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
    """The weekly view, then g: the gate screen's text."""
    await pilot.press("f4")
    await pilot.pause()
    await pilot.press("g")
    await pilot.pause()
    assert isinstance(pilot.app.screen, GateScreen)
    return str(pilot.app.screen.query_one("#gate-text").render())


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
        assert texts[0] == "HOLD FOR REVIEW: 1 figure(s) not found in the account's data"
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


async def test_the_gate_check_shows_its_reasons_when_it_refuses(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        text = await open_gate(pilot)
        assert "Refused: prompt version" in text and "no Claude run of prompt version" in text


async def test_starting_a_weekly_run_from_the_app_checks_the_gate_then_runs(tmp_path, monkeypatch):
    """Through the fake Messages API: the eval leaves a passing stamp, g shows it allowed, the folder starts the run."""
    from tests.app.review_fixture import wait_until
    from tests.fake_messages_api import answer, findings_json, serving_in_env
    from tests.test_weekly import account
    from reviewtui.eval import main as eval_main
    from reviewtui.weekly.run import today

    with serving_in_env(monkeypatch, "fake-anthropic-key-weekly-app-test-7c1d") as api:
        api.plan("CASE-0001", answer(findings_json("tracking.conversions_stopped")))
        api.plan("900-000-0001", answer(findings_json("summary.no_material_issues")))
        app = make_app(tmp_path)  # writes the case
        # eval runs its own event loop: off this test's loop, as on the command line
        assert await asyncio.to_thread(eval_main, ["--backend", "claude", "--cases", str(tmp_path / "cases"),
                                                   "--results-dir", str(tmp_path / "results")]) == 0
        account(tmp_path / "accounts", "outdoor", "c01-tracking-stopped", "900-000-0001")
        api.clear_requests()
        async with app.run_test(size=SIZE) as pilot:
            assert (await open_gate(pilot)).startswith("Allowed: ")
            app.screen.query_one("#gate-accounts").value = str(tmp_path / "accounts")
            app.screen.query_one("#gate-accounts").focus()
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, WeeklyScreen), "the run ends and the view returns")
            await pilot.pause()
            assert list(app.screen.results) == ["outdoor"]
            assert app.screen.results["outdoor"]["status"] == "ready to send"
        assert api.count("900-000-0001") == 1
        assert (tmp_path / "results" / "weekly" / today() / "accounts" / "outdoor" / "report.md").is_file()
