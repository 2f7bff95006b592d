"""``reviewtui eval --batch`` end to end: the real anthropic SDK against the fake API's Message Batches.

Each result type reported per case, a rerun sending only what did not
succeed, a warm rerun sending nothing; a real process killed while waiting
and a rerun that resumes the same batch; a batch the API does not know, a
damaged state file, a batch that does not end in time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.commands.eval import main
from reviewtui.runs.pricing import estimate_cost
from tests.processes import alive, children
from tests.fake_messages_api import (
    answer,
    api_error,
    batch_canceled,
    batch_expired,
    findings_json,
    serving_in_env,
    write_cases,
)

KEY = "fake-anthropic-key-batch-test-7d2e"
VERSION = assistant.PROMPT_VERSION
GOOD = findings_json("tracking.conversions_stopped")
MARKERS = {"c01-ok": "ACCT-B01", "c02-errored": "ACCT-B02", "c03-canceled": "ACCT-B03", "c04-expired": "ACCT-B04"}


@pytest.fixture
def api(monkeypatch):
    with serving_in_env(monkeypatch, KEY) as server:
        yield server


@pytest.fixture
def cases_dir(tmp_path):
    return write_cases(tmp_path / "cases", MARKERS)


def args(cases_dir: Path, results: Path, *extra: str) -> list[str]:
    return ["--backend", "claude", "--cases", str(cases_dir), "--results-dir", str(results), "--batch",
            "--batch-poll", "0.05", *extra]  # fmt: skip


def manifest(results: Path) -> dict:
    [path] = results.glob("*/manifest.json")
    return json.loads(path.read_text(encoding="utf-8"))


def batch_state(results: Path) -> Path:
    """The version's batch state: in no run's folder, so a killed run leaves it where the rerun looks."""
    return results / ".work" / f"{VERSION}.batch.json"


def batch_items(api) -> list:
    return [r for r in api.requests if "#" in r.path]


@pytest.mark.slow
def test_each_result_type_per_case_then_a_rerun_sends_only_those(api, cases_dir, tmp_path, capsys):
    api.plan("ACCT-B01", answer(GOOD))
    api.plan("ACCT-B02", api_error(500, "api_error", "Internal server error"))
    api.plan("ACCT-B03", batch_canceled())
    api.plan("ACCT-B04", batch_expired())
    api.batch_polls = 2
    api.extra_result_lines = [{"custom_id": "not-ours-r0", "result": {"type": "canceled"}}]
    results = tmp_path / "results"

    assert main(args(cases_dir, results, "--repeats", "2")) == 3
    first = capsys.readouterr()
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"]
    token = json.loads(batch_state(results).read_text(encoding="utf-8"))["batches"][0]["token"]
    assert len(batch_items(api)) == 8 and {r.path.split("#")[1] for r in batch_items(api)} == {
        f"{token}-{c}-r{k}" for c in MARKERS for k in (0, 1)}  # the batch's token, the case, the repeat
    assert "batch msgbatch_01Fake00000000000001: in_progress; 8 processing, 0 succeeded" in first.err
    assert "batch msgbatch_01Fake00000000000001: ended; 0 processing, 2 succeeded, 2 errored, 2 canceled, 2 expired" in first.err
    assert "unknown custom_id 'not-ours-r0'" in first.err
    assert "  c02-errored: batch request errored (api_error: Internal server error)" in first.out
    assert "  c03-canceled: batch request canceled" in first.out
    assert "  c04-expired: batch request expired" in first.out
    m = manifest(results)
    assert m["batch"] is True and m["summary"]["error_cases"] and m["status"] == "incomplete"
    # every succeeded answer is priced at the batch discount, each kind of token at its rate
    paid = [r.usage for r in batch_items(api) if r.usage]
    expected = sum(estimate_cost("claude-sonnet-5-5", u["input_tokens"] + u["cache_creation_input_tokens"]
                                 + u["cache_read_input_tokens"], u["output_tokens"], batch=True,
                                 cache_write_tokens=u["cache_creation_input_tokens"],
                                 cache_read_tokens=u["cache_read_input_tokens"]) for u in paid)
    assert m["usage"]["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert m["usage"]["cache_read_tokens"] > 0  # the second repeat read the prefix the first wrote
    state = json.loads(batch_state(results).read_text(encoding="utf-8"))
    assert state["batches"][0]["id"] == "msgbatch_01Fake00000000000001" and state["batches"][0]["collected"] is True

    for marker in list(MARKERS.values())[1:]:
        api.plan(marker, answer(GOOD))
    api.clear_requests()
    assert main(args(cases_dir, results, "--repeats", "2")) == 0
    assert api.batches_created()[-1] == "msgbatch_01Fake00000000000002"
    assert sorted(r.marker for r in batch_items(api)) == sorted(["ACCT-B02", "ACCT-B03", "ACCT-B04"] * 2)
    assert "2 answer(s) from the cache cost nothing" in capsys.readouterr().out

    api.clear_requests()
    assert main(args(cases_dir, results, "--repeats", "2")) == 0
    assert api.count() == 0 and len(api.batches_created()) == 2


def _env(api) -> dict[str, str]:
    return {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}


def _start_and_kill(api, argv: list[str], state: Path) -> None:
    """Start a batch run in a real process and kill it (SIGKILL: no clean-up) while it waits."""
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui.commands.eval", *argv], env=_env(api),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # a guard against hanging the suite, not a speed assertion
        while not (state.exists() and api.batches and next(iter(api.batches.values()))["retrieves"] >= 2):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.communicate(timeout=30)


@pytest.mark.slow
def test_a_killed_run_resumes_the_same_batch_and_pays_nothing_twice(api, cases_dir, tmp_path, capsys):
    for marker in MARKERS.values():
        api.plan(marker, answer(GOOD))
    api.batch_polls = None  # in progress until the test ends it
    results = tmp_path / "results"
    argv = args(cases_dir, results)
    _start_and_kill(api, argv, batch_state(results))
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"]

    api.end_batches()
    assert main(argv) == 0  # the rerun needs no process of its own: it reads the state file the killed one left
    assert "resuming batch msgbatch_01Fake00000000000001" in capsys.readouterr().err
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"]  # no second batch
    assert sorted(r.marker for r in batch_items(api)) == sorted(MARKERS.values())  # each request paid once
    assert manifest(results)["summary"]["scored"] == 4


@pytest.mark.slow
def test_an_unknown_batch_is_named_with_the_fix(api, cases_dir, tmp_path, capsys):
    for marker in MARKERS.values():
        api.plan(marker, answer(GOOD))
    api.batch_polls = None
    results = tmp_path / "results"
    argv = args(cases_dir, results)
    state = batch_state(results)
    _start_and_kill(api, argv, state)
    api.batches.clear()  # deleted at the API

    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "batch msgbatch_01Fake00000000000001 is not known to the API (HTTP 404)" in err
    assert f"delete {state} to send its requests in a new batch" in err
    assert state.exists()  # nothing thrown away


def test_a_damaged_state_file_stops_before_anything_runs(api, cases_dir, tmp_path, capsys):
    results = tmp_path / "results"
    state = batch_state(results)
    state.parent.mkdir(parents=True)
    state.write_text("{not json", encoding="utf-8")
    assert main(args(cases_dir, results)) == 2
    err = capsys.readouterr().err
    assert f"{state} is not a batch state file" in err and "delete it" in err
    assert api.count() == 0 and state.read_text(encoding="utf-8") == "{not json"


@pytest.mark.slow
def test_a_batch_that_does_not_end_in_time_names_its_id_and_a_rerun_collects_it(api, cases_dir, tmp_path, capsys):
    for marker in MARKERS.values():
        api.plan(marker, answer(GOOD))
    api.batch_polls = None
    results = tmp_path / "results"
    assert main(args(cases_dir, results, "--batch-timeout", "0.3")) == 3
    err = capsys.readouterr().err
    assert "batch msgbatch_01Fake00000000000001 still not ended after 0.3s" in err
    assert "rerun the same command to resume it" in err
    api.end_batches()
    assert main(args(cases_dir, results)) == 0, capsys.readouterr().err
    assert api.batches_created() == ["msgbatch_01Fake00000000000001"]


def test_batch_needs_the_claude_backend(cases_dir, tmp_path, capsys):
    assert main(["--backend", "rules", "--cases", str(cases_dir), "--results-dir", str(tmp_path / "r"), "--batch"]) == 2
    assert "--batch needs the claude backend" in capsys.readouterr().err


# --------------------------------------------------------------------------
# kill -9 at every step of a batch run, then a rerun: one batch, each request paid once, no process left
# --------------------------------------------------------------------------

MANY = {f"c{i:02d}-kill": f"ACCT-K{i:02d}" for i in range(1, 13)}
WORK = Path(".work") / VERSION


def _at(step: str, api, results: Path) -> bool:
    """Whether the run has reached ``step`` (what the test can see of it: the fake's requests, the files)."""
    if step == "starting":  # the run's folder is there; the batch is not asked for yet
        return (results / WORK / "manifest.json").exists()
    if step == "creating":  # the API made the batch; its answer (the id) is held back
        return bool(api.batches)
    if step == "waiting":
        return bool(api.batches) and next(iter(api.batches.values()))["retrieves"] >= 2
    if step == "reading results":  # the results were asked for; they are held back
        return any(r.path.endswith("/results") for r in api.requests)
    if step == "recording":  # answers are being scored and written
        return any((results / WORK / "cases").glob("*.json"))
    raise ValueError(step)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the run's processes")
@pytest.mark.parametrize("step", ["starting", "creating", "waiting", "reading results", "recording"])
@pytest.mark.slow
def test_kill_9_at_any_step_then_a_rerun_makes_one_batch_and_pays_nothing_twice(step, api, tmp_path, capsys):
    cases = write_cases(tmp_path / "cases", MANY)
    for marker in MANY.values():
        api.plan(marker, answer(GOOD))
    api.batch_polls = 0 if step in ("reading results", "recording") else None
    api.create_batch_delay = 60.0 if step == "creating" else 0.0
    api.results_delay = 60.0 if step == "reading results" else 0.0
    results = tmp_path / "results"
    argv = args(cases, results, "--batch-poll", "0.02")
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui.commands.eval", *argv], env=_env(api),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # a guard against hanging the suite, not a speed assertion
        while not _at(step, api, results):
            assert proc.poll() is None and time.monotonic() < deadline, f"the run ended before {step}: " + \
                proc.communicate()[1][-2000:]
            time.sleep(0.001)
        started = children(proc.pid)
        proc.kill()  # SIGKILL: no clean-up of any kind
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in started if alive(pid)], "a process of the killed run lives on"
    assert not (results / VERSION).exists()  # a killed run never took the record's place

    api.create_batch_delay = api.results_delay = 0.0
    api.end_batches()
    assert main(argv) == 0, capsys.readouterr().err
    assert len(api.batches_created()) == 1  # the rerun found the batch the killed run made, or made the only one
    assert sorted(r.marker for r in batch_items(api)) == sorted(MANY.values())  # each request paid once
    assert manifest(results)["summary"]["scored"] == len(MANY)


@pytest.mark.slow
def test_a_batch_that_cannot_be_told_apart_from_another_is_not_sent_again(api, cases_dir, tmp_path, capsys):
    """The killed run's batch has no id saved, and two batches of its size were made since: the rerun cannot
    know which is its own while they run, so it says so and sends nothing (a second batch would pay twice)."""
    for marker in MARKERS.values():
        api.plan(marker, answer(GOOD))
    api.batch_polls = None
    api.create_batch_delay = 60.0
    results = tmp_path / "results"
    argv = args(cases_dir, results)
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui.commands.eval", *argv], env=_env(api),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not api.batches:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    api.create_batch_delay = 0.0
    other = write_cases(tmp_path / "other", {f"x0{i}": f"OTHER-{i}" for i in range(1, 5)})
    assert main(args(other, tmp_path / "elsewhere", "--batch-timeout", "0.1")) == 3  # another job's batch, same size
    capsys.readouterr()

    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "may be any of msgbatch_01Fake00000000000002, msgbatch_01Fake00000000000001" in err and "wait until they end" in err
    assert len(api.batches_created()) == 2  # nothing sent again
