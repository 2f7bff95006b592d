"""``reviewtui weekly`` through its real path: the stamp left by ``reviewtui eval --backend claude`` on the
project's fifty cases against the fake Messages API on 127.0.0.1 (tests/stamp_fixture.py), then the weekly
run through the same SDK.

Every honest refusal names its reason and no request reaches the fake (the tampers are in
test_stamp_tampers.py); an allowed run writes a report per account, holds the ones a person must look at,
fails the hollow ones, skips the broken snapshot and finishes the rest.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from reviewtui import assistant
from reviewtui.commands.main import main as cli_main
from reviewtui.commands.eval import main as eval_main
from tests.fake_messages_api import FakeMessagesAPI, answer, overloaded
from tests.stamp_fixture import CASE_COUNT, EVAL_ARGS, KEY, account_snapshot
from tests.stub_backends import FIXTURE_CASES

# Every test here runs whole eval and weekly processes behind a stamp: the slow half of the suite.
pytestmark = pytest.mark.slow

VERSION = assistant.PROMPT_VERSION
OTHER_MODEL = "claude-haiku-4-5"
DAY = "2026-12-07"
MADE_UP = "$48,213.77"


def claude_eval(*extra: str) -> int:
    return eval_main([*EVAL_ARGS, *extra])


def weekly(accounts: Path, *extra: str) -> int:
    return cli_main(["weekly", str(accounts), "--timeout", "2", "--max-retries", "0", *extra])


def account(folder: Path, stem: str, source: str, marker: str, **fields: object) -> Path:
    """``folder/<stem>.json``: a fixture case's snapshot with its own account id (the fake's marker) and fields."""
    return account_snapshot(folder, stem, FIXTURE_CASES / source / "snapshot.json", marker, **fields)


def refusal_lines(err: str) -> list[str]:
    return [line[len("refused: "):] for line in err.splitlines() if line.startswith("refused: ")]


def accounts_folder(root: Path) -> Path:
    folder = root / "accounts"
    account(folder, "outdoor", "c01-tracking-stopped", "900-000-0001")
    return folder


def assert_refused(api, accounts: Path, capsys, *extra: str) -> list[str]:
    api.clear_requests()
    assert weekly(accounts, *extra) == 1
    err = capsys.readouterr().err
    assert api.count() == 0, "a refused weekly run sent a request"
    assert not (Path("results") / "weekly").exists()
    reasons = refusal_lines(err)
    assert reasons and err.splitlines()[0].startswith(f"reviewtui weekly: refused: prompt version {VERSION}")
    return reasons


def first_case_marker(root: Path) -> str:
    return json.loads((root / "cases" / "c01-outdoor-retail" / "snapshot.json").read_text())["account"]["id"]


def index_of(run_dir: Path) -> dict[str, dict[str, str]]:
    with (run_dir / "index.csv").open(newline="", encoding="utf-8") as fh:
        return {row["account"]: row for row in csv.DictReader(fh)}


@pytest.fixture
def api(stamp_kit, stamped):
    return stamp_kit.api


# --------------------------------------------------------------------------
# Refusals: the honest mistakes, one reason each
# --------------------------------------------------------------------------


def test_refused_with_no_results(api, stamped, capsys):
    shutil.rmtree(stamped / "results")
    reasons = assert_refused(api, accounts_folder(stamped), capsys)
    assert reasons == [f"no Claude run of prompt version {VERSION}: results/{VERSION}/manifest.json not found; "
                       "run `reviewtui eval --backend claude`"]


def test_refused_with_only_reference_auditor_results(api, stamped, capsys):
    shutil.rmtree(stamped / "results")
    assert eval_main(["--backend", "rules"]) in (0, 1)
    assert (stamped / "results" / "reference" / f"{VERSION}.csv").is_file()
    assert not (stamped / "results" / f"{VERSION}.csv").exists()  # the auditor never writes the assistant's place
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason.startswith(f"no Claude run of prompt version {VERSION}")
    assert "results/reference/" in reason and "reference auditor, which does not clear the assistant" in reason


def test_refused_after_a_failing_claude_run(api, stamped, capsys):
    api.plan(first_case_marker(stamped), answer(json.dumps({"findings": [
        {"id": "pacing.overspend", "scope": None, "severity": "high", "claim": "Spend runs ahead.",
         "evidence": f"Spend was {MADE_UP} this month.", "figures": []}]})))
    assert claude_eval("--no-cache") == 1
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason.startswith(f"the run of {VERSION} failed the gate: ") and "fabrication(s)" in reason


def test_refused_after_an_incomplete_claude_run(api, stamped, capsys):
    api.plan(first_case_marker(stamped), overloaded())
    assert claude_eval("--no-cache") == 3
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason.startswith(f"the run of {VERSION} is incomplete, not complete: no gate verdict")


def test_refused_after_a_passing_run_of_other_prompt_text(api, stamped, capsys, monkeypatch):
    monkeypatch.setattr(assistant, "prompt_sha256", lambda *a, **k: "e" * 64)  # the prompt was edited since
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason.startswith(f"the run of {VERSION} was made with other prompt text")
    assert "now eeeeeeeeeeee" in reason and "bump PROMPT_VERSION" in reason


def test_refused_after_a_passing_run_on_another_case_set(api, stamped, capsys):
    expected = stamped / "cases" / "c01-outdoor-retail" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8") + "notes: edited after the run\n", encoding="utf-8")
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason.startswith(f"the run of {VERSION} was made on another case set ({CASE_COUNT} case(s) in ")
    assert f"now {CASE_COUNT} in cases" in reason


def test_refused_after_a_passing_run_with_another_model(api, stamped, capsys):
    assert claude_eval("--model", OTHER_MODEL) == 0
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(stamped), capsys)
    assert reason == (f"the run of {VERSION} used model {OTHER_MODEL}, the weekly run would use "
                      f"{assistant.DEFAULT_MODEL}; run the eval with --model {assistant.DEFAULT_MODEL}, "
                      f"or the weekly run with --model {OTHER_MODEL}")


def test_refused_when_the_stamp_is_older_than_max_age(api, stamped, capsys):
    manifest_path = stamped / "results" / VERSION / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["finished_at"] = "2020-01-01T09:00:00+00:00"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    [reason] = assert_refused(api, accounts_folder(stamped), capsys, "--max-age", "7")
    assert reason.startswith(f"the run of {VERSION} finished ") and "older than --max-age 7" in reason


def test_refused_when_the_weekly_run_would_ask_another_endpoint(api, stamped, capsys, monkeypatch):
    with FakeMessagesAPI(api_key=KEY) as other:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", other.base_url)
        [reason] = assert_refused(api, accounts_folder(stamped), capsys)
        assert other.count() == 0
    assert reason.startswith(f"the run of {VERSION} asked the API at {api.base_url}, the weekly run would send to "
                             f"{other.base_url} (ANTHROPIC_BASE_URL)")


def test_refused_with_every_reason_at_once(api, stamped, capsys, monkeypatch):
    api.plan(first_case_marker(stamped), answer(json.dumps({"findings": [
        {"id": "pacing.overspend", "scope": None, "severity": "high", "claim": "Spend runs ahead.",
         "evidence": f"Spend was {MADE_UP} this month.", "figures": []}]})))
    assert claude_eval("--model", OTHER_MODEL) == 1
    capsys.readouterr()
    monkeypatch.setattr(assistant, "prompt_sha256", lambda *a, **k: "e" * 64)
    reasons = assert_refused(api, accounts_folder(stamped), capsys)
    assert [r.split(" ")[:5] for r in reasons] == [
        ["the", "run", "of", VERSION, "failed"],
        ["the", "run", "of", VERSION, "was"],
        ["the", "run", "of", VERSION, "used"],
    ]


def test_a_stamp_made_on_a_one_case_folder_does_not_clear_the_weekly_run(api, stamped, capsys):
    one = stamped / "one-case"
    shutil.copytree(stamped / "cases" / "c01-outdoor-retail", one / "c01-outdoor-retail")
    shutil.rmtree(stamped / "results")
    assert claude_eval("--cases", str(one)) == 0  # one request: a stamp of one case
    capsys.readouterr()
    [named] = assert_refused(api, accounts_folder(stamped), capsys, "--cases", str(one))
    assert named.startswith(f"the case set {one} is not the project's case set ({stamped / 'cases'}): only a run on "
                            "the project's cases clears the weekly run")
    [project] = assert_refused(api, accounts_folder(stamped), capsys)
    assert project.startswith(f"the run of {VERSION} was made on another case set (1 case(s) in {one}")


@pytest.mark.parametrize(("flag", "value"), [("--max-age", "nan"), ("--max-age", "-1"), ("--max-age", "inf"),
                                             ("--max-age", "0"), ("--date", "../../evil"), ("--date", "2025-13-01"),
                                             ("--date", "20251201"), ("--date", "0001-01-01"),
                                             ("--date", "9999-12-31")])
def test_bad_max_age_and_date_are_bad_usage(api, stamped, capsys, flag, value):
    assert weekly(accounts_folder(stamped), flag, value) == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: " in err and api.count() == 0
    assert not (stamped / "results" / "weekly").exists() and not (stamped / "evil").exists()


# --------------------------------------------------------------------------
# The allowed run
# --------------------------------------------------------------------------


def test_allowed_after_a_passing_claude_run_writes_the_reports(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    outdoor = account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    account(accounts, "shoes", "c02-brand-lost-is", "900-000-0002")
    stamp_kit.plan_account(outdoor, "900-000-0001")  # the auditor's own findings: figures checked, no disagreement
    api.plan("900-000-0002", answer(json.dumps({"findings": [
        {"id": "pacing.overspend", "scope": None, "severity": "medium",
         "claim": "The account spends ahead of its budget.", "evidence": f"Spend was {MADE_UP} this month."}]})))
    api.clear_requests()

    assert weekly(accounts, "--date", DAY) == 3  # one account on hold
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"stamp ok: results/{VERSION}/manifest.json: prompt {VERSION} (sha256 ")
    assert f"on {CASE_COUNT} cases (case set " in out.splitlines()[0]
    assert api.count() == 2 and {r.marker for r in api.requests} == {"900-000-0001", "900-000-0002"}

    run_dir = stamped / "results" / "weekly" / DAY
    index = index_of(run_dir)
    assert index["outdoor"]["status"] == "ready to send" and index["outdoor"]["ungrounded"] == "0"
    assert index["shoes"]["status"] == "hold for review" and index["shoes"]["ungrounded"] == "1"

    report = (run_dir / "accounts" / "outdoor" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Account audit: ACCT-01 Outdoor (900-000-0001)\n")
    assert "Every figure in this report (" in report and "## High severity" in report
    assert report.index("## For the reviewer: the reference auditor's second opinion") > report.index("## High")
    assert json.loads((run_dir / "accounts" / "outdoor" / "raw.txt").read_text(encoding="utf-8"))["findings"]

    held = (run_dir / "accounts" / "shoes" / "report.md").read_text(encoding="utf-8")
    assert "**HOLD FOR REVIEW: check this report against the account before sending.**" in held
    assert "- 1 figure(s) not found in the account's data\n" in held
    assert "- the reference auditor disagrees: it finds 1 finding(s) the assistant does not say" in held
    assert '- "$48,213.77" in finding 1 (evidence)' in held
    findings = json.loads((run_dir / "accounts" / "shoes" / "findings.json").read_text(encoding="utf-8"))
    assert [f["text"] for f in findings["ungrounded"]] == [MADE_UP]
    assert [f["id"] for f in findings["second_opinion"]["assistant_only"]] == ["pacing.overspend"]
    index_md = (run_dir / "index.md").read_text(encoding="utf-8")
    assert "hold for review" in index_md and f"on {CASE_COUNT} cases (case set " in index_md
    manifest = json.loads((run_dir / "weekly.json").read_text(encoding="utf-8"))
    assert manifest["stamp"]["backend"] == "claude" and manifest["stamp"]["gate"]["passed"] is True
    assert manifest["stamp"]["cases"] == CASE_COUNT and manifest["counts"]["hold for review"] == 1
    assert manifest["status"] == "complete"

    # A rerun of the same folder the same day answers from the response cache and replaces its own run.
    api.clear_requests()
    assert weekly(accounts, "--date", DAY) == 3
    assert api.count() == 0 and sorted(p.name for p in (stamped / "results" / "weekly").iterdir()) == [".work", DAY]
    for path in (stamped / "results").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()


def test_two_runs_of_one_day_on_other_folders_keep_each_other(stamp_kit, api, stamped, capsys):
    first = stamped / "first"
    stamp_kit.plan_account(account(first, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    second = stamped / "second"
    stamp_kit.plan_account(account(second, "software", "c03-zero-conv-campaign", "900-000-0003"), "900-000-0003")
    assert weekly(first, "--date", DAY) == 0
    before = (stamped / "results" / "weekly" / DAY / "accounts" / "outdoor" / "report.md").read_bytes()
    assert weekly(second, "--date", DAY) == 0
    weekly_dir = stamped / "results" / "weekly"
    assert (weekly_dir / DAY / "accounts" / "outdoor" / "report.md").read_bytes() == before
    assert list(index_of(weekly_dir / DAY)) == ["outdoor"]
    assert list(index_of(weekly_dir / f"{DAY}-2")) == ["software"]


def test_a_run_waiting_for_its_folder_goes_to_the_next_one(stamp_kit, api, stamped, capsys):
    """A run of another accounts folder holds the day's folder (it chose it and is still writing, or was
    stopped): this run takes ``<day>-2`` rather than replacing what that one writes."""
    from reviewtui.runs.run_folder import FolderLock

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    work = stamped / "results" / "weekly" / ".work"
    work.mkdir(parents=True)
    other = FolderLock(work / f"{DAY}.lock", f"weekly run {DAY}", str((stamped / "other").resolve()))
    other.acquire("the other run")
    try:
        assert weekly(accounts, "--date", DAY) == 0
    finally:
        other.release()
    weekly_dir = stamped / "results" / "weekly"
    assert not (weekly_dir / DAY).exists()
    assert list(index_of(weekly_dir / f"{DAY}-2")) == ["outdoor"]


def test_a_rerun_keeps_the_reports_of_accounts_it_does_not_produce(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    stamp_kit.plan_account(account(accounts, "software", "c03-zero-conv-campaign", "900-000-0003"), "900-000-0003")
    assert weekly(accounts, "--date", DAY) == 0
    run_dir = stamped / "results" / "weekly" / DAY
    report = (run_dir / "accounts" / "software" / "report.md").read_bytes()
    (accounts / "software.json").unlink()
    assert weekly(accounts, "--date", DAY) == 0
    assert (run_dir / "accounts" / "software" / "report.md").read_bytes() == report
    kept = json.loads((run_dir / "accounts" / "software" / "findings.json").read_text(encoding="utf-8"))
    started = json.loads((run_dir / "weekly.json").read_text(encoding="utf-8"))["started_at"]
    assert kept["carried_from"] != started and kept["reason"].startswith("kept from the run started ")
    assert list(index_of(run_dir)) == ["outdoor", "software"]


def test_a_rerun_says_which_accounts_of_the_earlier_run_could_not_be_read_and_keeps_them(stamp_kit, api, stamped,
                                                                                         capsys):
    """An account's findings.json edited by hand is no row to carry: the rerun says so, naming the file and the
    field, and keeps its files as they are unless it produced the account again (its new report replaces it)."""
    from reviewtui.weekly.folder import WeeklyPaths
    from reviewtui.weekly.run import load_results

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    stamp_kit.plan_account(account(accounts, "software", "c03-zero-conv-campaign", "900-000-0003"), "900-000-0003")
    assert weekly(accounts, "--date", DAY) == 0
    run_dir = stamped / "results" / "weekly" / DAY
    paths = WeeklyPaths(run_dir)
    for name in ("outdoor", "software"):
        edited = json.loads(paths.findings(name).read_text(encoding="utf-8"))
        edited["status"] = "sent"
        paths.findings(name).write_text(json.dumps(edited), encoding="utf-8")
    kept = {p.name: p.read_bytes() for p in paths.account_dir("software").iterdir()}
    (accounts / "software.json").unlink()
    capsys.readouterr()
    assert weekly(accounts, "--date", DAY) == 0
    err = capsys.readouterr().err
    why = "/status must be one of 'ready to send', 'hold for review', 'failed', 'skipped', 'not run', not 'sent'"
    for name, what in (("software", "its files are kept as they are"), ("outdoor", "this run's report replaces it")):
        where = f"results/weekly/{DAY}/accounts/{name}/findings.json:1: the account's findings has the wrong shape: "
        line = next((line for line in err.splitlines() if where in line), err)
        assert line.startswith("the run started ") and "had an account that could not be read: " in line, line
        assert why in line and what in line, line
    assert {p.name: p.read_bytes() for p in paths.account_dir("software").iterdir()} == kept
    problems: list[str] = []
    assert list(load_results(paths, problems)) == ["outdoor"]  # the app's view names software as unreadable
    assert len(problems) == 1 and problems[0].startswith(f"{paths.findings('software')}:1: ") and why in problems[0]
    assert list(index_of(run_dir)) == ["outdoor"]


def test_a_cancelled_rerun_keeps_the_complete_run(stamp_kit, api, stamped, capsys, monkeypatch):
    import os
    import signal

    from reviewtui.commands import weekly as weekly_cli
    from tests.fake_messages_api import hang

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    account(accounts, "software", "c03-zero-conv-campaign", "900-000-0003")
    api.plan("900-000-0003", hang(30))
    stamp_kit.plan_account(accounts / "software.json", "900-000-0003")
    assert weekly(accounts, "--date", DAY) == 0
    run_dir = stamped / "results" / "weekly" / DAY
    before = {p: p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}

    api.plan("900-000-0003", hang(30))
    monkeypatch.setattr(weekly_cli, "_progress", lambda p: os.kill(os.getpid(), signal.SIGINT) if p.case_id else None)
    capsys.readouterr()
    assert weekly(accounts, "--date", DAY, "--no-cache") == 3  # Ctrl-C once the first account is in
    assert "is kept as it was (a cancelled rerun never replaces a complete run)" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()} == before


def test_a_broken_account_is_skipped_and_an_api_failure_is_per_account(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    account(accounts, "software", "c03-zero-conv-campaign", "900-000-0003")
    (accounts / "broken.json").write_text('{"schema_version": "1.0",\n "account": ', encoding="utf-8")
    (accounts / "noperiod").mkdir()
    (accounts / "noperiod" / "snapshot.json").write_text(json.dumps({
        "schema_version": "1.0", "platform": "google_ads", "account": {"id": "x", "currency_code": "EUR",
                                                                        "time_zone": "UTC"}, "daily": []}),
        encoding="utf-8")
    api.plan("900-000-0003", overloaded())
    api.clear_requests()

    assert weekly(accounts, "--date", DAY) == 3
    captured = capsys.readouterr()
    assert f"skipped broken: {accounts / 'broken.json'}:2: malformed JSON" in captured.err
    assert "skipped noperiod:" in captured.err and "missing required field 'period'" in captured.err
    index = index_of(stamped / "results" / "weekly" / DAY)
    assert {name: row["status"] for name, row in index.items()} == {
        "broken": "skipped", "noperiod": "skipped", "outdoor": "ready to send", "software": "failed"}
    assert index["software"]["reason"].startswith("API overloaded (HTTP 529")
    assert {r.marker for r in api.requests} == {"900-000-0001", "900-000-0003"}


def test_every_account_ready_exits_0(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    assert weekly(accounts) == 0
    assert "outdoor                  ready to send" in capsys.readouterr().out


# --------------------------------------------------------------------------
# What is not ready to send
# --------------------------------------------------------------------------


def _one_account(stamp_kit, stamped, text: str, **fields: object) -> dict:
    """Run the weekly job on one account answered ``text``; its findings.json."""
    accounts = stamped / "accounts"
    account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001", **fields)
    stamp_kit.api.plan("900-000-0001", answer(text))
    weekly(accounts, "--date", DAY)
    return json.loads((stamped / "results" / "weekly" / DAY / "accounts" / "outdoor" / "findings.json").read_text())


# An answer without a finding, or with a finding that lacks claim or evidence, is not of the output
# schema: a failed account whose reason is the parser's; an empty claim or evidence is a hollow one.
@pytest.mark.parametrize(("text", "why"), [
    ('{"findings": []}', "the answer cannot be read: not the output schema: the answer has no finding"),
    (json.dumps({"findings": [{"id": "tracking.conversions_stopped", "scope": None, "severity": "high",
                               "claim": "", "evidence": "Cost was 1,234.50 on 2025-03-09.", "figures": []}]}),
     "the answer is hollow: finding 1 (tracking.conversions_stopped) has no claim"),
    (json.dumps({"findings": [{"id": "tracking.conversions_stopped", "scope": None, "severity": "high",
                               "claim": "Conversions stopped."}]}),
     "the answer cannot be read: not the output schema: finding 1 (tracking.conversions_stopped) lacks "
     "'evidence'"),
])
def test_a_hollow_answer_is_not_ready(stamp_kit, stamped, capsys, text, why):
    result = _one_account(stamp_kit, stamped, text)
    assert result["status"] == "failed" and result["reason"].startswith(why)


def test_a_report_the_auditor_disagrees_with_is_held(stamp_kit, stamped, capsys):
    own = json.loads(stamp_kit.plan_account(account(stamped / "probe", "p", "c01-tracking-stopped", "900-000-0001"),
                                            "900-000-0001"))
    # the auditor's finding and one more it does not support
    extra = dict(own["findings"][0], id="tracking.double_counting")
    result = _one_account(stamp_kit, stamped, json.dumps({"findings": [*own["findings"], extra]}))
    assert result["status"] == "hold for review"
    assert "the reference auditor disagrees: it finds 0 finding(s) the assistant does not say, and does not " \
        "support 1 the assistant says" in result["reason"]


def test_a_finding_with_no_checked_figure_is_held(stamp_kit, stamped, capsys):
    result = _one_account(stamp_kit, stamped, json.dumps({"findings": [
        {"id": "tracking.conversions_stopped", "scope": None, "severity": "high",
         "claim": "Conversions stopped being recorded.", "evidence": "Clicks held while conversions fell away."}]}))
    assert result["status"] == "hold for review"
    assert "finding(s) 1 (tracking.conversions_stopped) have no figure checked against the account's data" \
        in result["reason"]
    report = (stamped / "results" / "weekly" / DAY / "accounts" / "outdoor" / "report.md").read_text()
    assert "Every figure in this report (0)" not in report and "HOLD FOR REVIEW" in report


def test_amounts_in_another_currency_than_the_accounts_are_held(stamp_kit, stamped, capsys):
    outdoor = json.loads((FIXTURE_CASES / "c01-tracking-stopped" / "snapshot.json").read_text())
    own = json.loads(stamp_kit.plan_account(account(stamped / "probe", "p", "c01-tracking-stopped", "900-000-0001",
                                                    currency_code="GBP"), "900-000-0001"))
    cost = outdoor["daily"][0]["cost"]
    own["findings"][0]["evidence"] += f" Cost was ${cost} on {outdoor['daily'][0]['date']}."
    result = _one_account(stamp_kit, stamped, json.dumps(own), currency_code="GBP")
    assert result["status"] == "hold for review"
    assert "finding 1 writes amounts in $; the account's currency is GBP" in result["reason"]


def test_an_unparseable_answer_is_not_cached_so_a_rerun_asks_again(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    outdoor = account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    good = stamp_kit.plan_account(outdoor, "900-000-0001")
    api.plan("900-000-0001", answer("Sorry, here is my audit in prose."), answer(good))
    assert weekly(accounts, "--date", DAY) == 3
    assert index_of(stamped / "results" / "weekly" / DAY)["outdoor"]["status"] == "failed"
    api.clear_requests()
    assert weekly(accounts, "--date", DAY) == 0  # asked again, not read back from the cache
    assert api.count("900-000-0001") == 1


def test_two_accounts_with_one_name_are_refused_before_any_call(api, stamped, capsys):
    accounts = stamped / "accounts"
    account(accounts, "shop", "c01-tracking-stopped", "900-000-0001")
    (accounts / "shop").mkdir()
    shutil.copy(accounts / "shop.json", accounts / "shop" / "snapshot.json")
    api.clear_requests()
    assert weekly(accounts) == 2
    err = capsys.readouterr().err
    assert f"{accounts / 'shop'}/snapshot.json and {accounts / 'shop.json'} would all be the account 'shop'" in err
    assert api.count() == 0 and not (stamped / "results" / "weekly").exists()


def test_names_that_differ_only_in_unicode_normalization_are_refused(api, stamped, capsys):
    accounts = stamped / "accounts"
    account(accounts, "caf\u00e9", "c01-tracking-stopped", "900-000-0001")  # NFC
    account(accounts, "cafe\u0301", "c01-tracking-stopped", "900-000-0002")  # NFD: the same name on screen
    api.clear_requests()
    assert weekly(accounts) == 2
    assert "would all be the account" in capsys.readouterr().err
    assert api.count() == 0 and not (stamped / "results" / "weekly").exists()


def test_a_json_file_named_with_a_leading_dot_is_listed_as_skipped(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    shutil.copy(accounts / "outdoor.json", accounts / "..json")
    (accounts / ".DS_Store").write_bytes(b"\0")  # a hidden file that is no account: passed over
    assert weekly(accounts, "--date", DAY) == 3
    err = capsys.readouterr().err
    assert f"skipped ..json: {accounts / '..json'}: its name starts with a dot (a hidden file)" in err
    assert "DS_Store" not in err


def test_a_broken_glossary_is_bad_usage_not_a_refusal(api, stamped, capsys, monkeypatch, tmp_path):
    from reviewtui import taxonomy

    broken = tmp_path / "glossary.yaml"
    broken.write_text("terms: [\n  - term: x\n", encoding="utf-8")
    caches = (taxonomy.glossary, taxonomy._glossary_document, assistant.system_prompt)
    monkeypatch.setattr(taxonomy, "GLOSSARY_PATH", broken)
    for cached in caches:
        cached.cache_clear()
    try:
        assert weekly(accounts_folder(stamped), "--check") == 2
    finally:
        monkeypatch.undo()
        for cached in caches:
            cached.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("reviewtui weekly: the prompt cannot be built from reviewtui's own files (") and \
        "Traceback" not in err and api.count() == 0


def test_an_account_answer_in_the_cache_without_the_apis_record_is_asked_again(stamp_kit, api, stamped, capsys):
    """A planted cache entry (no message id, request id, run id) for an account: the weekly run asks the API."""
    from reviewtui.backends.cache import CachedResponse, ResponseCache, cache_key, default_cache_dir
    from reviewtui.weekly.accounts import load_account

    accounts = stamped / "accounts"
    path = account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    text = stamp_kit.plan_account(path, "900-000-0001")
    snapshot = load_account("outdoor", path).as_case().snapshot
    request = assistant.build_request(snapshot.text, model=assistant.DEFAULT_MODEL)
    ResponseCache(default_cache_dir(stamped / "results")).put(
        cache_key(request), CachedResponse(text, "end_turn", 1000, 100, assistant.DEFAULT_MODEL))
    api.clear_requests()
    assert weekly(accounts, "--date", DAY) == 0
    assert api.count("900-000-0001") == 1
    assert "holds an answer with no whole record of the API; not used, asking the API again" in \
        capsys.readouterr().err


def test_a_stopped_run_keeps_what_finished_and_the_index_says_what_did_not_run(tmp_path):
    """Ctrl-C sets the run's cancel event (as in eval): the finished account is written, the other is "not run"."""
    import asyncio

    from reviewtui.backends.base import CaseOutput
    from reviewtui.weekly.accounts import load_accounts
    from reviewtui.weekly.folder import WeeklyPaths
    from reviewtui.weekly.run import run_weekly
    from tests.stub_backends import GatedBackend, finding, output_text

    folder = tmp_path / "accounts"
    account(folder, "first", "c01-tracking-stopped", "900-000-0001")
    account(folder, "second", "c02-brand-lost-is", "900-000-0002")
    summary = output_text([finding("summary.no_material_issues", severity="low")])  # an answer that can be sent
    backend = GatedBackend(lambda case: CaseOutput(case.case_id, summary, input_tokens=100, output_tokens=10))
    paths = WeeklyPaths(tmp_path / "weekly" / DAY)

    async def scenario():
        cancel = asyncio.Event()
        backend.release("first")
        return await run_weekly(load_accounts(folder), backend, None, paths=paths, stamp={}, concurrency=2,
                                cancel=cancel, on_account=lambda result: cancel.set())

    run = asyncio.run(scenario())
    assert run.manifest["status"] == "cancelled" and run.exit_code == 3
    assert run.results["second"]["status"] == "not run" and run.results["first"]["status"] != "not run"
    assert (paths.run_dir / "accounts" / "first" / "report.md").is_file()
    index = index_of(paths.run_dir)
    assert index["second"]["status"] == "not run" and index["second"]["reason"].endswith("; rerun")


