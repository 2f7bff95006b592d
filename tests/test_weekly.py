"""``reviewtui weekly`` through its real path: the stamp left by ``reviewtui eval --backend claude``
against the fake Messages API on 127.0.0.1, then the weekly run through the same SDK.

Every refusal names its reason and no request reaches the fake; an allowed
run writes a report per account, holds the one with a made-up figure, skips
the broken snapshot and finishes the rest.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.cli import main as cli_main
from reviewtui.eval import main as eval_main
from tests.fake_messages_api import answer, findings_json, overloaded, serving_in_env, write_case
from tests.stub_backends import FIXTURE_CASES

# An answer that finds none of what the cases expect (an empty findings list is unparseable, another failure).
MISSED = "bidding.learning_limited"

KEY = "fake-anthropic-key-dummy-key-for-the-weekly-test-9a2e"
VERSION = assistant.PROMPT_VERSION
CASE_MARKERS = {"c01-one": "CASE-0001", "c02-two": "CASE-0002"}
GOOD = findings_json("tracking.conversions_stopped")
OTHER_MODEL = "claude-haiku-4-5"


@pytest.fixture
def api(monkeypatch):
    with serving_in_env(monkeypatch, KEY) as server:
        for marker in CASE_MARKERS.values():
            server.plan(marker, answer(GOOD))
        yield server


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A working folder with ./cases (two cases) and ./results, as a user runs the commands."""
    for case_id, marker in CASE_MARKERS.items():
        write_case(tmp_path / "cases", case_id, marker)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def claude_eval(*extra: str) -> int:
    return eval_main(["--backend", "claude", "--timeout", "2", "--max-retries", "0", *extra])


def weekly(accounts: Path, *extra: str) -> int:
    return cli_main(["weekly", str(accounts), "--timeout", "2", "--max-retries", "0", *extra])


def account(folder: Path, name: str, source: str, marker: str) -> dict:
    """An account snapshot copied from a fixture case, with its own account id (the fake's marker)."""
    data = json.loads((FIXTURE_CASES / source / "snapshot.json").read_text(encoding="utf-8"))
    data["account"]["id"] = marker
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return data


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


# --------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------


def test_refused_with_no_results(api, repo, capsys):
    reasons = assert_refused(api, accounts_folder(repo), capsys)
    assert reasons == [f"no Claude run of prompt version {VERSION}: results/{VERSION}/manifest.json not found; "
                       "run `reviewtui eval --backend claude`"]


def test_refused_with_only_reference_auditor_results(api, repo, capsys, monkeypatch):
    assert eval_main(["--backend", "rules"]) in (0, 1)
    assert (repo / "results" / "reference" / f"{VERSION}.csv").is_file()
    assert not (repo / "results" / f"{VERSION}.csv").exists()  # the auditor never writes the assistant's place
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason.startswith(f"no Claude run of prompt version {VERSION}")
    assert "results/reference/" in reason and "reference auditor, which does not clear the assistant" in reason


def test_refused_after_a_failing_claude_run(api, repo, capsys):
    for marker in CASE_MARKERS.values():
        api.plan(marker, answer(findings_json(MISSED)))  # nothing the cases expect: recall 0
    assert claude_eval() == 1
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason == f"the run of {VERSION} failed the gate: mean recall 0.000 is below 0.90"


def test_refused_after_an_incomplete_claude_run(api, repo, capsys):
    api.plan(CASE_MARKERS["c02-two"], overloaded())
    assert claude_eval() == 3
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason.startswith(f"the run of {VERSION} is incomplete, not complete: no gate verdict")


def test_refused_after_a_passing_run_of_other_prompt_text(api, repo, capsys, monkeypatch):
    assert claude_eval() == 0
    capsys.readouterr()
    monkeypatch.setattr(assistant, "prompt_sha256", lambda *a, **k: "e" * 64)  # the prompt was edited since
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason.startswith(f"the run of {VERSION} was made with other prompt text")
    assert "now eeeeeeeeeeee" in reason and "bump PROMPT_VERSION" in reason


def test_refused_after_a_passing_run_on_another_case_set(api, repo, capsys):
    assert claude_eval() == 0
    capsys.readouterr()
    expected = repo / "cases" / "c01-one" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8") + "notes: edited after the run\n", encoding="utf-8")
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason.startswith(f"the case set changed since the run of {VERSION} (hash ")


