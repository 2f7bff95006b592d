"""Resuming a run in the core (used by the app's "start again"): finished cases are not asked again."""

from __future__ import annotations

import asyncio
import hashlib

from reviewtui.caseset.cases import load_case_set
from reviewtui.runs.session import run_eval
from reviewtui.runs.settings import RunSettings
from reviewtui.runs.stored_runs import load_run
from tests.app.review_fixture import CASE_IDS, CountingStubBackend, write_case_set


async def _cancel_after(backend: CountingStubBackend, cancel: asyncio.Event, finished: int) -> None:
    while backend.total_calls <= finished:
        await asyncio.sleep(0)
    cancel.set()


async def test_resume_runs_only_unfinished_cases(tmp_path):
    case_set = load_case_set(write_case_set(tmp_path))
    results = tmp_path / "results"
    backend = CountingStubBackend(hold_after=2)  # the third call and later wait forever
    cancel = asyncio.Event()
    watcher = asyncio.ensure_future(_cancel_after(backend, cancel, 2))
    run = await run_eval(case_set, backend, RunSettings(results_dir=results, concurrency=1), cancel=cancel)
    await watcher
    assert run.manifest["status"] == "cancelled"
    finished = sorted(load_run(run.run_dir).records)
    assert len(finished) == 2

    again = CountingStubBackend()
    kept: list[str] = []
    run = await run_eval(case_set, again, RunSettings(results_dir=results, concurrency=2, resume=True),
                         on_record=lambda record: kept.append(record.case_id))
    assert run.manifest["status"] == "complete"
    assert sorted(again.calls) == sorted(set(CASE_IDS) - set(finished))  # the finished two were not asked
    assert all(n == 1 for n in again.calls.values())
    assert sorted(load_run(run.run_dir).records) == sorted(CASE_IDS)
    assert sorted(kept) == sorted(CASE_IDS)  # kept and new records are all reported


async def test_without_resume_every_case_runs_again(tmp_path):
    case_set = load_case_set(write_case_set(tmp_path))
    results = tmp_path / "results"
    await run_eval(case_set, CountingStubBackend(), RunSettings(results_dir=results, concurrency=2))
    again = CountingStubBackend()
    await run_eval(case_set, again, RunSettings(results_dir=results, concurrency=2))
    assert again.total_calls == len(CASE_IDS)


async def test_resume_starts_over_when_the_model_changed(tmp_path):
    case_set = load_case_set(write_case_set(tmp_path))
    results = tmp_path / "results"
    await run_eval(case_set, CountingStubBackend(), RunSettings(results_dir=results, concurrency=2))
    other = CountingStubBackend()
    other.model = "another-model"
    await run_eval(case_set, other, RunSettings(results_dir=results, concurrency=2, resume=True))
    assert other.total_calls == len(CASE_IDS)


async def test_resume_of_a_complete_run_is_a_no_op_that_says_so(tmp_path):
    case_set = load_case_set(write_case_set(tmp_path))
    results = tmp_path / "results"
    run = await run_eval(case_set, CountingStubBackend(), RunSettings(results_dir=results, concurrency=2))
    assert run.manifest["status"] == "complete"
    before = {p: p.read_bytes() for p in sorted(results.rglob("*")) if p.is_file() and ".work" not in p.parts}

    again = CountingStubBackend()
    resumed = await run_eval(case_set, again, RunSettings(results_dir=results, concurrency=2, resume=True))
    assert again.total_calls == 0
    assert resumed.note and resumed.note.startswith("nothing to resume: the run of")
    assert resumed.manifest == run.manifest  # the verdict stays: nothing was rewritten
    after = {p: p.read_bytes() for p in sorted(results.rglob("*")) if p.is_file() and ".work" not in p.parts}
    assert after == before


async def test_resume_asks_again_a_case_whose_snapshot_changed(tmp_path):
    root = write_case_set(tmp_path)
    results = tmp_path / "results"
    await run_eval(load_case_set(root), CountingStubBackend(), RunSettings(results_dir=results, concurrency=2))
    edited = root / CASE_IDS[0] / "snapshot.json"
    edited.write_text(edited.read_text(encoding="utf-8").replace('"ACCT-R"', '"ACCT-R2"'), encoding="utf-8")

    again = CountingStubBackend()
    run = await run_eval(load_case_set(root), again, RunSettings(results_dir=results, concurrency=2, resume=True))
    assert dict(again.calls) == {CASE_IDS[0]: 1}  # only the edited one, answered for its new bytes
    assert run.manifest["status"] == "complete"
    record = load_run(run.run_dir).records[CASE_IDS[0]]
    assert record.outputs[0].snapshot_sha256 == hashlib.sha256(edited.read_bytes()).hexdigest()