def test_a_declared_answers_report_says_how_each_figure_was_computed(tmp_path):
    """An answer that declares its figures (prompt audit-v4): the report adds, under each finding, a note a
    client can follow for each figure it prints; a prose answer's report has none."""
    import asyncio
    from decimal import Decimal

    from reviewtui.weekly.accounts import load_accounts
    from reviewtui.weekly.folder import WeeklyPaths
    from reviewtui.weekly.run import run_weekly
    from tests.stub_backends import ScriptedBackend

    folder = tmp_path / "accounts"
    data = json.loads(account(folder, "outdoor", "c01-tracking-stopped", "900-000-0001").read_text(encoding="utf-8"))
    account(folder, "shoes", "c02-brand-lost-is", "900-000-0002")
    first = data["daily"][0]
    cid, day = first["campaign_id"], first["date"]
    rows = [r for r in data["daily"] if r["campaign_id"] == cid and "2025-03-01" <= r["date"] <= "2025-03-07"]
    week = f"{sum(Decimal(str(r['cost'])) for r in rows):,.2f}"
    name = next(c["name"] for c in data["campaigns"] if c["id"] == cid)
    declared = {"findings": [{
        "id": "tracking.conversions_stopped", "scope": cid, "severity": "high", "claim": "Conversions stopped.",
        "evidence": f"Campaign {cid}: cost {first['cost']} on {day}; 2025-03-01 to 2025-03-07: cost {week}.",
        "figures": [
            {"label": "a", "printed": str(first["cost"]), "how": "value", "pointer": "/daily/0/cost"},
            {"label": "w", "printed": week, "how": "aggregate", "stat": "sum", "metric": "cost", "campaigns": [cid],
             "except": [], "from": "2025-03-01", "to": "2025-03-07", "reading": "as_is"}]}]}
    prose = {"findings": [{"id": "summary.no_material_issues", "scope": None, "severity": "low",
                           "claim": "Nothing material.", "evidence": "The account is on pace."}]}
    backend = ScriptedBackend({"outdoor": json.dumps(declared), "shoes": json.dumps(prose)})
    paths = WeeklyPaths(tmp_path / "weekly" / DAY)
    run = asyncio.run(run_weekly(load_accounts(folder), backend, None, paths=paths, stamp={}))
    # Nothing holds the declared answer but the second opinion this test does not ask for.
    assert run.results["outdoor"]["holds"] == ["no second opinion from the reference auditor (the reference auditor "
                                               "was not run)"]
    report = (paths.run_dir / "accounts" / "outdoor" / "report.md").read_text(encoding="utf-8")
    from reviewtui.weekly.markdown_text import md_text  # figures and names are text in markdown

    assert (f"How the figures were computed:\n\n"
            f"- {md_text(first['cost'])}: {md_text(f'The cost of campaign {name} ({cid}) on {day}.')}\n"
            f"- {md_text(week)}: {md_text(f'The total cost of campaign {name} ({cid}), 2025-03-01 to 2025-03-07.')}\n"
            ) in report
    assert "How the figures were computed" not in (paths.run_dir / "accounts" / "shoes" / "report.md").read_text(encoding="utf-8")


