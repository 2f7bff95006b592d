"""Scoring in a worker process (reviewtui/runs/scoring_pool.py): the same records as scoring in process,
through the real eval, the real SDK and the fake Messages API; a scoring error or a dead worker is one
case's error row, never a hang or a lost run; Ctrl-C reaching the worker's process group changes nothing."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewtui.assistant import PROMPT_VERSION

from reviewtui.backends.base import CaseOutput
from reviewtui.backends.claude import ClaudeBackend
from reviewtui.caseset.cases import load_case, load_case_set
from reviewtui.commands.eval import main
from reviewtui.runs.session import run_eval
from reviewtui.runs import case_records, scoring_pool
from reviewtui.runs.settings import RunSettings
from reviewtui.runs.stored_runs import Run
from tests.fake_messages_api import answer, findings_json, hang, serving_in_env, slow_answer, write_case
from tests.processes import alive, children

KEY = "fake-anthropic-key-scoring-pool-test-7d2e"
REPO = Path(__file__).resolve().parents[1]
REPEATS = 3
# Six cases x 3 repeats: 18 answers, at least MIN_POOLED_JOBS, so a claude run scores in the worker.
ANSWERS = {
    "c01-found": findings_json("tracking.conversions_stopped"),
    "c02-missed": findings_json("summary.no_material_issues"),
    "c03-made-up": json.dumps({"findings": [{"id": "tracking.conversions_stopped", "scope": "111",
                                              "claim": "Conversions stopped.",
                                              "evidence": "Spend was $48,213.77 on 2025-03-09 with 0 conversions.",
                                              "severity": "high"}]}),
    "c04-unparseable": "not JSON at all",
    "c05-two": findings_json("tracking.conversions_stopped", "pacing.overspend"),
    "c06-found": findings_json("tracking.conversions_stopped"),
}


@pytest.fixture(autouse=True)
def scores_not_stored_yet(tmp_path, monkeypatch):
    """These tests are about where an answer is scored: no score stored by an earlier test may answer for it."""
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))


@pytest.fixture
def cases_dir(tmp_path):
    cases = tmp_path / "cases"
    for case_id in ANSWERS:
        write_case(cases, case_id, f"ACCT-{case_id.upper()}")
    return cases


def plan_answers(api, delays: tuple[float, ...] = (0.02,)) -> None:
    """Each case's answer after the next of ``delays`` (cycled): the pace at which requests are answered."""
    for n, (case_id, text) in enumerate(ANSWERS.items()):
        api.plan(f"ACCT-{case_id.upper()}", slow_answer(text, delays[n % len(delays)]))


def eval_args(cases_dir: Path, results_dir: Path) -> list[str]:
    return ["--backend", "claude", "--cases", str(cases_dir), "--results-dir", str(results_dir),
            "--concurrency", "4", "--repeats", str(REPEATS)]


API_DETAILS = ("provenance", "cache_creation_input_tokens", "cache_read_input_tokens")


def without_api_details(node):
    """A case file's record less what the API says of each answer beside the answer: its provenance (ids and
    endpoint differ from one fake server to another) and how its input split into prompt-cache writes and reads
    (which of the first requests, sent at once, finds the shared prefix already written is a matter of timing)."""
    if isinstance(node, dict):
        return {k: without_api_details(v) for k, v in node.items() if k not in API_DETAILS}
    if isinstance(node, list):
        return [without_api_details(v) for v in node]
    return node