def test_refused_after_a_passing_run_with_another_model(api, repo, capsys):
    assert claude_eval("--model", OTHER_MODEL) == 0
    capsys.readouterr()
    [reason] = assert_refused(api, accounts_folder(repo), capsys)
    assert reason == (f"the run of {VERSION} used model {OTHER_MODEL}, the weekly run would use "
                      f"{assistant.DEFAULT_MODEL}; run the eval with --model {assistant.DEFAULT_MODEL}, "
                      f"or the weekly run with --model {OTHER_MODEL}")


def test_refused_when_the_stamp_is_older_than_max_age(api, repo, capsys):
    assert claude_eval() == 0
    capsys.readouterr()
    manifest_path = repo / "results" / VERSION / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["finished_at"] = "2020-01-01T09:00:00+00:00"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    [reason] = assert_refused(api, accounts_folder(repo), capsys, "--max-age", "7")
    assert reason.startswith(f"the run of {VERSION} finished ") and "older than --max-age 7" in reason


def test_refused_with_every_reason_at_once(api, repo, capsys, monkeypatch):
    for marker in CASE_MARKERS.values():
        api.plan(marker, answer(findings_json(MISSED)))
    assert claude_eval("--model", OTHER_MODEL) == 1
    capsys.readouterr()
    monkeypatch.setattr(assistant, "prompt_sha256", lambda *a, **k: "e" * 64)
    reasons = assert_refused(api, accounts_folder(repo), capsys)
    assert [r.split(" ")[:5] for r in reasons] == [
        ["the", "run", "of", VERSION, "failed"],
        ["the", "run", "of", VERSION, "was"],
        ["the", "run", "of", VERSION, "used"],
    ]


# --------------------------------------------------------------------------
# The allowed run
# --------------------------------------------------------------------------


