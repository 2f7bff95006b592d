"""Compact input: every value of every case survives, numbers as written, and the API receives it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from reviewtui.backends.claude import ClaudeBackend
from reviewtui.caseset.cases import load_case
from reviewtui.caseset.snapshot_compact import compact_text, expand
from tests.fake_messages_api import answer, findings_json, serving_in_env, write_case

CASES = sorted((Path(__file__).resolve().parents[2] / "cases").glob("*/snapshot.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.parent.name)
def test_every_value_of_the_case_survives_and_the_text_is_smaller(path):
    text = path.read_text(encoding="utf-8")
    compact = compact_text(text)
    assert expand(compact) == json.loads(text)
    assert len(compact) < 0.6 * len(text)


def test_numbers_keep_their_text_and_rows_with_other_fields_stay_objects():
    rows = [{"date": "2025-03-0%d" % d, "cost": "520.10", "clicks": 3} for d in range(1, 5)]
    text = ('{"daily": [' + ",".join(
        '{"date": "%s", "cost": 520.10, "clicks": 1e3}' % r["date"] for r in rows)
        + ', {"date": "2025-03-09", "cost": 1.50}]}')  # fmt: skip
    compact = compact_text(text)
    assert '"columns":["date","cost","clicks"]' in compact
    assert '["2025-03-01",520.10,1e3]' in compact  # as written, not 520.1 or 1000.0
    assert '{"date":"2025-03-09","cost":1.50}' in compact  # no null for the absent clicks
    assert len(compact.splitlines()) == 1 + 5 + 1  # one line per row
    assert expand(compact) == json.loads(text)


def test_a_short_list_stays_a_list():
    assert compact_text('{"a": [{"x": 1}]}') == '{"a":[{"x":1}]}'
    with pytest.raises(ValueError):
        compact_text("not json")


def test_the_api_receives_the_compact_snapshot(monkeypatch, tmp_path):
    case = load_case(write_case(tmp_path / "cases", "c01-compact", "ACCT-COMPACT"))
    with serving_in_env(monkeypatch, "fake-anthropic-key-compact-test") as api:
        api.plan("ACCT-COMPACT", answer(findings_json("tracking.conversions_stopped")))

        async def run():
            claude = ClaudeBackend(cache_dir=None)
            try:
                return await claude.run(case)
            finally:
                await claude.aclose()

        assert asyncio.run(run()).obtained
    [request] = api.requests
    sent = request.body["messages"][0]["content"][0]["text"]
    assert compact_text(case.snapshot.text) in sent
    assert '"columns":["date","campaign_id","clicks","cost","conversions"]' in sent
    assert case.snapshot.text.strip() not in sent and "\n  " not in sent
