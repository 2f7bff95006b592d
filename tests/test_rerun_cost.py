"""What a claude run does not do again (issue 26): a rerun answered from the response cache never loads the SDK,
answers scored before are not scored again (unless the answer, the case's files or the scorer's code changed),
snapshots converted to the compact form are not converted again, and the requests are built before the run.

Through the real eval, the real SDK and the fake Messages API on 127.0.0.1; real files in tmp_path."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.backends.claude import ClaudeBackend
from reviewtui.files import parse_cache
from reviewtui.caseset import snapshot_compact
from reviewtui.caseset.cases import load_case, load_case_set
from reviewtui.commands.eval import main
from reviewtui.runs import case_records, score_cache
from reviewtui.scoring.score import CaseScore
from tests.fake_messages_api import answer, findings_json, serving_in_env, write_case
from tests.test_scoring_pool import ANSWERS as POOL_ANSWERS

KEY = "fake-anthropic-key-rerun-cost-test-5b8a"
REPO = Path(__file__).resolve().parents[1]
# Three of the scoring-pool test's answers: one found, one missed, one with a figure the rows do not hold.
ANSWERS = {case_id: POOL_ANSWERS[case_id] for case_id in ("c01-found", "c02-missed", "c03-made-up")}


@pytest.fixture(autouse=True)
def own_disk_cache(tmp_path, monkeypatch):
    """Scores, compact snapshots and parsed files stored by this test only."""
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))


@pytest.fixture
def cases_dir(tmp_path):
    for case_id in ANSWERS:
        write_case(tmp_path / "cases", case_id, f"ACCT-{case_id.upper()}")
    return tmp_path / "cases"


def plan_answers(api) -> None:
    for case_id, text in ANSWERS.items():
        api.plan(f"ACCT-{case_id.upper()}", answer(text))


def case_files(results: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(results.glob("*/cases/*.json"))}


def scores(results: Path) -> dict[str, list[dict]]:
    """Each case's scores, one per answer (the outputs differ: a rerun's come from the cache)."""
    return {name: [r["score"] for r in json.loads(text)["repeats"]] for name, text in case_files(results).items()}


def eval_args(cases_dir: Path, results: Path) -> list[str]:
    return ["--backend", "claude", "--cases", str(cases_dir), "--results-dir", str(results), "--repeats", "2"]


@pytest.mark.slow
def test_a_rerun_answered_from_the_response_cache_never_imports_the_sdk(cases_dir, tmp_path, monkeypatch):
    script = ("import json, sys\nfrom reviewtui.commands.eval import main\n"
              "code = main(sys.argv[1:])\n"
              "print(json.dumps({'code': code, 'sdk': 'anthropic' in sys.modules}))\n")
    results = tmp_path / "results"
    with serving_in_env(monkeypatch, KEY) as api:
        plan_answers(api)
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}

        def run() -> dict:
            proc = subprocess.run([sys.executable, "-c", script, *eval_args(cases_dir, results)], env=env, cwd=REPO,
                                  capture_output=True, text=True, timeout=120)
            return json.loads(proc.stdout.strip().splitlines()[-1])

        first = run()
        asked = len(api.requests)
        first_scores = scores(results)
        second = run()
    assert first["sdk"] is True and asked == len(ANSWERS) * 2
    assert second == {"code": first["code"], "sdk": False}
    assert len(api.requests) == asked  # nothing asked the second time
    assert scores(results) == first_scores


def test_a_rerun_reuses_the_scores_and_scores_again_only_what_changed(cases_dir, tmp_path, monkeypatch, capsys):
    results = tmp_path / "results"
    with serving_in_env(monkeypatch, KEY) as api:
        plan_answers(api)
        main(eval_args(cases_dir, results))
        first = scores(results)

        # From here on the scorer fails on every answer it is given: what it is not given stays right.
        def scorer_fails(case, output, **kwargs):
            raise RuntimeError("scored again")

        monkeypatch.setattr(case_records, "score_case", scorer_fails)
        main(eval_args(cases_dir, results))
        assert scores(results) == first  # every score reused

        expected = cases_dir / "c02-missed" / "expected.yaml"  # one case file edited: that case is scored again
        expected.write_text(expected.read_text(encoding="utf-8") + "# reviewed again\n", encoding="utf-8")
        api.plan("ACCT-C03-MADE-UP", answer(findings_json("pacing.overspend")))  # one new answer
        main(["--no-cache", *eval_args(cases_dir, results)])
    again = scores(results)
    rescored = {name for name, kept in again.items() if any("scored again" in (s["error"] or "") for s in kept)}
    assert rescored == {"c02-missed.json", "c03-made-up.json"}
    assert again["c01-found.json"] == first["c01-found.json"]
    assert [s["error"] for s in again["c03-made-up.json"]] == ["scoring failed: RuntimeError: scored again"] * 2
    capsys.readouterr()


def test_a_score_from_a_failed_scoring_is_not_kept(tmp_path):
    case = load_case(write_case(tmp_path / "cases", "c01-found", "ACCT-1"))
    outputs = [CaseOutput(case.case_id, ANSWERS["c01-found"])]
    calls = []

    def failing(case, outputs, *, figures):  # what a worker that died makes of the answers it was given
        calls.append(len(outputs))
        scores = [CaseScore(case.case_id, "error", 0.0, 0.0, 0, error="scoring failed: the scoring process stopped")
                  for _ in outputs]
        return case_records.CaseRecord(case.case_id, case.kind, list(outputs), scores)

    reusing = score_cache.reusing_scores(failing)
    reusing(case, outputs, figures="derived")
    reusing(case, outputs, figures="derived")
    assert calls == [1, 1]  # asked again: the failure was not stored
    good = score_cache.reusing_scores(case_records.score_record)
    kept = good(case, outputs, figures="derived")
    again = score_cache.reusing_scores(failing)(case, outputs, figures="derived")
    assert again.to_file_dict() == kept.to_file_dict() and calls == [1, 1]
    strict = score_cache.reusing_scores(failing)(case, outputs, figures="strict")  # another figures mode misses
    assert strict.scores[0].error and calls == [1, 1, 1]


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    """A copy of the package's source, read by the scorer digest instead of the real one."""
    copy = tmp_path / "reviewtui"
    shutil.copytree(score_cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(score_cache, "PACKAGE", copy)
    for cached in (score_cache.scorer_files, score_cache.scorer_digest, score_cache._package_modules):
        cached.cache_clear()
    yield copy
    for cached in (score_cache.scorer_files, score_cache.scorer_digest, score_cache._package_modules):
        cached.cache_clear()


def _digest_after(package: Path, relative: str, extra: str) -> str:
    path = package / relative
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    score_cache.scorer_digest.cache_clear()
    return score_cache.scorer_digest()


def test_the_scorer_digest_follows_the_scorers_source_and_data_only(package_copy):
    before = score_cache.scorer_digest()
    assert _digest_after(package_copy, "tui/app.py", "\n# the app is not the scorer\n") == before
    assert _digest_after(package_copy, "runs/summary.py", "\n# nor is the summary\n") == before
    changed = _digest_after(package_copy, "scoring/figures.py", "\n# a scorer edit\n")
    assert changed != before
    after_taxonomy = _digest_after(package_copy, "taxonomy.yaml", "\n# a taxonomy edit\n")
    assert after_taxonomy != changed
    # the declared figures' vocabulary and their recomputation are the scorer too
    after_vocabulary = _digest_after(package_copy, "figure_vocabulary.py", "\n# a vocabulary edit\n")
    assert after_vocabulary != after_taxonomy
    assert _digest_after(package_copy, "scoring/declared.py", "\n# a recomputation edit\n") != after_vocabulary


def test_the_scorer_digest_follows_the_schema_validators_version(monkeypatch):
    """jsonschema decides which answers and declared figures are of the schema: another version scores again."""
    real = importlib.metadata.version
    before = score_cache.scorer_digest()
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "0.0-other" if name == "jsonschema" else real(name))
    score_cache.scorer_digest.cache_clear()
    try:
        assert score_cache.scorer_digest() != before
    finally:
        monkeypatch.undo()
        score_cache.scorer_digest.cache_clear()
    assert score_cache.scorer_digest() == before


