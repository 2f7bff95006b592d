"""Adaptive concurrency: repeated 429s through the real SDK make the run back off, then recover; the summary says so."""

from __future__ import annotations

import pytest
import asyncio
import json


from reviewtui.commands.eval import main
from reviewtui.backends.throttle import AdaptiveLimit, backoff_sentence
from tests.fake_messages_api import findings_json, rate_limited, serving_in_env, slow_answer, write_case
from datetime import UTC

KEY = "fake-anthropic-key-throttle"
GOOD = findings_json("tracking.conversions_stopped")


def test_the_limit_halves_on_a_rate_limit_and_grows_back_by_one():
    async def go():
        limit = AdaptiveLimit(8)
        for _ in range(3):
            await limit.acquire()
        await limit.release(429, {"retry-after": "0"})
        await limit.release(429, {})
        assert limit.limit == 2 and limit.lowest == 2
        await limit.release(200, {})
        for _ in range(2 + 3 + 4 + 5 + 6 + 7):  # limit successes in a row per step: 2, 3, ... 7
            await limit.acquire()
            await limit.release(200, {})
        return limit

    limit = asyncio.run(go())
    assert limit.limit == 8 and limit.describe()["rate_limited"] == 2
    assert backoff_sentence(limit.describe()) == ("2 rate-limited response(s): concurrency backed off from 8 to 2 "
                                                  "and came back to 8")


def test_retry_after_holds_every_new_attempt():
    async def go():
        limit = AdaptiveLimit(4)
        await limit.acquire()
        await limit.release(429, {"retry-after": "0.3"})
        start = asyncio.get_running_loop().time()
        await limit.acquire()
        return asyncio.get_running_loop().time() - start

    assert asyncio.run(go()) >= 0.25


def test_an_exhausted_rate_limit_header_holds_until_its_reset():
    from datetime import datetime, timedelta

    async def go():
        limit = AdaptiveLimit(4)
        await limit.acquire()
        reset = (datetime.now(UTC) + timedelta(seconds=0.4)).isoformat()
        await limit.release(200, {"anthropic-ratelimit-requests-remaining": "0",
                                  "anthropic-ratelimit-requests-reset": reset})
        start = asyncio.get_running_loop().time()
        await limit.acquire()
        return asyncio.get_running_loop().time() - start, limit.pauses

    waited, pauses = asyncio.run(go())
    assert waited >= 0.2 and pauses == 1


@pytest.mark.slow
def test_repeated_429s_back_off_the_run_and_it_recovers(monkeypatch, tmp_path, capsys):
    cases = tmp_path / "cases"
    markers = [f"ACCT-T{i:02d}" for i in range(24)]
    for i, marker in enumerate(markers):
        write_case(cases, f"c{i:02d}-throttle", marker)
    with serving_in_env(monkeypatch, KEY) as api:
        for i, marker in enumerate(markers):
            # the first eight each meet two 429s; everything answers after 0.1 s
            plan = [rate_limited("0.05"), rate_limited("0.05")] if i < 8 else []
            api.plan(marker, *plan, slow_answer(GOOD, 0.1))
        code = main(["--backend", "claude", "--cases", str(cases), "--results-dir", str(tmp_path / "r"),
                     "--concurrency", "8", "--max-retries", "3", "--format", "json"])
        out = capsys.readouterr()
    assert code == 0, out.err
    details = json.loads(out.out)["backend_details"]["concurrency"]
    assert details["max"] == 8 and details["rate_limited"] == 16
    assert details["lowest"] == 1 and details["final"] > details["lowest"]
    # the answers after the 429s were never sent eight at a time
    answered = [r for r in api.requests if r.status == 200]
    assert api.max_in_flight <= 8 and len(answered) == 24


def test_the_summary_says_when_the_run_backed_off(monkeypatch, tmp_path, capsys):
    write_case(tmp_path / "cases", "c01-t", "ACCT-T1")
    with serving_in_env(monkeypatch, KEY) as api:
        api.plan("ACCT-T1", rate_limited("0.05"), slow_answer(GOOD, 0.01))
        assert main(["--backend", "claude", "--cases", str(tmp_path / "cases"), "--results-dir",
                     str(tmp_path / "r"), "--concurrency", "4"]) == 0
    out = capsys.readouterr().out
    assert "rate limits     1 rate-limited response(s): concurrency backed off from 1 to 1" in out
