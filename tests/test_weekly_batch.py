"""``reviewtui weekly --batch`` through its real path: the stamp made by ``reviewtui eval --backend claude`` on the
fifty cases against the fake Messages API (tests/stamp_fixture.py), then the accounts as one Message Batch through
the same SDK.

A refused stamp makes no batch; every account goes in one batch; an errored, canceled or expired account is failed
alone and a rerun asks only for it; a batched answer is reported exactly as a direct one; a rerun on another day
resumes the batch; a batch collected by another run is not paid again; a real process killed with SIGKILL at each
step, then rerun: one batch, each request paid once, no process left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from reviewtui.runs.batch import BatchRecord, BatchState
from reviewtui.runs.pricing import estimate_cost
from reviewtui.runs.run_folder import FolderLock
from tests.fake_messages_api import answer, api_error, batch_canceled, batch_expired
from tests.batch_steps import STEPS, hold_step, kill_at, release_steps, survivors
from tests.test_weekly import DAY, MADE_UP, account, index_of, weekly

OTHER_DAY = "2026-12-08"
BATCH = ("--batch", "--batch-poll", "0.02")


def reset_batches(api) -> None:
    """The session's fake as a new one for batches: none made, each ending at its second retrieve, no delay."""
    api.batches.clear()
    api.batch_polls = 1
    api.create_batch_delay = api.results_delay = 0.0


@pytest.fixture
def api(stamp_kit, stamped):
    reset_batches(stamp_kit.api)
    yield stamp_kit.api
    reset_batches(stamp_kit.api)


def batch_items(api) -> list:
    """The requests the fake received inside batches (each one paid for)."""
    return [r for r in api.requests if "#" in r.path]


def state_file(root: Path) -> Path:
    return root / "results" / "weekly" / ".work" / "batch.json"


def run_json(root: Path, day: str = DAY) -> dict:
    return json.loads((root / "results" / "weekly" / day / "weekly.json").read_text(encoding="utf-8"))


def ready_accounts(stamp_kit, folder: Path, sources: dict[str, str]) -> dict[str, str]:
    """An account per ``name -> fixture case``, each answered as the reference auditor answers it; name -> marker."""
    markers = {}
    for n, (name, source) in enumerate(sorted(sources.items()), 1):
        markers[name] = f"900-700-{n:04d}"
        stamp_kit.plan_account(account(folder, name, source, markers[name]), markers[name])
    return markers


def test_a_refused_stamp_makes_no_batch(api, stamped, capsys):
    accounts = stamped / "accounts"
    account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001")
    shutil.rmtree(stamped / "results")
    api.clear_requests()
    assert weekly(accounts, *BATCH) == 1
    assert "refused: no Claude run of prompt version" in capsys.readouterr().err
    assert api.count() == 0 and api.batches_created() == []
    assert not (stamped / "results").exists()


@pytest.mark.slow
def test_one_batch_for_every_account_each_failure_alone_then_a_rerun_asks_only_those(stamp_kit, api, stamped,
                                                                                     capsys):
    accounts = stamped / "accounts"
    markers = ready_accounts(stamp_kit, accounts, {"outdoor": "c01-tracking-stopped", "shoes": "c02-brand-lost-is",
                                                   "software": "c03-zero-conv-campaign", "steady": "c07-clean-steady"})
    (accounts / "broken.json").write_text('{"schema_version": "1.0",\n "account": ', encoding="utf-8")
    api.plan(markers["shoes"], api_error(500, "api_error", "Internal server error"))
    api.plan(markers["software"], batch_expired())
    api.plan(markers["steady"], batch_canceled())
    api.batch_polls = 2
    api.clear_requests()

    assert weekly(accounts, "--date", DAY, *BATCH) == 3
    captured = capsys.readouterr()
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"]
    assert sorted(r.marker for r in batch_items(api)) == sorted(markers.values())  # the skipped account is not sent
    assert not [r for r in api.requests if r.path == "/v1/messages"]  # no direct request
    assert "batch msgbatch_01Fake00000000000001 created with 4 request(s)" in captured.err
    assert "batch msgbatch_01Fake00000000000001: ended; 0 processing, 1 succeeded, 1 errored, 1 canceled, 1 expired" \
        in captured.err
    index = index_of(stamped / "results" / "weekly" / DAY)
    assert {name: row["status"] for name, row in index.items()} == {
        "broken": "skipped", "outdoor": "ready to send", "shoes": "failed", "software": "failed", "steady": "failed"}
    assert index["shoes"]["reason"] == "batch request errored (api_error: Internal server error)"
    assert index["software"]["reason"].startswith("batch request expired")
    assert index["steady"]["reason"] == "batch request canceled"
    run = run_json(stamped)
    assert run["batch"] is True and run["batches"] == ["msgbatch_01Fake00000000000001"] and run["status"] == "complete"
    # the one answer paid for, each kind of token at half its price
    [paid] = [r.usage for r in batch_items(api) if r.usage]
    assert run["usage"]["cost_usd"] == pytest.approx(estimate_cost(
        run["backend_details"]["model"], paid["input_tokens"] + paid["cache_creation_input_tokens"]
        + paid["cache_read_input_tokens"], paid["output_tokens"], batch=True,
        cache_write_tokens=paid["cache_creation_input_tokens"],
        cache_read_tokens=paid["cache_read_input_tokens"]), abs=1e-6)
    assert "(batched: each token at half the price)" in captured.out

    for name in ("shoes", "software", "steady"):
        stamp_kit.plan_account(accounts / f"{name}.json", markers[name])
    api.clear_requests()
    assert weekly(accounts, "--date", DAY, *BATCH) == 3  # the broken snapshot is still skipped
    assert api.batches_created() == ["msgbatch_01Fake00000000000001", "msgbatch_01Fake00000000000002"]
    assert sorted(r.marker for r in batch_items(api)) == sorted(markers[n] for n in ("shoes", "software", "steady"))
    index = index_of(stamped / "results" / "weekly" / DAY)
    assert {name for name, row in index.items() if row["status"] == "ready to send"} == set(markers)

    api.clear_requests()
    assert weekly(accounts, "--date", DAY, *BATCH) == 3
    assert api.count() == 0 and len(api.batches_created()) == 2  # every answer from the cache: no batch at all