def test_platform_exports_in_the_accounts_folder_are_read_as_the_importer_reads_them(tmp_path, capsys):
    from reviewtui.commands.import_ import main as import_main
    from reviewtui.weekly.accounts import load_accounts

    fixtures = Path(__file__).resolve().parent / "fixtures" / "accounts"
    accounts = tmp_path / "accounts"
    accounts.mkdir()
    for name in ("google_campaign_daily.csv", "meta_summary_month.csv", "meta_ambiguous_dates.csv"):
        shutil.copy(fixtures / name, accounts / name)
    (accounts / "notes.csv").write_text("owner,comment\nAna,call on Monday\n", encoding="utf-8")

    loaded = {a.name: a for a in load_accounts(accounts)}
    for name in ("google_campaign_daily", "meta_summary_month"):
        fmt = name.split("_")[0]
        imported = tmp_path / f"{name}.json"
        assert import_main(["--format", fmt, str(fixtures / f"{name}.csv"), "-o", str(imported)]) == 0
        assert loaded[name].problem is None, loaded[name].problem
        assert loaded[name].snapshot.data == json.loads(imported.read_text(encoding="utf-8"))
    assert "--date-format" in loaded["meta_ambiguous_dates"].problem
    assert "read as a meta export" in loaded["meta_ambiguous_dates"].problem
    assert "not an account snapshot" in loaded["notes"].problem