def result_files(results_dir: Path) -> dict[str, object]:
    """Every case file (its record, less ``without_api_details``) and the CSV's bytes, by name (the manifest
    differs by its times and paths)."""
    [run_dir] = [p for p in results_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    files: dict[str, object] = {p.name: without_api_details(json.loads(p.read_bytes()))
                                for p in (run_dir / "cases").glob("*.json")}
    files.update({p.name: p.read_bytes() for p in results_dir.glob("*.csv")})
    return files


class PoolsMade:
    """Every ScoringPool a run makes, so a test can reach its worker."""

    def __init__(self, monkeypatch) -> None:
        self.pools: list[scoring_pool.ScoringPool] = []
        made = self.pools

        class Recorded(scoring_pool.ScoringPool):
            def __init__(self) -> None:
                super().__init__()
                made.append(self)

        monkeypatch.setattr(scoring_pool, "ScoringPool", Recorded)


@pytest.mark.slow
def test_a_pooled_run_writes_the_records_of_a_run_scored_in_process(cases_dir, tmp_path, monkeypatch,
                                                                                 capsys):
    made = PoolsMade(monkeypatch)

    # Scoring in this process is broken for the pooled run: its records can only come from the worker.
    def not_here(*args, **kwargs):
        raise AssertionError("scored in the client's process")

    with monkeypatch.context() as patched, serving_in_env(monkeypatch, KEY) as api:
        patched.setattr(case_records, "score_case", not_here)
        plan_answers(api)
        main(eval_args(cases_dir, tmp_path / "pooled"))
    assert len(made.pools) == 1 and made.pools[0].restarts == 0
    pooled = result_files(tmp_path / "pooled")

    monkeypatch.setattr(scoring_pool, "MIN_POOLED_JOBS", 10**6)  # the same run, scored here
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache-2"))  # not the pooled run's stored scores
    with serving_in_env(monkeypatch, KEY) as api:  # a fresh fake: its prompt cache starts empty again
        plan_answers(api, delays=(0.0, 0.06))  # answered at another pace: the records do not depend on it
        main(eval_args(cases_dir, tmp_path / "here"))
    assert len(made.pools) == 1
    here = result_files(tmp_path / "here")

    assert sorted(pooled) == sorted([f"{case_id}.json" for case_id in ANSWERS] + [f"{PROMPT_VERSION}.csv"])
    assert pooled == here
    scored = {case_id: pooled[f"{case_id}.json"] for case_id in ANSWERS}
    assert "scoring failed" not in json.dumps(scored)
    assert scored["c03-made-up"]["score"]["fabricated_figures"]  # the grounding ran, in the worker
    assert scored["c01-found"]["score"]["status"] == "ok" and scored["c01-found"]["score"]["recall"] == 1.0
    assert {r["score"]["status"] for r in scored["c04-unparseable"]["repeats"]} == {"unparseable"}
    capsys.readouterr()


@pytest.mark.slow
def test_a_scoring_error_in_the_worker_is_the_same_error_row_as_in_process(tmp_path):
    case = load_case(write_case(tmp_path / "cases", "c01-error", "ACCT-E1"))
    outputs = [CaseOutput(case.case_id, findings_json("tracking.conversions_stopped"))]
    pool = scoring_pool.ScoringPool()
    try:
        pooled = pool.score_record(case, outputs, figures="no-such-mode")
        after = pool.score_record(case, outputs, figures="derived")
    finally:
        pool.close()
    in_process = case_records.score_record(case, outputs, figures="no-such-mode")
    assert pooled.to_file_dict() == in_process.to_file_dict()
    assert pooled.scores[0].error == "scoring failed: ValueError: unknown figures mode 'no-such-mode'; use one of derived, strict"
    assert after.to_file_dict() == case_records.score_record(case, outputs, figures="derived").to_file_dict()
    assert pool.restarts == 0


@pytest.mark.slow
def test_the_worker_starts_under_the_apps_captured_stderr(tmp_path):
    """Inside the app, sys.stderr is Textual's capture, whose fileno() is -1; the spawn (of the worker
    and of multiprocessing's resource tracker, once a process) must not hand that on. A fresh
    interpreter, so the resource tracker is not already running."""
    case_dir = write_case(tmp_path / "cases", "c01-app", "ACCT-APP1")
    script = (
        "import sys\n"
        "from reviewtui.backends.base import CaseOutput\n"
        "from reviewtui.caseset.cases import load_case\n"
        "from reviewtui.runs import scoring_pool\n"
        "from tests.fake_messages_api import findings_json\n"
        "class Captured:\n"  # what Textual puts in sys.stderr while the app runs
        "    def write(self, text): return len(text)\n"
        "    def flush(self): pass\n"
        "    def fileno(self): return -1\n"
        "real = sys.stderr\n"
        "sys.stderr = Captured()\n"
        f"case = load_case({str(case_dir)!r})\n"
        "pool = scoring_pool.ScoringPool()\n"
        "record = pool.score_record(case, [CaseOutput(case.case_id, findings_json('tracking.conversions_stopped'))], figures='derived')\n"
        "pid = pool.worker_pid\n"
        "pool.close()\n"
        "sys.stderr = real\n"
        "print(pid is not None, pool.in_process, record.scores[0].error)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False", "None"]  # scored in a worker, without an error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the worker's signal state in /proc")
@pytest.mark.slow
def test_sigint_at_the_worker_does_not_stop_it(tmp_path):
    """Ctrl-C in a terminal reaches the whole process group, the worker included: the run handles it, not the worker."""
    case = load_case(write_case(tmp_path / "cases", "c01-sigint", "ACCT-S1"))
    outputs = [CaseOutput(case.case_id, findings_json("tracking.conversions_stopped"))]
    # As in a terminal: SIGINT raises KeyboardInterrupt (a test runner's worker may ignore it, and a child inherits that).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        pool = scoring_pool.ScoringPool()
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        first = pool.score_record(case, outputs, figures="derived")
        pid = pool.worker_pid
        assert pid is not None and pid != os.getpid()
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _sigint_settled(pid):
            time.sleep(0.01)
        again = pool.score_record(case, outputs, figures="derived")
        assert pool.worker_pid == pid and pool.restarts == 0
    finally:
        pool.close()
    assert again.to_file_dict() == first.to_file_dict()
    assert first.scores[0].status == "ok"


def _sigint_settled(pid: int) -> bool:
    """The worker is past a SIGINT sent to it: held (blocked), ignored, or gone; a handler that caught it may still
    be raising KeyboardInterrupt, so that is not settled until the process ends."""
    if not alive(pid):
        return True
    fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    bit = 1 << (signal.SIGINT - 1)
    pending = (int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)) & bit
    if pending:
        return bool(int(fields["SigBlk"], 16) & bit)
    return bool(int(fields["SigIgn"], 16) & bit)


