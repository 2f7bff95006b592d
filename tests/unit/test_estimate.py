"""reviewtui eval --estimate: offline approximation, the API's token counts, cache hits left out; the arithmetic."""

from __future__ import annotations

import json

import pytest

from reviewtui.assistant import build_request
from reviewtui.runs.estimate import approximate_tokens, estimate_run
from reviewtui.commands.eval import main
from reviewtui.runs.pricing import estimate_cost
from tests.fake_messages_api import answer, findings_json, request_tokens, serving_in_env, write_case

KEY = "fake-anthropic-key-estimate-test"


@pytest.fixture
def cases_dir(tmp_path):
    for i in range(3):
        write_case(tmp_path / "cases", f"c0{i + 1}-est", f"ACCT-E0{i + 1}")
    return tmp_path / "cases"


def test_the_caching_arithmetic_by_hand():
    e = estimate_run([(100, 2), (200, 2)], shared_tokens=50, model="claude-sonnet-5-5", method="m", repeats=2)
    assert e.input_tokens == 600 and e.calls == 4
    # the first call writes the shared 50 and its own 50; the second case writes its own 150
    assert e.cache_write_tokens == 50 + 50 + 150
    # case 1's repeat reads its whole 100; case 2's first call reads the shared 50, its repeat all 200
    assert e.cache_read_tokens == 100 + 50 + 200
    assert e.costs["batch"] == pytest.approx(e.costs["direct"] / 2)
    assert e.costs["direct_cached"] == pytest.approx(estimate_cost("claude-sonnet-5-5", 600, 4 * 6000,
                                                                  cache_write_tokens=250, cache_read_tokens=350))
    assert e.costs["batch_cached"] < e.costs["direct_cached"] < e.costs["direct"]


def test_an_unpriced_model_says_how_to_price_it(cases_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["--estimate", "--cases", str(cases_dir), "--results-dir", str(tmp_path / "r"), "--model", "claude-new-9"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "n/a" in out and "no price for claude-new-9 in reviewtui/runs/pricing.yaml" in out


def test_offline_the_estimate_approximates_and_writes_nothing(cases_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["--estimate", "--cases", str(cases_dir), "--results-dir", str(tmp_path / "r"), "--repeats", "2",
            "--format", "json"]
    assert main(args) == 0
    e = json.loads(capsys.readouterr().out)
    per_case = [approximate_tokens(build_request((cases_dir / c / "snapshot.json").read_text()))
                for c in ("c01-est", "c02-est", "c03-est")]
    assert e["input_tokens"] == 2 * sum(per_case) and e["calls"] == 6
    assert "approximated offline" in e["method"]
    assert not (tmp_path / "r").exists()


def test_with_a_key_the_api_counts_and_cached_answers_are_left_out(cases_dir, tmp_path, capsys, monkeypatch):
    results = tmp_path / "r"
    with serving_in_env(monkeypatch, KEY) as api:
        api.plan("ACCT-E01", answer(findings_json("tracking.conversions_stopped")))
        # one case answered first, so its answer is in the response cache
        write_dir = tmp_path / "one"
        write_case(write_dir, "c01-est", "ACCT-E01")
        assert main(["--backend", "claude", "--cases", str(write_dir), "--results-dir", str(results)]) == 0
        capsys.readouterr()
        api.clear_requests()
        assert main(["--estimate", "--cases", str(cases_dir), "--results-dir", str(results), "--format", "json"]) == 0
        e = json.loads(capsys.readouterr().out)
    assert {r.path for r in api.requests} == {"/v1/messages/count_tokens"}  # no message was made
    bodies = [r.body for r in api.requests if r.body.get("messages")[0]["content"] != "."]
    assert e["calls"] == 2 and e["cached"] == 1
    counted = {json.dumps(b["messages"]): request_tokens(b) for b in bodies}
    assert e["input_tokens"] == sum(v for k, v in counted.items() if "ACCT-E01" not in k)
    assert "counted by the API" in e["method"]