def test_without_an_api_key_the_weekly_run_names_no_flag_it_does_not_have(api, stamped, capsys, monkeypatch):
    """weekly has no --backend: the missing key is said without the eval's flags."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert weekly(accounts_folder(stamped)) == 2
    err = capsys.readouterr().err
    assert "the claude backend needs ANTHROPIC_API_KEY in the environment" in err
    assert "--backend" not in err


def test_the_readmes_weekly_commands_run_on_the_shipped_sample_accounts(stamp_kit, api, stamped, capsys):
    """examples/accounts/ (tools/snapgen/samples.py) holds the accounts the README's weekly commands name:
    the stamp check refuses them before a Claude eval and the run reads every one of them after it."""
    samples = Path(__file__).resolve().parents[1] / "examples" / "accounts"
    shutil.rmtree(stamped / "results")
    assert weekly(samples, "--check") == 1
    stamp_kit.plan_cases()
    assert claude_eval() == 0
    assert weekly(samples, "--check") == 0
    for snapshot in sorted(samples.glob("*.json")):
        stamp_kit.plan_account(snapshot, json.loads(snapshot.read_text(encoding="utf-8"))["account"]["id"])
    capsys.readouterr()
    code = weekly(samples, "--date", DAY)
    out = capsys.readouterr().out
    assert code in (0, 3), out
    run = json.loads((stamped / "results" / "weekly" / DAY / "weekly.json").read_text(encoding="utf-8"))
    statuses = {a["account"]: a["status"] for a in run["accounts"]}
    assert sorted(statuses) == sorted(p.stem for p in samples.glob("*.json")) and len(statuses) == 6
    assert not {s for s in statuses.values()} & {"skipped", "failed", "not run"}, statuses


# --------------------------------------------------------------------------
# Reports safe to send
# --------------------------------------------------------------------------

HOSTILE = ("<script>alert(1)</script> ![pixel](http://tracker.example/p.png) [click](https://evil.example) "
           "<!-- the rest is hidden --> www.evil.example | cell \x1b[31mred\x1b[0m")


def test_what_the_export_and_the_model_say_is_text_in_the_report_and_the_index(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    # a file name with a table bar, a domain with a bar (a code span in the cell), a terminal escape, a line break
    name = "shop|evil www.evil.com|y\x1b[2J\nx"
    path = account(accounts, name, "c01-tracking-stopped", "900-000-0001", name=f"# ACCT {HOSTILE}")
    own = json.loads(stamp_kit.plan_account(path, "900-000-0001"))
    finding = own["findings"][0]
    finding["claim"] = f"# Fake heading\n{HOSTILE}\n\n## For the reviewer: all clear"
    finding["evidence"] = f"{finding['evidence']} {HOSTILE} evil.com/pixel.png track.example/x"
    api.plan("900-000-0001", answer(json.dumps(own)))
    weekly(accounts, "--date", DAY)
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "shop|evil www.evil.com|y␛[2J␊x" in captured.out

    run_dir = stamped / "results" / "weekly" / DAY
    report = rendered(next(run_dir.glob("accounts/*/report.md")).read_text(encoding="utf-8"))
    index = rendered((run_dir / "index.md").read_text(encoding="utf-8"))
    for html in (report, index):
        for markup in ("<script", "<img", "<!--", "\x1b"):
            assert markup not in html, (markup, html)
    assert "<a " not in report  # no link at all, linkified or written
    assert index.count("<a ") == 1 and f'<a href="accounts/{quote(name)}/report.md">' in index
    assert "<code>www.evil.com|y</code>" in index and "<code>evil.com/pixel.png</code>" in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report and "<code>www.evil.example</code>" in report
    assert "<code>![pixel](http://tracker.example/p.png)</code>" in report
    # the headings are the report's own: the claim's "# Fake heading" and "## For the reviewer" are text
    headings = re.findall(r"<h\d>(.*?)</h\d>", report)
    assert headings[0].startswith("Account audit: # ACCT &lt;script&gt;") and headings[1:] == [
        "High severity", "1. <code>tracking.conversions_stopped</code> (campaign 333)",  # an id is no domain
        "For the reviewer: the reference auditor's second opinion"]
    rows = re.findall(r"<tr>(.*?)</tr>", index.split("<tbody>")[1], re.S)
    assert len(rows) == 1 and rows[0].count("<td>") == 11  # one row, its eleven cells: the name's bar is text


def rendered(markdown: str) -> str:
    """The HTML a GitHub-like renderer makes of ``markdown`` (tables, HTML, links typed bare: linkify)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like").render(markdown)


def test_a_stamp_made_through_a_message_batch_clears_the_weekly_run(api, stamped, capsys):
    """Batched answers carry the batch that answered them instead of a request id: as good a record."""
    assert claude_eval("--no-cache", "--batch", "--batch-poll", "0.05") == 0
    assert len(api.batches_created()) >= 1
    stored = json.loads((stamped / "results" / VERSION / "cases" / "c01-outdoor-retail.json").read_text())
    assert stored["output"]["provenance"]["batch_id"] and stored["output"]["provenance"]["request_id"] is None
    capsys.readouterr()
    api.clear_requests()
    assert weekly(accounts_folder(stamped), "--check") == 0 and api.count() == 0
