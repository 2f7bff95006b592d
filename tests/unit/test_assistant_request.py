"""The assistant's request as the API receives it (issue 15 items 1-8): through the real
anthropic SDK against the fake Messages API on 127.0.0.1, and the stamp that covers it."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from ruamel.yaml import YAML

from reviewtui.caseset.snapshot_compact import compact_text
from reviewtui import assistant, taxonomy
from reviewtui.domain.lag import LagModel
from reviewtui.backends.claude import ClaudeBackend
from reviewtui.caseset.cases import load_case
from tests.fake_messages_api import answer, findings_json, serving_in_env, write_case

KEY = "fake-anthropic-key-test-request-shape-0123456789"


@pytest.fixture
def sent(monkeypatch, tmp_path):
    """The body the fake API received for one case sent by the claude backend."""
    case = load_case(write_case(tmp_path / "cases", "c01-shape", "ACCT-SHAPE"))
    with serving_in_env(monkeypatch, KEY) as api:
        api.plan("ACCT-SHAPE", answer(findings_json("tracking.conversions_stopped")))
        import asyncio

        async def go():
            claude = ClaudeBackend(cache_dir=None, timeout=10, max_retries=0)
            try:
                return await claude.run(case)
            finally:
                await claude.aclose()

        out = asyncio.run(go())
        assert out.error is None
        [request] = api.requests
    return request.body, case


def _system_text(body) -> str:
    return "".join(block["text"] for block in body["system"])


def test_thinking_max_tokens_and_cache_markers_reach_the_api(sent):
    body, _ = sent
    assert body["thinking"] == {"type": "adaptive"}
    assert body["max_tokens"] == assistant.DEFAULT_MAX_TOKENS == 20000
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    [message] = body["messages"]
    assert message["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "temperature" not in body


def test_schema_has_min_items_descriptions_and_any_of_scope(sent):
    body, _ = sent
    findings = body["output_config"]["format"]["schema"]["properties"]["findings"]
    assert findings["minItems"] == 1
    props = findings["items"]["properties"]
    assert props["scope"]["anyOf"] == [{"type": "string"}, {"type": "null"}] and "type" not in props["scope"]
    assert "campaign id" in props["scope"]["description"]
    assert "date range" in props["evidence"]["description"]


def test_every_threshold_reaches_the_system_text_in_words(sent):
    body, _ = sent
    system = _system_text(body)
    for kind in taxonomy.kinds().values():
        line = next(l for l in system.splitlines() if l.startswith(f"- {kind.id}:"))
        for name, value in kind.thresholds.items():
            assert f"{name.replace('_', ' ')} {assistant._words(value)}" in line, (kind.id, name)
    # with the meaning from the taxonomy's comments, not bare numbers
    assert "tolerance 0.1 (used when targets.pacing_tolerance is absent)" in system
    assert "meta multiple 1.25 (Meta up to a quarter above it, on days before the meta flexible from date)" in system


def test_pacing_baseline_and_settled_days_are_spelt_out(sent):
    body, _ = sent
    system = _system_text(body)
    assert "the monthly budget spread over the period in proportion to the budget schedule" in system
    assert "above 1 + the tolerance (targets.pacing_tolerance, else the tolerance threshold)" in system
    assert "by more than projection share of tolerance x the tolerance x the monthly budget" in system
    for lookback, k in ((7, 1), (30, 3), (60, 5), (90, 7)):
        assert f"{lookback}-day lookback window: the last settled day is as_of minus {k}" in system


@pytest.mark.parametrize("lookback", [7, 14, 30, 60, 90])
def test_settled_days_agree_with_the_reference_auditors_lag_model(lookback):
    t = taxonomy.kinds()["tracking.conversions_stopped"].thresholds
    k = assistant.settled_after_days(lookback, t["lag_tau_days"], t["lag_complete_share"])
    as_of = date(2025, 3, 31)
    model = LagModel(as_of, t["lag_tau_days"] * lookback / 30, t["lag_complete_share"])
    assert model.settled(as_of - timedelta(days=k))
    assert not model.settled(as_of - timedelta(days=k - 1))


def test_every_kind_has_a_scope_rule_in_the_prompt(sent):
    body, _ = sent
    system = _system_text(body)
    for kind_id in taxonomy.kind_ids():
        rule = assistant.scope_rule(kind_id)
        assert re.search(rf"^- {re.escape(kind_id)}: .* Scope: {re.escape(rule)}\.", system, re.M), kind_id
    assert assistant.scope_rule("efficiency.off_target") == "campaign"
    assert assistant.scope_rule("data.duplicate_rows") == "null"
    with pytest.raises(KeyError, match="SCOPE_RULES"):
        assistant.scope_rule("newgroup.new_kind")


def test_the_prompt_rules_for_findings(sent):
    body, _ = sent
    system = _system_text(body)
    # item 3: only problems; a clean account gets the summary alone, made of healthy figures
    assert "Only problems are findings, and bidding.learning_period, a heads-up" in system
    assert "Write about what you found, never about what you ruled out" in system
    # a cause is explained by stating it, not by denying the problem it is not
    assert "To explain a cause, state the cause itself" in system and '("not because tracking broke")' in system
    assert "summary.no_material_issues with scope null and severity low, and nothing else" in system
    assert "spend to date against the expected spend to date" in system
    assert "Report causes, not symptoms" in system
    # item 4: aggregates name campaign and date range; row values exact; computed rounded or hedged
    assert 'name the campaign (or "the account") and the date range of every aggregate' in system
    assert "2025-05-01 to 2025-05-14" in system
    assert "copied exactly" in system and '"about"' in system
    # item 5: broken data is reported, then the audit runs on corrected figures
    assert "do not report the pacing or efficiency figures it would corrupt" not in system
    assert "read duplicates and micros on the corrected reading" in system
    assert "say in the text how the figures were corrected" in system
    # item 6: one finding per campaign
    assert "one finding per campaign" in system
    # item 8: Meta paces by the calendar week, not the month
    assert "averaging" not in system
    assert "calendar week (Sunday to Saturday) within seven times the daily budget" in system


def test_the_checklist_follows_the_snapshot(sent):
    body, case = sent
    [block] = body["messages"][0]["content"]
    text = block["text"]
    after = text.split("</snapshot>", 1)[1]
    assert compact_text(case.snapshot.text) in text.split("</snapshot>", 1)[0]
    steps = [after.index(s) for s in ("1. Data integrity", "2. The settled window", "3. Each group", "4. Then the summary")]
    assert steps == sorted(steps)
    groups = after[after.index("(", steps[2]) + 1: after.index(")", steps[2])].split(", ")
    assert groups == ["pacing", "budget", "tracking", "waste", "efficiency", "concentration", "delivery", "status", "bidding"]


# --------------------------------------------------------------------------
# Thresholds rendered generically: a dated value renders in words too
# --------------------------------------------------------------------------


def _load(text: str):
    return YAML(typ="rt").load(text)


def test_a_dated_threshold_renders_with_its_dates():
    thresholds = _load(
        "google_multiple: 2.0  # Google may spend up to twice the daily budget on one day\n"
        "meta_multiple:  # Meta's allowance over the daily budget, by date\n"
        "  - {until: 2025-05-31, value: 1.25}\n"
        "  - {from: 2025-06-01, value: 1.75}\n"
        "margin: 0.01  # rounding slack above the multiple\n"
    )
    words = assistant.threshold_words(thresholds)
    assert words == (
        "google multiple 2 (Google may spend up to twice the daily budget on one day); "
        "meta multiple until 2025-05-31, value 1.25; from 2025-06-01, value 1.75 "
        "(Meta's allowance over the daily budget, by date); "
        "margin 0.01 (rounding slack above the multiple)"
    )


def test_a_dated_mapping_threshold_renders_too():
    thresholds = _load("meta_multiple_from:\n  date: 2025-06-01\n  value: 1.75\n")
    assert assistant.threshold_words(thresholds) == "meta multiple from date 2025-06-01, value 1.75"


# --------------------------------------------------------------------------
# The stamp covers every behaviour-changing setting
# --------------------------------------------------------------------------


@pytest.fixture
def fresh(monkeypatch):
    """Clear the cached prompt parts before and after a test that changes them."""
    def clear():
        assistant.system_prompt.cache_clear()
        assistant.output_schema.cache_clear()
    clear()
    yield monkeypatch
    monkeypatch.undo()
    clear()


CHANGES = {
    "system text": lambda mp: mp.setattr(assistant, "_PROMPT_TAIL", assistant._PROMPT_TAIL + "\nOne more rule."),
    "taxonomy thresholds": lambda mp: mp.setattr(assistant, "_commented_thresholds", lambda: {}),
    "schema": lambda mp: mp.setattr(assistant, "SEVERITIES", ("high", "low")),
    "thinking": lambda mp: mp.setattr(assistant, "THINKING", {"type": "enabled", "budget_tokens": 4000}),
    "cache markers": lambda mp: mp.setattr(assistant, "CACHE_CONTROL", {"type": "ephemeral", "ttl": "1h"}),
    "user-message template": lambda mp: mp.setattr(assistant, "_CHECKLIST", assistant._CHECKLIST + " Twice."),
}


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_the_stamp_changes_with_each_setting(fresh, what):
    before = assistant.prompt_sha256()
    CHANGES[what](fresh)
    assistant.system_prompt.cache_clear()
    assistant.output_schema.cache_clear()
    assert assistant.prompt_sha256() != before


def test_the_stamp_changes_with_max_tokens_but_not_with_model_or_snapshot():
    assert assistant.prompt_sha256(20000) != assistant.prompt_sha256(16000)
    assert assistant.prompt_sha256() == assistant.prompt_sha256(assistant.DEFAULT_MAX_TOKENS)
    a = assistant.build_request("{}", model="claude-haiku-5-5")
    b = assistant.build_request('{"x": 1}', model="claude-opus-5-5")
    assert a != b  # they differ only in model and snapshot, which the stamp leaves out
    assert len(assistant.prompt_sha256()) == 64


# Each prompt version and the hash of the request it sends (assistant.prompt_sha256: the system text, the
# schema and so the taxonomy, thinking, max_tokens, the user-message template). Edit any of them and the
# hash moves: bump PROMPT_VERSION in reviewtui/assistant.py and add the new version's line here.
PROMPT_HASHES = {
    "audit-v3": "5e4ef6b296c991c4663340efea7b9d17c7436ad185093326ac74b2d5e7f973a3",
    "audit-v4": "def0a2631116ef6f8425e583e73abcb3f0cceb640e534b057c08d3532b17a02c",
}


def test_the_prompt_version_is_bumped():
    """The version was once only compared with a string, so an edit of the prompt without a bump passed."""
    version, digest = assistant.PROMPT_VERSION, assistant.prompt_sha256()
    assert version in PROMPT_HASHES, f"{version} is new: record its hash {digest} in PROMPT_HASHES"
    assert digest == PROMPT_HASHES[version], (
        f"the prompt of {version} changed (sha256 {digest}, recorded {PROMPT_HASHES[version]}): bump PROMPT_VERSION "
        "in reviewtui/assistant.py and record the new version's hash in PROMPT_HASHES")
    others = [v for v, h in PROMPT_HASHES.items() if h == digest and v != version]
    assert not others, f"{version} sends the same request as {others}: a bump with no change"


def test_an_edit_of_the_prompt_text_moves_the_hash(monkeypatch):
    """What makes the test above fail on an edit without a bump."""
    before = assistant.prompt_sha256()
    monkeypatch.setattr(assistant, "_PROMPT_HEAD", assistant._PROMPT_HEAD.replace("the", "a", 1))
    assistant.system_prompt.cache_clear()
    try:
        assert assistant.prompt_sha256() != before
    finally:
        monkeypatch.undo()
        assistant.system_prompt.cache_clear()
    assert assistant.prompt_sha256() == before


def test_eval_stamps_the_backends_max_tokens(monkeypatch, tmp_path):
    from reviewtui.caseset.cases import load_case_set
    from reviewtui.runs.session import run_header

    write_case(tmp_path / "cases", "c01-shape", "ACCT-SHAPE")
    case_set = load_case_set(tmp_path / "cases")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    claude = ClaudeBackend(max_tokens=12000, cache_dir=None)
    header = run_header(case_set, claude, figures="derived", concurrency=1, repeats=1)
    assert header["prompt_sha256"] == assistant.prompt_sha256(12000) != assistant.prompt_sha256()
    json.dumps(header)


def test_each_kind_carries_its_severity_from_the_taxonomy():
    system = assistant.system_prompt()
    assert "- bidding.learning_period: " in system
    line = next(l for l in system.splitlines() if l.startswith("- waste.zero_conv_campaign:"))
    assert "Severity: medium; high when the campaign's share of account spend is 10% or more." in line
    assert "high: money is lost or mis-measured every day until someone acts" in system
    for kind in taxonomy.kinds().values():
        line = next(l for l in system.splitlines() if l.startswith(f"- {kind.id}:"))
        assert f"Severity: {kind.severity.level}" in line