def test_allowed_after_a_passing_claude_run_writes_the_reports(api, repo, capsys):
    assert claude_eval() == 0
    capsys.readouterr()
    accounts = repo / "accounts"
    outdoor = account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    account(accounts, "shoes", "c02-brand-lost-is", "900-000-0002")
    cost = outdoor["daily"][0]["cost"]
    api.plan("900-000-0001", answer(json.dumps({"findings": [
        {"id": "tracking.conversions_stopped", "scope": None, "severity": "high",
         "claim": "Conversions stopped being recorded.",
         "evidence": f"Campaign {outdoor['daily'][0]['campaign_id']}: cost was {cost} on {outdoor['daily'][0]['date']}."}]})))
    api.plan("900-000-0002", answer(json.dumps({"findings": [
        {"id": "pacing.overspend", "scope": None, "severity": "medium",
         "claim": "The account spends ahead of its budget.", "evidence": "Spend was $48,213.77 this month."}]})))
    api.clear_requests()

    assert weekly(accounts, "--date", "2026-12-07") == 3  # one account on hold
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"stamp ok: results/{VERSION}/manifest.json: prompt {VERSION}")
    assert api.count() == 2 and {r.marker for r in api.requests} == {"900-000-0001", "900-000-0002"}

    run_dir = repo / "results" / "weekly" / "2026-12-07"
    with (run_dir / "index.csv").open(newline="", encoding="utf-8") as fh:
        index = {row["account"]: row for row in csv.DictReader(fh)}
    assert index["outdoor"]["status"] == "ready to send" and index["outdoor"]["ungrounded"] == "0"
    assert index["shoes"]["status"] == "hold for review" and index["shoes"]["ungrounded"] == "1"

    report = (run_dir / "accounts" / "outdoor" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Account audit: ACCT-01 Outdoor (900-000-0001)\n")
    assert "Every figure in this report (" in report and "## High severity" in report
    assert f"Evidence: Campaign {outdoor['daily'][0]['campaign_id']}: cost was {cost} on {outdoor['daily'][0]['date']}." in report
    assert report.index("## For the reviewer: the reference auditor's second opinion") > report.index("## High")
    assert (run_dir / "accounts" / "outdoor" / "raw.txt").read_text(encoding="utf-8").startswith('{"findings"')

    held = (run_dir / "accounts" / "shoes" / "report.md").read_text(encoding="utf-8")
    top = held.split("\n\n")[2] if held.split("\n\n")[1].startswith("Period") else held.split("\n\n")[1]
    assert top.startswith("**HOLD FOR REVIEW: 1 figure(s) in this report are not found in the account's data.")
    assert '- "$48,213.77" in finding 1 (evidence)' in held
    findings = json.loads((run_dir / "accounts" / "shoes" / "findings.json").read_text(encoding="utf-8"))
    assert [f["text"] for f in findings["ungrounded"]] == ["$48,213.77"]
    # the reference auditor does not support the assistant's budget finding on this account
    assert [f["id"] for f in findings["second_opinion"]["assistant_only"]] == ["pacing.overspend"]
    assert "hold for review" in (run_dir / "index.md").read_text(encoding="utf-8")
    manifest = json.loads((run_dir / "weekly.json").read_text(encoding="utf-8"))
    assert manifest["stamp"]["backend"] == "claude" and manifest["stamp"]["gate"]["passed"] is True
    assert manifest["counts"]["hold for review"] == 1 and manifest["status"] == "complete"

    # A rerun the same day answers from the response cache: no request.
    api.clear_requests()
    assert weekly(accounts, "--date", "2026-12-07") == 3
    assert api.count() == 0
    for path in (repo / "results").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()


def test_a_broken_account_is_skipped_and_an_api_failure_is_per_account(api, repo, capsys):
    assert claude_eval() == 0
    capsys.readouterr()
    accounts = repo / "accounts"
    account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    account(accounts, "software", "c03-zero-conv-campaign", "900-000-0003")
    (accounts / "broken.json").write_text('{"schema_version": "1.0",\n "account": ', encoding="utf-8")
    (accounts / "noperiod").mkdir()
    (accounts / "noperiod" / "snapshot.json").write_text(json.dumps({
        "schema_version": "1.0", "platform": "google_ads", "account": {"id": "x", "currency_code": "EUR",
                                                                        "time_zone": "UTC"}, "daily": []}),
        encoding="utf-8")
    api.plan("900-000-0001", answer(findings_json("summary.no_material_issues")))
    api.plan("900-000-0003", overloaded())
    api.clear_requests()

    assert weekly(accounts, "--date", "2026-12-07") == 3
    captured = capsys.readouterr()
    assert f"skipped broken: {accounts / 'broken.json'}:2: malformed JSON" in captured.err
    assert "skipped noperiod:" in captured.err and "missing required field 'period'" in captured.err
    with (repo / "results" / "weekly" / "2026-12-07" / "index.csv").open(newline="", encoding="utf-8") as fh:
        index = {row["account"]: row for row in csv.DictReader(fh)}
    assert {name: row["status"] for name, row in index.items()} == {
        "broken": "skipped", "noperiod": "skipped", "outdoor": "ready to send", "software": "failed"}
    assert index["software"]["reason"].startswith("API overloaded (HTTP 529")
    assert {r.marker for r in api.requests} == {"900-000-0001", "900-000-0003"}


def test_every_account_ready_exits_0(api, repo, capsys):
    assert claude_eval() == 0
    api.plan("900-000-0001", answer(findings_json("summary.no_material_issues")))
    assert weekly(accounts_folder(repo)) == 0
    assert "outdoor                  ready to send" in capsys.readouterr().out


def test_a_stopped_run_keeps_what_finished_and_the_index_says_what_did_not_run(tmp_path):
    """Ctrl-C sets the run's cancel event (as in eval): the finished account is written, the other is "not run"."""
    import asyncio

    from reviewtui.backends.base import CaseOutput
    from reviewtui.weekly.accounts import load_accounts
    from reviewtui.weekly.run import WeeklyPaths, run_weekly
    from tests.stub_backends import GatedBackend, finding, output_text

    folder = tmp_path / "accounts"
    account(folder, "first", "c01-tracking-stopped", "900-000-0001")
    account(folder, "second", "c02-brand-lost-is", "900-000-0002")
    summary = output_text([finding("summary.no_material_issues", severity="low")])  # an answer that can be sent
    backend = GatedBackend(lambda case: CaseOutput(case.case_id, summary, input_tokens=100, output_tokens=10))
    paths = WeeklyPaths(tmp_path / "weekly")

    async def scenario():
        cancel = asyncio.Event()
        backend.release("first")
        return await run_weekly(load_accounts(folder), backend, None, paths=paths, stamp={}, concurrency=2,
                                cancel=cancel, on_account=lambda result: cancel.set())

    run = asyncio.run(scenario())
    assert run.manifest["status"] == "cancelled" and run.exit_code == 3
    assert {name: r["status"] for name, r in run.results.items()} == {"first": "ready to send", "second": "not run"}
    assert (paths.run_dir / "accounts" / "first" / "report.md").is_file()
    with paths.index_csv.open(newline="", encoding="utf-8") as fh:
        index = {row["account"]: row for row in csv.DictReader(fh)}
    assert index["second"]["status"] == "not run" and index["second"]["reason"].endswith("; rerun")


def test_a_declared_answers_report_says_how_each_figure_was_computed(tmp_path):
    """An answer that declares its figures (prompt audit-v4): the report adds, under each finding, a note a
    client can follow for each figure it prints; a prose answer's report has none."""
    import asyncio
    from decimal import Decimal

    from reviewtui.weekly.accounts import load_accounts
    from reviewtui.weekly.run import WeeklyPaths, run_weekly
    from tests.stub_backends import ScriptedBackend

    folder = tmp_path / "accounts"
    data = account(folder, "outdoor", "c01-tracking-stopped", "900-000-0001")
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
    paths = WeeklyPaths(tmp_path / "weekly")
    run = asyncio.run(run_weekly(load_accounts(folder), backend, None, paths=paths, stamp={}))
    assert {n: r["status"] for n, r in run.results.items()} == {"outdoor": "ready to send", "shoes": "ready to send"}
    report = (paths.run_dir / "accounts" / "outdoor" / "report.md").read_text(encoding="utf-8")
    assert (f"How the figures were computed:\n\n"
            f"- {first['cost']}: The cost of campaign {name} ({cid}) on {day}.\n"
            f"- {week}: The total cost of campaign {name} ({cid}), 2025-03-01 to 2025-03-07.\n") in report
    assert "How the figures were computed" not in (paths.run_dir / "accounts" / "shoes" / "report.md").read_text(encoding="utf-8")


def test_platform_exports_in_the_accounts_folder_are_read_as_the_importer_reads_them(tmp_path, capsys):
    import shutil

    from reviewtui.accounts.importer import main as import_main
    from reviewtui.weekly.accounts import load_accounts

    fixtures = Path(__file__).resolve().parent / "fixtures" / "accounts"
    accounts = tmp_path / "accounts"
    accounts.mkdir()
    for name in ("google_campaign_daily.csv", "meta_ads_ad_level.csv", "meta_ambiguous_dates.csv"):
        shutil.copy(fixtures / name, accounts / name)
    (accounts / "notes.csv").write_text("owner,comment\nAna,call on Monday\n", encoding="utf-8")

    loaded = {a.name: a for a in load_accounts(accounts)}
    for name in ("google_campaign_daily", "meta_ads_ad_level"):
        fmt = name.split("_")[0]
        imported = tmp_path / f"{name}.json"
        assert import_main(["--format", fmt, str(fixtures / f"{name}.csv"), "-o", str(imported)]) == 0
        assert loaded[name].problem is None, loaded[name].problem
        assert loaded[name].snapshot.data == json.loads(imported.read_text(encoding="utf-8"))
    assert "--date-format" in loaded["meta_ambiguous_dates"].problem
    assert "read as a meta export" in loaded["meta_ambiguous_dates"].problem
    assert "not an account snapshot" in loaded["notes"].problem


def test_without_an_api_key_the_weekly_run_names_no_flag_it_does_not_have(api, repo, capsys, monkeypatch):
    """weekly has no --backend: the missing key is said without the eval's flags."""
    assert claude_eval() == 0
    capsys.readouterr()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert weekly(accounts_folder(repo)) == 2
    err = capsys.readouterr().err
    assert "the claude backend needs ANTHROPIC_API_KEY in the environment" in err
    assert "--backend" not in err


def test_the_readmes_weekly_commands_run_on_the_shipped_sample_accounts(api, repo, capsys):
    """examples/accounts/ (tools/snapgen/samples.py) holds the accounts the README's weekly commands name:
    the stamp check refuses them before a Claude eval and the run reads every one of them after it."""
    samples = Path(__file__).resolve().parents[1] / "examples" / "accounts"
    assert weekly(samples, "--check") == 1
    assert claude_eval() == 0
    assert weekly(samples, "--check") == 0
    api.default = answer(findings_json("summary.no_material_issues"))
    capsys.readouterr()
    code = weekly(samples, "--date", "2026-12-07")
    out = capsys.readouterr().out
    assert code in (0, 3), out
    run = json.loads((repo / "results" / "weekly" / "2026-12-07" / "weekly.json").read_text(encoding="utf-8"))
    statuses = {a["account"]: a["status"] for a in run["accounts"]}
    assert sorted(statuses) == sorted(p.stem for p in samples.glob("*.json")) and len(statuses) == 6
    assert not {s for s in statuses.values()} & {"skipped", "failed", "not run"}, statuses
