"""run_cases: bounded concurrency, per-case errors, progress, repeats, cancellation."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case_set
from reviewtui.runs.runner import Progress, redact_secrets, run_cases
from tests.stub_backends import FIXTURE_CASES, GatedBackend, ScriptedBackend


@pytest.fixture(scope="module")
def cases():
    return load_case_set(FIXTURE_CASES).cases


async def _until(condition, backend):
    """Yield to the loop until the condition holds (the stub's state changes only when tasks run)."""
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"condition never held; started={backend.started}")


async def test_concurrency_is_bounded_and_every_case_finishes(cases):
    backend = GatedBackend()
    task = asyncio.ensure_future(run_cases(cases, backend, concurrency=3))
    await _until(lambda: len(backend.started) == 3, backend)
    for _ in range(50):
        await asyncio.sleep(0)
    assert backend.in_flight == 3  # the fourth waits for a slot
    for case in cases:
        backend.release(case.case_id)
    outcome = await task
    assert backend.max_in_flight == 3
    assert outcome.status == "complete"
    assert list(outcome.outputs) == [c.case_id for c in cases]
    assert outcome.not_run == []


async def test_progress_is_immutable_and_counts_tokens_and_errors(cases):
    script = {
        cases[0].case_id: CaseOutput(cases[0].case_id, "{}", input_tokens=1000, output_tokens=100, model="m"),
        cases[1].case_id: CaseOutput(cases[1].case_id, None, error="rate limited", input_tokens=0, model="m"),
        cases[2].case_id: CaseOutput(cases[2].case_id, "{}", input_tokens=1000, output_tokens=100, cached=True, model="m"),
    }
    seen: list[Progress] = []
    outcome = await run_cases(cases[:3], ScriptedBackend(script), concurrency=1, on_progress=seen.append,
                              cost_estimator=lambda model, o: (o.input_tokens + o.output_tokens) / 1000)
    assert [p.done for p in seen] == [1, 2, 3]
    assert all(p.total == 3 for p in seen)
    last = seen[-1]
    assert (last.errors, last.input_tokens, last.output_tokens, last.cached) == (1, 2000, 200, 1)
    assert last.cost_usd == pytest.approx(1.1)  # the cached answer costs nothing
    assert seen[1].case_id == cases[1].case_id and seen[1].error == "rate limited"
    with pytest.raises(dataclasses.FrozenInstanceError):
        last.done = 0  # type: ignore[misc]
    assert outcome.status == "incomplete"
    assert [o.case_id for o in outcome.errors] == [cases[1].case_id]


async def test_unknown_model_price_gives_no_cost(cases):
    script = {cases[0].case_id: CaseOutput(cases[0].case_id, "{}", input_tokens=10, output_tokens=1)}
    outcome = await run_cases(cases[:1], ScriptedBackend(script), concurrency=1, cost_estimator=lambda *a: None)
    assert outcome.progress.cost_usd is None


async def test_a_backend_that_raises_is_recorded_and_the_run_goes_on(cases):
    backend = ScriptedBackend({cases[1].case_id: ValueError("bad snapshot field")})
    outcome = await run_cases(cases[:4], backend, concurrency=2)
    assert outcome.status == "incomplete"
    [failed] = outcome.errors
    assert failed.case_id == cases[1].case_id
    assert failed.error == "backend raised ValueError: bad snapshot field"
    assert len(outcome.outputs) == 4


async def test_errors_never_carry_the_api_key(cases, monkeypatch):
    key = "fake-anthropic-key-secret-123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    backend = ScriptedBackend({
        cases[0].case_id: RuntimeError(f"auth failed for {key}"),
        cases[1].case_id: CaseOutput(cases[1].case_id, None, error=f"header Bearer {key} rejected"),
    })
    outcome = await run_cases(cases[:2], backend, concurrency=1)
    assert all(key not in o.error for o in outcome.errors)
    assert redact_secrets(f"x {key} y") == "x [redacted] y"


async def test_repeats_run_each_case_with_its_repeat_index(cases):
    backend = ScriptedBackend({})
    done: list[tuple[str, int]] = []
    outcome = await run_cases(cases[:2], backend, concurrency=2, repeats=3,
                              on_case_done=lambda case, output, repeat: done.append((case.case_id, repeat)))
    assert sorted(backend.calls) == sorted((c.case_id, r) for c in cases[:2] for r in range(3))
    assert sorted(done) == sorted(backend.calls)
    assert [len(v) for v in outcome.outputs.values()] == [3, 3]
    assert outcome.progress.done == outcome.progress.total == 6


