"""What ``reviewtui eval`` says about its own numbers: repeats, intervals, recall by kind, unparseable answers.

Real path: fixture cases on disk, a stub handed to ``main`` or written as a
replay folder, the CSV and the manifest read back from disk.
"""

from __future__ import annotations

import json

import pytest

from reviewtui import assistant
from reviewtui.caseset.cases import load_case_set
from reviewtui.commands.eval import main
from tests.stub_backends import (
    FIXTURE_CASES,
    AlternatingAssistant,
    CorrectAssistant,
    EmptyAssistant,
    output_text,
)
from tests.test_eval import OTHER_FINDING, read_csv, read_manifest, run_replay

VERSION = assistant.PROMPT_VERSION
FLIPPER = "c01-tracking-stopped"


class MissesAll(EmptyAssistant):
    """An answer that finds none of what a case expects: one finding of a kind no fixture case expects or
    rules out, with no figure (an empty findings list is not of the output schema: unparseable)."""

    name = "stub-misses"

    def text_for(self, case):
        return output_text([OTHER_FINDING])


@pytest.fixture(scope="module")
def fixture_set():
    return load_case_set(FIXTURE_CASES)


def run_stub(backend, tmp_path, *extra: str) -> int:
    return main(["--cases", str(FIXTURE_CASES), "--results-dir", str(tmp_path / "results"), *extra], backend=backend)


def test_repeats_with_a_stub_that_alternates_give_pass_all_0_pass_any_1_and_a_flip(fixture_set, tmp_path, capsys):
    backend = AlternatingAssistant(CorrectAssistant(), MissesAll(), only=[FLIPPER])
    assert run_stub(backend, tmp_path, "--repeats", "3") == 0  # recall 0.967 over the ten; nothing fabricated
    out = capsys.readouterr().out
    columns, rows = read_csv(tmp_path, tmp_path / "results")
    assert columns[:5] == ["case_id", "recall", "precision", "fabrication", "missed_ids"]
    assert len(rows) == len(fixture_set.cases)  # one row per case, not per repeat
    flipper = rows[FLIPPER]
    must = [e.id for e in next(c for c in fixture_set.cases if c.case_id == FLIPPER).must_find]
    # repeats 0 and 2 answer correctly, repeat 1 answers nothing
    assert (flipper["runs"], flipper["repeats_passed"], flipper["pass_all"], flipper["pass_any"], flipper["flip"]) == \
        ("3", "2", "0", "1", "1")
    assert flipper["found_in"] == ";".join(f"{i}=2/3" for i in must)
    steady = rows["c02-brand-lost-is"]
    assert (steady["repeats_passed"], steady["pass_all"], steady["pass_any"], steady["flip"]) == ("3", "1", "1", "0")

    consistency = read_manifest(tmp_path, tmp_path / "results")["consistency"]
    assert consistency["repeats"] == 3 and consistency["pass_all"] == 9 and consistency["pass_any"] == 10
    assert consistency["flipping_cases"] == [{"case_id": FLIPPER, "passed": 2, "runs": 3}]
    assert consistency["sometimes_found"] == [{"case_id": FLIPPER, "id": i, "found": 2, "runs": 3} for i in must]
    assert "repeats         3 per case: pass^3 9 of 10 cases, pass@3 10, 1 flip" in out
    assert f"  flipping: {FLIPPER} (passed 2 of 3)" in out
    assert f"    {FLIPPER}: {must[0]} found 2 of 3 times" in out
    # found in some repeats is not "missed": the missed ids list only what no repeat found
    manifest = read_manifest(tmp_path, tmp_path / "results")
    assert not any(FLIPPER in cases for entry in manifest["missed_by_kind"].values() for cases in entry["ids"].values())
    assert "missed must_find ids: none" in out


def test_a_fabrication_in_one_repeat_fails_the_gate(fixture_set, tmp_path, capsys):
    made_up = CorrectAssistant(made_up=("c04-overspend-disapproved", "$48,213.77"))
    backend = AlternatingAssistant(CorrectAssistant(), made_up, CorrectAssistant())
    assert run_stub(backend, tmp_path, "--repeats", "3") == 1
    manifest = read_manifest(tmp_path, tmp_path / "results")
    assert manifest["summary"]["fabrications"] == 1
    assert manifest["gate"]["reasons"] == ["1 fabrication(s), 0 allowed: c04-overspend-disapproved (1)"]
    _, rows = read_csv(tmp_path, tmp_path / "results")
    assert rows["c04-overspend-disapproved"]["repeats_passed"] == "2"
    assert rows["c04-overspend-disapproved"]["flip"] == "1"


