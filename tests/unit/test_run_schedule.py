"""The run's schedule: a case's repeats after its first answer, first requests before repeats, aged repeats ahead."""

from __future__ import annotations

import asyncio
import math

import pytest

from reviewtui.runs.schedule import RunSchedule


async def rounds_of(cases: int, repeats: int, workers: int) -> list[list[tuple[int, int]]]:
    """Every request answers in one round: the jobs each round sends, with ``workers`` slots."""
    schedule = RunSchedule(cases, repeats)
    rounds: list[list[tuple[int, int]]] = []
    while not schedule.finished:
        sent = []
        while len(sent) < workers and (job := schedule.take()) is not None:
            sent.append(job)
        assert sent, "nothing could go, yet the run is not over"
        rounds.append(sent)
        for index, repeat in sent:
            await schedule.done(index, repeat)
    return rounds


@pytest.mark.parametrize(("cases", "repeats", "workers"), [(50, 3, 16), (50, 1, 16), (7, 5, 3), (1, 4, 8), (16, 2, 16)])
async def test_no_worker_waits_while_a_request_could_go(cases, repeats, workers):
    rounds = await rounds_of(cases, repeats, workers)
    sent = [job for r in rounds for job in r]
    assert sorted(sent) == [(i, r) for i in range(cases) for r in range(repeats)]
    # the fewest rounds any schedule can take: the slots, and a first answer before each repeat
    assert len(rounds) == max(math.ceil(cases * repeats / workers), 2 if repeats > 1 else 1)


async def test_a_repeat_is_never_sent_before_its_case_has_its_first_answer():
    rounds = await rounds_of(50, 3, 16)
    answered_at = {}
    for number, sent in enumerate(rounds):
        for index, repeat in sent:
            if repeat == 0:
                answered_at[index] = number
            else:
                assert answered_at[index] < number, (index, repeat, number)


async def test_first_requests_go_before_fresh_repeats_and_aged_repeats_go_first():
    now = [0.0]
    schedule = RunSchedule(3, 2, clock=lambda: now[0], wait_limit=60)
    assert await schedule.next() == (0, 0)
    await schedule.done(0, 0)
    assert await schedule.next() == (1, 0)  # case 0's repeat is fresh: the next first request goes ahead
    now[0] = 60.0
    assert await schedule.next() == (0, 1)  # it has waited a minute since case 0's answer: ahead of case 2
    assert await schedule.next() == (2, 0)


async def test_next_waits_for_the_first_answer_then_ends_the_run():
    schedule = RunSchedule(1, 2)
    assert await schedule.next() == (0, 0)
    waiting = asyncio.ensure_future(schedule.next())
    await asyncio.sleep(0)
    assert not waiting.done()  # the repeat cannot go yet, and the run is not over
    await schedule.done(0, 0)
    assert await asyncio.wait_for(waiting, 1) == (0, 1)
    await schedule.done(0, 1)
    assert await asyncio.wait_for(schedule.next(), 1) is None