@pytest.mark.slow
def test_a_batched_answer_is_reported_exactly_as_a_direct_one(stamp_kit, api, stamped, capsys):
    """One code path for the report of an answer: holds, escaping, readiness, byte for byte."""
    accounts = stamped / "accounts"
    markers = ready_accounts(stamp_kit, accounts, {"outdoor": "c01-tracking-stopped"})
    held = account(accounts, "shoes<script>", "c02-brand-lost-is", "900-700-0009", name="<!-- ![x](http://t.example/p)")
    api.plan("900-700-0009", answer(json.dumps({"findings": [
        {"id": "pacing.overspend", "scope": None, "severity": "medium",
         "claim": "# Spend <script>runs</script> ahead", "evidence": f"Spend was {MADE_UP} this month."}]})))
    assert held.exists() and markers
    assert weekly(accounts, "--date", DAY) == 3
    api.batch_polls = 0
    assert weekly(accounts, "--date", OTHER_DAY, "--no-cache", *BATCH) == 3
    assert len(api.batches_created()) == 1
    direct, batched = (stamped / "results" / "weekly" / day for day in (DAY, OTHER_DAY))
    reports = sorted(p.relative_to(direct) for p in direct.glob("accounts/*/report.md"))
    assert len(reports) == 2
    for report in reports:
        assert (batched / report).read_bytes() == (direct / report).read_bytes()
    assert (direct / "index.csv").read_bytes() == (batched / "index.csv").read_bytes()
    assert index_of(batched)["shoes<script>"]["status"] == "hold for review"
    assert "\\# Spend \\<script\\>runs\\</script\\> ahead" in \
        (batched / "accounts" / "shoes<script>" / "report.md").read_text(encoding="utf-8")  # text, not markup