# A declared answer that parses, so that scoring it runs the recomputation of each form and the prose rules.
DECLARED_ANSWER = json.dumps({"findings": [{
    "id": "pacing.overspend", "scope": None, "severity": "high", "claim": "Spend runs ahead of the budget.",
    "evidence": "Cost 2025-03-01 to 2025-03-07 was 100.00, 12% above the scheduled spend; 7 days.",
    "figures": [
        {"label": "a", "printed": "100.00", "how": "aggregate", "stat": "sum", "metric": "cost", "campaigns": [],
         "except": [], "from": "2025-03-01", "to": "2025-03-07", "reading": "as_is"},
        {"label": "b", "printed": "90", "how": "budget", "what": "scheduled", "campaigns": [], "budgets": [],
         "from": "2025-03-01", "to": "2025-03-07"},
        {"label": "c", "printed": "12%", "how": "calc", "op": "percent_change", "args": ["b", "a"]},
        {"label": "d", "printed": "1", "how": "value", "pointer": "/daily/0/clicks"},
        {"label": "e", "printed": "7", "how": "rows", "pointers": ["/daily/0"], "field": "", "stat": "count"}]}]})


@pytest.mark.slow
def test_the_scorer_files_hold_every_module_scoring_loads():
    """Scoring in a fresh interpreter: every module of the package it loaded is in the digest."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from reviewtui.backends.base import CaseOutput\n"
        "from reviewtui.caseset.cases import load_case_set\n"
        "from reviewtui.runs.case_records import score_record\n"
        "case = load_case_set('cases').cases[0]\n"
        f"[score] = score_record(case, [CaseOutput(case.case_id, {DECLARED_ANSWER!r})], figures='derived').scores\n"
        "root = Path('reviewtui').resolve()\n"
        "print(score.status, len(score.figures))\n"
        "print(json.dumps(sorted(str(Path(m.__file__).resolve().relative_to(root)) for n, m in list(sys.modules.items())\n"
        "                        if n.startswith('reviewtui') and getattr(m, '__file__', None))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    status, loaded_text = proc.stdout.split("\n", 1)
    assert status.split()[0] == "ok" and int(status.split()[1]) >= 5  # the declared figures were recomputed
    loaded = set(json.loads(loaded_text))
    assert {"scoring/score.py", "scoring/grounding.py", "scoring/declared.py", "figure_vocabulary.py"} <= loaded
    assert loaded <= set(score_cache.scorer_files()), loaded - set(score_cache.scorer_files())


def test_the_compact_snapshot_is_read_back_from_disk_and_converted_again_when_the_code_changes(tmp_path, monkeypatch):
    case = load_case(write_case(tmp_path / "cases", "c01-found", "ACCT-1"))
    text = case.snapshot.text
    snapshot_compact.compact_text.cache_clear()
    converted = snapshot_compact.compact_text(text)
    raw = text.encode("utf-8")
    assert parse_cache.load(raw, snapshot_compact._source_digest(), folder=snapshot_compact.CACHE_FOLDER) == converted
    # What is on disk is what the next process gets: a stored text stands for the conversion.
    parse_cache.store(raw, '{"stored":1}', snapshot_compact._source_digest(), folder=snapshot_compact.CACHE_FOLDER)
    snapshot_compact.compact_text.cache_clear()
    assert snapshot_compact.compact_text(text) == '{"stored":1}'
    monkeypatch.setattr(snapshot_compact, "_source_digest", lambda: "another version of the conversion")
    snapshot_compact.compact_text.cache_clear()
    assert snapshot_compact.compact_text(text) == converted
    snapshot_compact.compact_text.cache_clear()


async def test_plan_prepares_the_requests_and_counts_those_the_cache_cannot_answer(cases_dir, tmp_path, monkeypatch):
    cases = load_case_set(cases_dir).cases
    with serving_in_env(monkeypatch, KEY) as api:
        plan_answers(api)
        first = ClaudeBackend(cache_dir=tmp_path / "responses")
        try:
            assert first.plan(cases, 2) == 6 and first.plan(cases, 2) == 6  # planning again keeps what it prepared
            assert not first.connected and not api.requests
            await first.run(cases[0], repeat=0)
            assert first.connected and len(api.requests) == 1
        finally:
            await first.aclose()
        second = ClaudeBackend(cache_dir=tmp_path / "responses")
        try:
            assert second.plan(cases, 2) == 5  # the one answer is in the response cache
            out = await second.run(cases[0], repeat=0)
            assert out.cached and not second.connected and len(api.requests) == 1
        finally:
            await second.aclose()


def test_a_record_written_from_stored_scores_is_the_records_json(tmp_path):
    """The record file is ``json_text(to_file_dict())`` whether its scores' JSON comes from the score cache or
    is encoded now, for one answer and for repeats; a rerun writes the same bytes."""
    from reviewtui.runs.result_files import json_text

    case = load_case(write_case(tmp_path / "cases", "c03-made-up", "ACCT-3"))
    made_up = CaseOutput(case.case_id, ANSWERS["c03-made-up"], input_tokens=10, output_tokens=20, model="m",
                         stop_reason="end_turn")
    found = CaseOutput(case.case_id, ANSWERS["c01-found"], error=None, model="m \u00e9 <x>")
    for outputs in ([], [made_up], [made_up, found, made_up]):
        first = score_cache.reusing_scores(case_records.score_record)(case, list(outputs), figures="derived")
        again = score_cache.reusing_scores(case_records.score_record)(case, list(outputs), figures="derived")
        plain = case_records.CaseRecord(first.case_id, first.kind, first.outputs, first.scores)  # no kept texts
        assert len(again.score_texts) == len(outputs)
        assert first.file_text() == again.file_text() == plain.file_text() == json_text(first.to_file_dict())
    empty = case_records.CaseRecord(case.case_id, case.kind, [made_up], [])
    assert empty.file_text() == json_text(empty.to_file_dict())
