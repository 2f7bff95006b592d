"""The claude backend through the real anthropic SDK, against the fake Messages API on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from reviewtui.assistant import build_request
from reviewtui.backends import BackendUsageError, create_backend
from reviewtui.backends.claude import ClaudeBackend
from reviewtui.backends.cache import cache_key
from reviewtui.caseset.cases import load_case
from tests.fake_messages_api import (
    FakeMessagesAPI,
    answer,
    answer_with_thinking,
    api_error,
    findings_json,
    hang,
    overloaded,
    rate_limited,
    refusal,
    server_error,
    serving_in_env,
    truncated,
    write_case,
)

KEY = "fake-anthropic-key-test-0123456789-not-a-real-key"
GOOD = findings_json("tracking.conversions_stopped")


@pytest.fixture
def api(monkeypatch):
    with serving_in_env(monkeypatch, KEY) as server:
        yield server


@pytest.fixture
def case(tmp_path):
    return load_case(write_case(tmp_path / "cases", "c01-conversions", "ACCT-0001"))


def backend(tmp_path, **options):
    options = {"cache_dir": tmp_path / "cache", "max_retries": 2, "timeout": 10, **options}
    return ClaudeBackend(**options)


async def run_once(tmp_path, case, repeat=0, **options):
    claude = backend(tmp_path, **options)
    try:
        return await claude.run(case, repeat=repeat)
    finally:
        await claude.aclose()


async def test_good_answer_sends_the_built_request_and_records_usage(api, case, tmp_path):
    api.plan("ACCT-0001", answer(GOOD, output_tokens=57))
    out = await run_once(tmp_path, case, model="claude-haiku-5-5", max_tokens=4000)
    assert out.error is None and out.raw_text == GOOD
    assert out.stop_reason == "end_turn" and out.model == "claude-haiku-5-5"
    assert out.output_tokens == 57 and out.input_tokens > 1000  # the prompt alone is thousands of characters
    assert out.cached is False
    [request] = api.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    expected = build_request(case.snapshot.text, model="claude-haiku-5-5", max_tokens=4000)
    assert request.body == json.loads(json.dumps(expected))
    assert "temperature" not in request.body


async def test_text_block_is_picked_after_a_thinking_block(api, case, tmp_path):
    api.plan("ACCT-0001", answer_with_thinking(GOOD, thinking="Spend is flat; conversions fall to 0."))
    out = await run_once(tmp_path, case)
    assert out.error is None and out.raw_text == GOOD


async def test_rate_limit_is_retried_after_retry_after(api, case, tmp_path):
    api.plan("ACCT-0001", rate_limited(retry_after="1"), answer(GOOD))
    out = await run_once(tmp_path, case)
    assert out.error is None and out.raw_text == GOOD
    assert [r.status for r in api.requests] == [429, 200]
    assert api.requests[1].headers.get("x-stainless-retry-count") == "1"


@pytest.mark.slow
async def test_overload_then_server_error_then_answer(api, case, tmp_path):
    api.plan("ACCT-0001", overloaded(), server_error(), answer(GOOD))
    out = await run_once(tmp_path, case)
    assert out.error is None and out.raw_text == GOOD
    assert [r.status for r in api.requests] == [529, 500, 200]


@pytest.mark.parametrize(
    "planned, words",
    [
        (overloaded(), ["API overloaded", "HTTP 529", "overloaded_error", "after 1 retry"]),
        (server_error(), ["API internal error", "HTTP 500", "api_error", "after 1 retry"]),
        (rate_limited(retry_after="0"), ["rate limited", "HTTP 429", "rate_limit_error", "after 1 retry"]),
    ],
)
async def test_errors_that_outlast_the_retries_become_the_case_error(api, case, tmp_path, planned, words):
    api.plan("ACCT-0001", planned)
    out = await run_once(tmp_path, case, max_retries=1)
    assert out.raw_text is None and out.error is not None
    for word in words:
        assert word in out.error
    assert api.count("ACCT-0001") == 2  # the first try and one retry
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


async def test_read_timeout_is_an_error_naming_the_timeout(api, case, tmp_path):
    api.plan("ACCT-0001", hang(30))
    out = await run_once(tmp_path, case, timeout=0.5, max_retries=0)
    assert out.error == "request timed out after 0.5s"
    assert api.count() == 1


async def test_read_timeout_then_answer_recovers_on_retry(api, case, tmp_path):
    api.plan("ACCT-0001", hang(30), answer(GOOD))
    out = await run_once(tmp_path, case, timeout=0.5, max_retries=1)
    assert out.error is None and out.raw_text == GOOD
    assert api.count() == 2


async def test_max_tokens_truncation_keeps_the_partial_text_and_is_not_cached(api, case, tmp_path):
    partial = '{"findings": [{"id": "tracking.conversions_st'
    api.plan("ACCT-0001", truncated(partial), answer(GOOD))
    out = await run_once(tmp_path, case, max_tokens=1234)
    assert out.error == "output truncated at max_tokens (1234); raise --max-tokens"
    assert out.raw_text == partial and out.stop_reason == "max_tokens"
    again = await run_once(tmp_path, case, max_tokens=1234)
    assert again.error is None and again.cached is False
    assert api.count() == 2


async def test_refusal_is_an_error(api, case, tmp_path):
    api.plan("ACCT-0001", refusal(explanation="declined"))
    out = await run_once(tmp_path, case)
    assert out.error == "the model refused (declined)"
    assert out.stop_reason == "refusal" and out.raw_text is None


async def test_cache_answers_a_rerun_without_a_request(api, case, tmp_path):
    api.plan("ACCT-0001", answer(GOOD, output_tokens=31))
    first = await run_once(tmp_path, case)
    second = await run_once(tmp_path, case)
    assert api.count() == 1
    assert second.cached is True and second.raw_text == first.raw_text
    assert (second.input_tokens, second.output_tokens, second.model) == (first.input_tokens, 31, first.model)
    key = cache_key(build_request(case.snapshot.text), 0)
    assert (tmp_path / "cache" / f"{key}.json").is_file()


async def test_a_corrupt_cache_entry_is_asked_again_and_overwritten(api, case, tmp_path, capsys):
    api.plan("ACCT-0001", answer(GOOD))
    await run_once(tmp_path, case)
    [entry] = (tmp_path / "cache").glob("*.json")
    entry.write_text('{"format": 1, "key": "trunc', encoding="utf-8")
    out = await run_once(tmp_path, case)
    assert out.error is None and out.cached is False and api.count() == 2
    assert f"ignoring corrupt cache file {entry}" in capsys.readouterr().err
    again = await run_once(tmp_path, case)
    assert again.cached is True and api.count() == 2


async def test_repeat_index_and_model_are_part_of_the_key(api, case, tmp_path):
    api.plan("ACCT-0001", answer(GOOD))
    await run_once(tmp_path, case, repeat=0)
    await run_once(tmp_path, case, repeat=1)
    await run_once(tmp_path, case, repeat=1)
    await run_once(tmp_path, case, repeat=1, model="claude-haiku-5-5")
    assert api.count() == 3


async def test_no_cache_skips_reads_but_refreshes_the_entry(api, case, tmp_path):
    old = findings_json("summary.no_material_issues")
    api.plan("ACCT-0001", answer(old), answer(GOOD))
    await run_once(tmp_path, case)
    fresh = await run_once(tmp_path, case, use_cache=False)
    assert fresh.cached is False and fresh.raw_text == GOOD
    reread = await run_once(tmp_path, case)
    assert reread.cached is True and reread.raw_text == GOOD
    assert api.count() == 2


async def test_without_cache_dir_nothing_is_stored(api, case, tmp_path):
    api.plan("ACCT-0001", answer(GOOD))
    await run_once(tmp_path, case, cache_dir=None)
    await run_once(tmp_path, case, cache_dir=None)
    assert api.count() == 2


async def test_concurrent_cases_share_one_client(api, tmp_path):
    cases = [load_case(write_case(tmp_path / "cases", f"c{i:02d}-x", f"ACCT-{i:04d}")) for i in range(6)]
    for i in range(6):
        api.plan(f"ACCT-{i:04d}", answer(findings_json("tracking.conversions_stopped") if i % 2 else GOOD))
    claude = backend(tmp_path)
    try:
        outs = await asyncio.gather(*(claude.run(c) for c in cases))
    finally:
        await claude.aclose()
    assert [o.case_id for o in outs] == [c.case_id for c in cases]
    assert all(o.error is None for o in outs)
    assert sorted(r.marker for r in api.requests) == [f"ACCT-{i:04d}" for i in range(6)]
    assert claude.describe()["api_calls"] == 6


async def test_wrong_key_fails_every_case_after_one_request_and_never_shows_the_key(api, tmp_path, monkeypatch):
    wrong = "fake-anthropic-key-wrong-key-abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", wrong)
    cases = [load_case(write_case(tmp_path / "cases", f"c{i:02d}-x", f"ACCT-{i:04d}")) for i in range(3)]
    claude = backend(tmp_path)
    try:
        outs = [await claude.run(c) for c in cases]
    finally:
        await claude.aclose()
    assert api.count() == 1
    for out in outs:
        assert out.error.startswith("authentication failed: check ANTHROPIC_API_KEY (HTTP 401")
        assert wrong not in out.error and KEY not in out.error
    assert wrong not in repr(claude) and wrong not in json.dumps(claude.describe())


async def test_an_error_message_echoing_the_key_is_redacted(api, case, tmp_path):
    api.plan("ACCT-0001", api_error(400, "invalid_request_error", f"bad header value {KEY}"))
    out = await run_once(tmp_path, case)
    assert KEY not in out.error
    assert out.error == "invalid request (HTTP 400 invalid_request_error): bad header value [ANTHROPIC_API_KEY]"


async def test_unreachable_server_is_a_connection_error(case, tmp_path, monkeypatch):
    with FakeMessagesAPI() as gone:
        url = gone.base_url  # a port that was free a moment ago and is closed now
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    out = await run_once(tmp_path, case, max_retries=0)
    assert out.error.startswith("cannot connect to the API")


def test_missing_key_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(BackendUsageError, match="needs ANTHROPIC_API_KEY"):
        create_backend("claude", model=None, cache_dir=tmp_path, use_cache=True)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  ")
    with pytest.raises(BackendUsageError) as info:
        ClaudeBackend()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "options, message",
    [({"max_tokens": 0}, "--max-tokens"), ({"timeout": -1}, "--timeout"), ({"max_retries": -2}, "--max-retries")],
)
def test_bad_options_are_usage_errors(monkeypatch, options, message):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with pytest.raises(BackendUsageError, match=message):
        ClaudeBackend(**options)


def test_create_backend_passes_the_eval_options(monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    claude = create_backend(
        "claude", model="claude-opus-5-5", max_tokens=9000, cache_dir=tmp_path / "c",
        use_cache=False, timeout=30, max_retries=4, replay_dir=None,
    )  # fmt: skip
    info = claude.describe()
    assert info["model"] == "claude-opus-5-5" and info["max_tokens"] == 9000
    assert info["timeout_seconds"] == 30 and info["max_retries"] == 4
    assert info["cache_dir"] == str(tmp_path / "c") and info["cache_reads"] is False
    asyncio.run(claude.aclose())


def test_importing_the_backend_module_does_not_import_the_sdk():
    code = "import sys, reviewtui.backends.claude; assert 'anthropic' not in sys.modules, 'anthropic imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
