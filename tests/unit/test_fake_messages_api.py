"""The fake Messages API rejects what the real one would, so the backend tests can fail."""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request

import anthropic
import pytest

from reviewtui.assistant import build_request
from tests.fake_messages_api import FakeMessagesAPI, answer, findings_json, request_problem

KEY = "fake-anthropic-key-test-fake"
SNAPSHOT = '{"account": {"id": "ACCT-7"}}'


@pytest.fixture
def api():
    with FakeMessagesAPI(api_key=KEY) as server:
        server.plan("ACCT-7", answer(findings_json()))
        yield server


def client(api, key=KEY):
    return anthropic.AsyncAnthropic(api_key=key, base_url=api.base_url, max_retries=0, timeout=10)


async def test_the_built_request_is_accepted(api):
    message = await client(api).messages.create(**build_request(SNAPSHOT))
    assert message.content[0].text == findings_json()
    assert api.requests[0].marker == "ACCT-7" and api.requests[0].status == 200


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.update(extra_body={"temperature": 0.2}), "temperature"),
        (lambda r: r.update(extra_body={"top_q": 0.2}), "top_q: Extra inputs are not permitted"),
        (lambda r: r.update(system=[]), "system"),
        (
            lambda r: r["output_config"]["format"]["schema"]["properties"]["findings"]["items"].pop("additionalProperties"),
            "output_config.format.schema.properties.findings.items: 'additionalProperties' must be explicitly set to false",
        ),
        (lambda r: r["output_config"]["format"].update(type="json_object"), "expected 'json_schema'"),
        (lambda r: r.pop("output_config"), "output_config.format.type"),
        (lambda r: r.update(messages=[{"role": "assistant", "content": SNAPSHOT}]), "first message must be from the user"),
        (lambda r: r.update(thinking={"type": "enabled", "budget_tokens": 500}), "budget_tokens: must be at least 1024"),
        (lambda r: r.update(thinking={"type": "enabled", "budget_tokens": r["max_tokens"]}), "less than max_tokens"),
        (lambda r: r.update(thinking={"type": "sometimes"}), "thinking.type"),
        (
            lambda r: r["output_config"]["format"]["schema"]["properties"]["findings"].update(minItems=2),
            "minItems values other than 0 or 1 are not supported",
        ),
    ],
)
async def test_a_wrong_request_gets_400_saying_what_is_wrong(api, change, message):
    request = copy.deepcopy(build_request(SNAPSHOT))
    change(request)
    with pytest.raises(anthropic.BadRequestError) as info:
        await client(api).messages.create(**request)
    assert message in info.value.api_message


async def test_a_wrong_key_gets_401(api):
    with pytest.raises(anthropic.AuthenticationError):
        await client(api, key="fake-anthropic-key-other").messages.create(**build_request(SNAPSHOT))


async def test_a_request_no_plan_matches_gets_400(api):
    with pytest.raises(anthropic.BadRequestError, match="no planned response"):
        await client(api).messages.create(**build_request('{"account": {"id": "ACCT-UNKNOWN"}}'))


def test_longest_marker_wins_and_the_last_planned_response_repeats():
    with FakeMessagesAPI(api_key=KEY) as api:
        api.plan("ACCT-1", answer("one"))
        api.plan("ACCT-10", answer("ten-a"), answer("ten-b"))
        texts = [_post(api, build_request('{"id": "ACCT-10"}'))["content"][0]["text"] for _ in range(3)]
        assert texts == ["ten-a", "ten-b", "ten-b"]
        assert api.count("ACCT-10") == 3 and api.count("ACCT-1") == 0


def test_not_json_and_other_paths_are_rejected():
    with FakeMessagesAPI(api_key=KEY) as api:
        with pytest.raises(urllib.error.HTTPError) as info:
            _post(api, None, raw=b"{oops")
        assert info.value.code == 400 and "not JSON" in info.value.read().decode()
        with pytest.raises(urllib.error.HTTPError) as info:
            _post(api, build_request(SNAPSHOT), path="/v1/complete")
        assert info.value.code == 404
        assert api.count() == 2


def test_request_problem_accepts_the_real_request():
    assert request_problem(json.loads(json.dumps(build_request(SNAPSHOT)))) is None


def _post(api, body, *, raw=None, path="/v1/messages"):
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(
        api.base_url + path,
        data=data,
        method="POST",
        headers={"authorization": f"Bearer {KEY}", "anthropic-version": "2026-10-21", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