async def test_repeats_of_a_case_wait_for_its_first_answer_and_first_requests_go_before_them(cases):
    # The repeats read the prompt prefix the first request wrote to the API's cache: they are
    # not sent beside it; once it is back, the other cases' first requests still go first, so
    # no worker is left waiting at the end for the repeats of a case that started late.
    backend = GatedBackend()
    ids = [c.case_id for c in cases[:3]]
    task = asyncio.ensure_future(run_cases(cases[:3], backend, concurrency=2, repeats=2))
    await _until(lambda: len(backend.started) == 2, backend)
    assert backend.started == ids[:2]  # two first requests, not a case and its own repeat
    backend.release(ids[0])
    await _until(lambda: len(backend.started) == 3, backend)
    assert backend.started == [ids[0], ids[1], ids[2]]  # c2's first request before c0's repeat
    backend.release(ids[1])  # (c0's gate is open: its repeat answers at once, and c1's follows)
    await _until(lambda: len(backend.started) >= 4, backend)
    assert backend.started[3] == ids[0]  # then the repeats, the longest-waiting first
    for case_id in ids:
        backend.release(case_id)
    outcome = await task
    assert outcome.status == "complete" and [len(v) for v in outcome.outputs.values()] == [2, 2, 2]


async def test_progress_counts_prompt_cache_tokens_of_fresh_calls(cases):
    script = {
        cases[0].case_id: CaseOutput(cases[0].case_id, "{}", input_tokens=5000, output_tokens=100, model="m",
                                     cache_creation_input_tokens=4000, cache_read_input_tokens=0),
        cases[1].case_id: CaseOutput(cases[1].case_id, "{}", input_tokens=5000, output_tokens=100, model="m",
                                     cache_creation_input_tokens=0, cache_read_input_tokens=4000),
    }
    outcome = await run_cases(cases[:2], ScriptedBackend(script), concurrency=1,
                              cost_estimator=lambda model, o: float(o.cache_read_input_tokens))
    p = outcome.progress
    assert (p.input_tokens, p.cache_write_tokens, p.cache_read_tokens) == (10000, 4000, 4000)
    assert p.cost_usd == 4000.0  # the estimator is handed each output with its cache tokens


async def test_async_on_case_done_is_awaited_before_progress(cases):
    order: list[str] = []

    async def on_done(case, output, repeat):
        await asyncio.sleep(0)
        order.append(f"done {case.case_id}")

    await run_cases(cases[:2], ScriptedBackend({}), concurrency=1, on_case_done=on_done,
                    on_progress=lambda p: order.append(f"progress {p.case_id}"))
    assert order == [f"done {cases[0].case_id}", f"progress {cases[0].case_id}",
                     f"done {cases[1].case_id}", f"progress {cases[1].case_id}"]


async def test_cancel_event_keeps_what_finished(cases):
    backend = GatedBackend()
    cancel = asyncio.Event()
    finished: list[str] = []
    task = asyncio.ensure_future(run_cases(cases, backend, concurrency=2, cancel=cancel,
                                           on_case_done=lambda c, o, r: finished.append(c.case_id)))
    await _until(lambda: len(backend.started) == 2, backend)
    backend.release(cases[0].case_id)
    await _until(lambda: len(finished) == 1, backend)
    cancel.set()
    outcome = await task
    assert outcome.status == "cancelled"
    assert list(outcome.outputs) == [cases[0].case_id]
    assert outcome.not_run == [c.case_id for c in cases[1:]]
    assert backend.in_flight == 0  # the case in flight was abandoned
    assert not backend.closed  # the caller owns the backend


async def test_cancelling_the_task_abandons_the_cases_and_reraises(cases):
    backend = GatedBackend()
    task = asyncio.ensure_future(run_cases(cases, backend, concurrency=2))
    await _until(lambda: len(backend.started) == 2, backend)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert backend.in_flight == 0


async def test_a_bug_in_a_callback_surfaces(cases):
    def broken(case, output, repeat):
        raise KeyError("oops")

    with pytest.raises(KeyError):
        await run_cases(cases[:3], ScriptedBackend({}), concurrency=1, on_case_done=broken)


async def test_bad_settings_are_refused(cases):
    with pytest.raises(ValueError, match="concurrency"):
        await run_cases(cases, ScriptedBackend({}), concurrency=0)
    with pytest.raises(ValueError, match="repeats"):
        await run_cases(cases, ScriptedBackend({}), concurrency=1, repeats=0)


async def test_a_run_keeps_its_long_lived_objects_out_of_the_collector_and_gives_them_back(cases):
    """During a run the objects alive at its start (cases, snapshots) are frozen out of the collector's walks;
    after it, and after a cancelled one, nothing stays frozen."""
    import gc

    frozen_during: list[int] = []
    script = {c.case_id: CaseOutput(c.case_id, "{}", model="m") for c in cases[:3]}
    before = gc.get_freeze_count()
    await run_cases(cases[:3], ScriptedBackend(script), concurrency=2,
                    on_case_done=lambda case, output, repeat: frozen_during.append(gc.get_freeze_count()))
    assert before == 0 and gc.get_freeze_count() == 0
    assert frozen_during and min(frozen_during) > 0

    backend = GatedBackend()
    cancel = asyncio.Event()
    task = asyncio.ensure_future(run_cases(cases, backend, concurrency=2, cancel=cancel))
    await _until(lambda: len(backend.started) == 2, backend)
    assert gc.get_freeze_count() > 0
    cancel.set()
    assert (await task).status == "cancelled"
    assert gc.get_freeze_count() == 0