@pytest.mark.slow
def test_a_rerun_on_another_day_resumes_the_batch_instead_of_paying_again(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    markers = ready_accounts(stamp_kit, accounts, {"outdoor": "c01-tracking-stopped", "shoes": "c02-brand-lost-is"})
    api.batch_polls = None  # in progress until the test ends it
    assert weekly(accounts, "--date", DAY, *BATCH, "--batch-timeout", "0.3") == 3
    err = capsys.readouterr().err
    assert "batch msgbatch_01Fake00000000000001 still not ended after 0.3s" in err
    run = run_json(stamped)
    assert run["status"] == "incomplete" and run["counts"]["not run"] == 2
    assert run["accounts"][0]["reason"].startswith("its batch had not ended when the run stopped waiting; rerun")

    api.end_batches()
    api.clear_requests()
    assert weekly(accounts, "--date", OTHER_DAY, *BATCH) == 0  # the next morning
    assert "resuming batch msgbatch_01Fake00000000000001" in capsys.readouterr().err
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"] and batch_items(api) == []
    assert set(index_of(stamped / "results" / "weekly" / OTHER_DAY)) == set(markers)


@pytest.mark.slow
def test_a_batch_collected_by_another_run_is_not_paid_for_again(stamp_kit, api, stamped, capsys):
    """Folder B holds one of folder A's accounts: B's run collects A's batch (the state file is shared); every
    answer in it is kept, so A's rerun pays for nothing."""
    first = stamped / "first"
    ready_accounts(stamp_kit, first, {"outdoor": "c01-tracking-stopped", "shoes": "c02-brand-lost-is"})
    api.batch_polls = None
    assert weekly(first, "--date", DAY, *BATCH, "--batch-timeout", "0.3") == 3
    second = stamped / "second"
    second.mkdir()
    shutil.copy(first / "outdoor.json", second / "outdoor.json")
    api.end_batches()
    assert weekly(second, "--date", DAY, *BATCH) == 0
    assert "resuming batch msgbatch_01Fake00000000000001" in capsys.readouterr().err

    api.clear_requests()
    assert weekly(first, "--date", DAY, *BATCH) == 0
    assert api.count() == 0 and api.batches_created() == ["msgbatch_01Fake00000000000001"]


@pytest.mark.slow
def test_a_damaged_state_file_stops_before_anything_is_sent(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    ready_accounts(stamp_kit, accounts, {"outdoor": "c01-tracking-stopped"})
    state = state_file(stamped)
    state.parent.mkdir(parents=True)
    state.write_text("{not json", encoding="utf-8")
    api.clear_requests()
    assert weekly(accounts, "--date", DAY, *BATCH) == 2
    err = capsys.readouterr().err
    assert f"{Path('results') / 'weekly' / '.work' / 'batch.json'} is not a batch state file" in err
    assert "delete it" in err
    assert api.count() == 0 and state.read_text(encoding="utf-8") == "{not json"
    assert not (stamped / "results" / "weekly" / DAY).exists()


@pytest.mark.slow
def test_a_second_weekly_batch_run_at_the_same_time_is_refused(stamp_kit, api, stamped, capsys):
    accounts = stamped / "accounts"
    ready_accounts(stamp_kit, accounts, {"outdoor": "c01-tracking-stopped"})
    lock = FolderLock(state_file(stamped).with_suffix(".lock"), "weekly batch run")
    lock.acquire("test")
    try:
        api.clear_requests()
        assert weekly(accounts, "--date", DAY, *BATCH) == 3
    finally:
        lock.release()
    err = capsys.readouterr().err
    assert f"cannot send or collect the weekly batch: another weekly batch run (process {os.getpid()}" in err
    assert api.count() == 0 and api.batches_created() == []


def test_collected_batches_are_forgotten_after_their_time(tmp_path):
    state = BatchState(tmp_path / "batch.json", [
        BatchRecord("msgbatch_old", "2026-01-01T00:00:00Z", {}, collected=True),
        BatchRecord("msgbatch_open", "2026-01-01T00:00:00Z", {}),  # never collected: a rerun may still resume it
        BatchRecord("msgbatch_new", "2026-03-01T00:00:00Z", {}, collected=True)])
    assert state.forget_collected(time.mktime((2026, 2, 1, 0, 0, 0, 0, 0, 0))) == 1
    assert [b.id for b in BatchState.load(state.path).batches] == ["msgbatch_open", "msgbatch_new"]


# --------------------------------------------------------------------------
# kill -9 at every step of a weekly batch run, then a rerun: one batch, each request paid once, no process left
# --------------------------------------------------------------------------

# Twelve accounts from the fixture cases whose auditor answers are ready to send (c09's learning-period finding
# quotes no figure, so it is held).
READY_FIXTURES = ("c01", "c02", "c03", "c04", "c05", "c06", "c07", "c08", "c10")
MANY = {f"acct{i:02d}": READY_FIXTURES[i % len(READY_FIXTURES)] for i in range(12)}


def fixture_sources() -> dict[str, str]:
    from tests.stub_backends import FIXTURE_CASES

    by_prefix = {p.name[:3]: p.name for p in FIXTURE_CASES.iterdir() if p.is_dir()}
    return {name: by_prefix[prefix] for name, prefix in MANY.items()}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the run's processes")
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.slow
def test_kill_9_at_any_step_then_a_rerun_makes_one_batch_and_pays_nothing_twice(step, stamp_kit, api, stamped,
                                                                                capsys):
    accounts = stamped / "accounts"
    markers = ready_accounts(stamp_kit, accounts, fixture_sources())
    hold_step(api, step)
    api.clear_requests()
    argv = ["weekly", str(accounts), "--date", DAY, "--timeout", "5", "--max-retries", "0", *BATCH]
    work = stamped / "results" / "weekly" / ".work" / DAY
    started = kill_at(step, argv, env={**os.environ, **stamp_kit.env()}, cwd=stamped, api=api, work=work)
    assert not survivors(started), "a process of the killed run lives on"
    assert not (stamped / "results" / "weekly" / DAY).exists()  # a killed run never took the folder's place

    release_steps(api)
    assert weekly(accounts, "--date", DAY, *BATCH) == 0, capsys.readouterr().err
    assert len(api.batches_created()) == 1  # the rerun found the batch the killed run made, or made the only one
    assert sorted(r.marker for r in batch_items(api)) == sorted(markers.values())  # each request paid once
    assert not [r for r in api.requests if r.path == "/v1/messages"]
    assert {row["status"] for row in index_of(stamped / "results" / "weekly" / DAY).values()} == {"ready to send"}