@pytest.mark.slow
def test_a_worker_that_cannot_start_leaves_the_scoring_in_process(tmp_path):
    """A script read from stdin: a spawned interpreter cannot import its main module, so the worker dies starting."""
    case_dir = write_case(tmp_path / "cases", "c01-stdin", "ACCT-T1")
    script = f"""
import json
from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case
from reviewtui.runs import scoring_pool
from reviewtui.runs.case_records import score_record
from tests.fake_messages_api import findings_json
case = load_case({str(case_dir)!r})
outputs = [CaseOutput(case.case_id, findings_json("tracking.conversions_stopped"))]
pool = scoring_pool.ScoringPool()
record = pool.score_record(case, outputs, figures="derived")
pool.close()
print(json.dumps({{"same": record.to_file_dict() == score_record(case, outputs, figures="derived").to_file_dict(),
                  "status": record.scores[0].status, "in_process": pool.in_process}}))
"""
    done = subprocess.run([sys.executable, "-"], input=script, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"same": True, "status": "ok", "in_process": True}


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_one_scoring_and_the_run_goes_on(cases_dir, tmp_path, monkeypatch):
    made = PoolsMade(monkeypatch)
    seen: list[case_records.CaseRecord] = []

    def on_record(record: case_records.CaseRecord) -> None:
        seen.append(record)
        if len(seen) == 1:  # the worker dies between two cases, as the kernel's out-of-memory killer would do it
            pool = made.pools[0]
            pid = pool.worker_pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and alive(pid):  # gone before the next case is scored
                time.sleep(0.01)

    with serving_in_env(monkeypatch, KEY) as api:
        plan_answers(api)
        backend = ClaudeBackend(cache_dir=tmp_path / "responses")
        case_set = load_case_set(cases_dir)

        async def run() -> Run:
            try:
                settings = RunSettings(backend="claude", cases_dir=cases_dir, results_dir=tmp_path / "r", concurrency=4,
                                       repeats=REPEATS)
                return await run_eval(case_set, backend, settings, on_record=on_record)
            finally:
                await backend.aclose()

        run_result = asyncio.run(run())

    assert len(seen) == len(ANSWERS) * REPEATS  # every answer was recorded: nothing hung, nothing lost
    failed = [r for r in seen if any((s.error or "").startswith("scoring failed: the scoring process stopped")
                                     for s in r.scores)]
    assert len(failed) == 1 and failed[0] is seen[1]  # the next case to score after the kill, and only it
    # Its answer that had just arrived is the error row; a repeat of it scored before keeps its stored score.
    assert [s.status == "error" for s in failed[0].scores].count(True) == 1
    assert made.pools[0].restarts == 1
    later = seen[2:]
    assert all("scoring failed" not in (s.error or "") for r in later for s in r.scores)  # a fresh worker scored them
    assert run_result.manifest["status"] in ("complete", "incomplete")
    assert (tmp_path / "r" / PROMPT_VERSION / "manifest.json").exists()