def test_summary_and_manifest_give_the_interval_margin_and_recall_by_kind(fixture_set, tmp_path, capsys):
    class MissesOne(CorrectAssistant):
        def text_for(self, case):
            return MissesAll().text_for(case) if case.case_id == FLIPPER else super().text_for(case)

    assert run_replay(MissesOne(), fixture_set, tmp_path) == 0  # recall 0.9: exactly at the threshold
    out = capsys.readouterr().out
    manifest = read_manifest(tmp_path)
    u = manifest["uncertainty"]
    assert (u["resamples"], u["cases"], u["level"]) == (10_000, 10, 0.95)
    # nine cases at 1 and one at 0: a resampled mean is Binomial(10, 0.9) / 10, whose 2.5% quantile is 0.7
    assert u["recall"] == {"mean": 0.9, "low": 0.7, "high": 1.0}
    assert u["recall_margin"] == 0.0 and u["recall_verdict"] == "a pass within noise"
    assert "  recall 0.90, 95% CI 0.70–1.00: a pass within noise" in out
    assert "  95% CI 0.700–1.000 (task-level bootstrap, 10 cases, 10,000 resamples), margin to 0.90 +0.000" in out

    by_case_kind = manifest["recall_by_case_kind"]
    kinds = {c.kind for c in fixture_set.cases}
    assert set(by_case_kind) == kinds
    assert sum(v["cases"] for v in by_case_kind.values()) == 10
    flipper_kind = next(c.kind for c in fixture_set.cases if c.case_id == FLIPPER)
    n = sum(1 for c in fixture_set.cases if c.kind == flipper_kind)
    assert by_case_kind[flipper_kind] == {"cases": n, "mean_recall": round((n - 1) / n, 6)}
    assert list(by_case_kind)[0] == flipper_kind  # lowest first
    by_finding = manifest["recall_by_finding_kind"]
    assert by_finding["tracking.conversions_stopped"] == {"found": 0, "expected": 1, "recall": 0.0}
    assert "recall by case kind, lowest first (mean recall, cases):" in out
    assert "tracking.conversions_stopped 0.00 (0/1)" in out


class GarbledTwo(CorrectAssistant):
    def text_for(self, case):
        if case.case_id == "c08-clean-flight":
            return "The account looks fine to me."
        if case.case_id == "c07-clean-steady":
            return json.dumps({"results": []})
        return super().text_for(case)


def test_unparseable_answers_fail_the_gate_even_when_recall_passes(tmp_path, capsys):
    # One unparseable of ten, everything else right: mean recall 0.90, which alone would pass.
    class GarbledOne(CorrectAssistant):
        def text_for(self, case):
            return "not json" if case.case_id == "c08-clean-flight" else super().text_for(case)

    stub = GarbledOne()
    assert run_replay(stub, load_case_set(FIXTURE_CASES), tmp_path) == 1
    out = capsys.readouterr().out
    manifest = read_manifest(tmp_path)
    assert manifest["summary"]["mean_recall"] == 0.9  # recall alone would pass
    assert manifest["gate"]["reasons"] == [
        "1 unparseable answer(s), 0 allowed (--max-unparseable): c08-clean-flight"]
    assert "unparseable     1       allowed 0        FAIL" in out


def test_max_unparseable_allows_some(tmp_path, capsys):
    class GarbledOne(CorrectAssistant):
        def text_for(self, case):
            return "not json" if case.case_id == "c08-clean-flight" else super().text_for(case)

    assert run_replay(GarbledOne(), load_case_set(FIXTURE_CASES), tmp_path, "--max-unparseable", "1") == 0
    assert read_manifest(tmp_path)["thresholds"]["max_unparseable"] == 1
    assert "unparseable     1       allowed 1        ok" in capsys.readouterr().out
    assert run_replay(GarbledTwo(), load_case_set(FIXTURE_CASES), tmp_path, "--max-unparseable", "1") == 1
    reasons = read_manifest(tmp_path)["gate"]["reasons"]
    assert "2 unparseable answer(s), 1 allowed (--max-unparseable): c07-clean-steady, c08-clean-flight" in reasons


def test_max_unparseable_must_be_a_whole_number(tmp_path, capsys):
    assert run_stub(EmptyAssistant(), tmp_path, "--max-unparseable", "-1") == 2
    assert "--max-unparseable" in capsys.readouterr().err


def test_replay_answers_each_repeat_from_its_own_file(fixture_set, tmp_path, capsys):
    # The CLI path for a flipping answer: repeat 2 of one case is stored as an answer that misses it.
    replay = CorrectAssistant().write_replay_dir(fixture_set.cases, tmp_path / "replay")
    (replay / f"{FLIPPER}.repeat2.json").write_text(MissesAll().text_for(None), encoding="utf-8")
    assert main(["--backend", "replay", "--replay-dir", str(replay), "--cases", str(FIXTURE_CASES),
                 "--results-dir", str(tmp_path / "results"), "--repeats", "3"]) == 0
    _, rows = read_csv(tmp_path)
    assert (rows[FLIPPER]["repeats_passed"], rows[FLIPPER]["flip"]) == ("2", "1")
    assert rows["c02-brand-lost-is"]["repeats_passed"] == "3"
    assert f"  flipping: {FLIPPER} (passed 2 of 3)" in capsys.readouterr().out