def start_pooled_run(api, cases_dir: Path, results_dir: Path, output: int) -> subprocess.Popen:
    """A real eval process, its own process group (as a terminal's job), whose last three cases hang: it scores
    the first three in its worker and waits."""
    for i, case_id in enumerate(ANSWERS):
        api.plan(f"ACCT-{case_id.upper()}", answer(ANSWERS[case_id]) if i < 3 else hang(60))
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}
    return subprocess.Popen([sys.executable, "-m", "reviewtui.commands.main", "eval", *eval_args(cases_dir, results_dir)],
                            cwd=REPO, env=env, stdout=output, stderr=output, text=True, start_new_session=True)


def landed(results_dir: Path) -> list[Path]:
    """The case files a running eval has written so far (in its own folder until it ends)."""
    return list((results_dir / ".work" / PROMPT_VERSION / "cases").glob("*.json"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the process's children")
@pytest.mark.slow
def test_ctrl_c_to_the_process_group_of_a_pooled_run_exits_3_cleanly(cases_dir, tmp_path, monkeypatch):
    with serving_in_env(monkeypatch, KEY) as api:
        results_dir = tmp_path / "r"
        proc = start_pooled_run(api, cases_dir, results_dir, subprocess.PIPE)
        try:
            case_files = results_dir / PROMPT_VERSION / "cases"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and len(landed(results_dir)) < 3:
                time.sleep(0.02)
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the eval and its scoring worker
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err and "cancelled" in err
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in case_files.glob("*.json")}
    assert set(records) == set(list(ANSWERS)[:3])
    assert "scoring failed" not in json.dumps(records)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the process's children")
@pytest.mark.slow
def test_the_scoring_worker_ends_when_its_run_is_killed(cases_dir, tmp_path, monkeypatch):
    """kill -9 leaves no clean-up to the run: its scoring worker must notice and end, not live on under PID 1."""
    with serving_in_env(monkeypatch, KEY) as api:
        results_dir = tmp_path / "r"
        proc = start_pooled_run(api, cases_dir, results_dir, subprocess.DEVNULL)
        workers: list[int] = []
        try:
            deadline = time.monotonic() + 60  # a guard against hanging the suite, not a speed assertion
            while not (len(landed(results_dir)) >= 3 and (workers := children(proc.pid))):
                assert proc.poll() is None and time.monotonic() < deadline, "the run ended before the kill"
                time.sleep(0.02)
            proc.kill()
            proc.wait(timeout=30)
            deadline = time.monotonic() + 30
            while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
                time.sleep(0.05)
            left = [pid for pid in workers if alive(pid)]
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of its group, so the suite leaves nothing
            except ProcessLookupError:
                pass
    assert workers and not left, f"still running after their parent was killed: {left}"
