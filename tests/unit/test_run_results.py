"""A run's results (runs/case_records, gate, manifest, summary, usage, recorder): case records, CSV, missed ids by kind,
the gate, the summary text, the prompt-hash guard."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case_set
from reviewtui.runs.result_files import ResultsError, RunPaths
from reviewtui.runs.gate import gate_verdict, miss_pattern, missed_by_kind, summarize
from reviewtui.runs.manifest import PromptChangedError, build_manifest, check_prompt_guard, write_manifest
from reviewtui.runs.run_recorder import RunRecorder
from reviewtui.runs.run_folder import RunLockedError
from reviewtui.runs.case_records import CSV_COLUMNS, CaseRecord, csv_text, read_case_record, write_case_record
from reviewtui.runs.summary import format_summary
from reviewtui.scoring.score import CaseScore
from tests.stub_backends import FIXTURE_CASES

HEADER = {"prompt_version": "audit-v9", "prompt_sha256": "a" * 64, "backend": "stub", "model": "m",
          "figures": "derived", "thresholds": {"min_mean_recall": 0.9, "max_fabrications": 0}}


def score(case_id, recall=1.0, precision=1.0, *, status="ok", missed=(), figures=(), hits=(), error=None, parse_error=None):
    fabricated = [{"finding_index": i, "field": "evidence", "text": t, "grounded": False} for i, t in figures]
    must_not = [{"finding_index": i, "entry_id": e, "by": by, "pattern": p} for i, e, by, p in hits]
    # the rows of a result file written before figure statuses existed: "grounded" alone
    return CaseScore(case_id, status, recall, precision, len(fabricated) + len(must_not), missed_ids=list(missed),
                     figures=list(fabricated), fabricated_figures=fabricated, must_not_say_hits=must_not, error=error,
                     parse_error=parse_error)


def record(case_id, *scores, kind="ordinary"):
    return CaseRecord(case_id, kind, [CaseOutput(case_id, "{}") for _ in scores], list(scores))


def test_repeats_average_recall_add_fabrications_and_union_missed_ids():
    r = record("c1", score("c1", 1.0, 1.0, figures=[(0, "$5")]),
               score("c1", 0.5, 0.25, missed=["a.b@1"], figures=[(1, "$5")]),
               score("c1", 0.5, 0.5, missed=["a.b@1", "c.d"]))
    assert (r.recall, r.precision, r.fabrication, r.runs) == (pytest.approx(2 / 3), pytest.approx(0.5833333), 2, 3)
    assert r.missed_ids == ["a.b@1", "c.d"]
    assert r.fabrication_items() == ['figure "$5" in findings #1 evidence, #2 evidence']
    row = r.csv_row()
    assert (row["recall"], row["precision"], row["missed_ids"], row["runs"]) == ("0.6667", "0.5833", "a.b@1;c.d", "3")


def test_the_worst_status_of_the_repeats_wins():
    assert record("c1", score("c1"), score("c1", status="unparseable", parse_error="not JSON")).status == "unparseable"
    assert record("c1", score("c1", status="unparseable"), score("c1", status="error", error="429")).status == "error"


def test_csv_first_columns_and_quoting_read_back():
    recs = [record("c2", score("c2", 0.5, missed=["x.y@7"], figures=[(0, "$48,213.77")],
                               hits=[(1, "pacing.overspend", "says", "overspen")])),
            record("c1", score("c1"))]
    rows = list(csv.DictReader(io.StringIO(csv_text(recs))))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert list(CSV_COLUMNS[:5]) == ["case_id", "recall", "precision", "fabrication", "missed_ids"]
    assert [r["case_id"] for r in rows] == ["c1", "c2"]
    assert rows[1] == {"case_id": "c2", "recall": "0.5", "precision": "1", "fabrication": "2", "missed_ids": "x.y@7",
                       "kind": "ordinary", "status": "ok", "extra_ids": "", "fabricated_figures": "$48,213.77",
                       "must_not_say_hits": "pacing.overspend (says)", "error": "", "runs": "1",
                       "repeats_passed": "0", "pass_all": "0", "pass_any": "0", "flip": "0", "found_in": "x.y@7=0/1",
                       "figures_grounded": "0", "figures_untraceable": "0", "figures_fabricated": "1", "untraceable_figures": ""}


def test_figures_are_split_grounded_untraceable_fabricated_in_the_csv_and_the_summary():
    """Rows with a status (audit-v4 on) and rows of older files (``grounded`` alone) count alike."""
    rows = [{"finding_index": 0, "field": "evidence", "text": "1,101.10", "grounded": True, "status": "grounded"},
            {"finding_index": 0, "field": "claim", "text": "10", "grounded": True, "status": "untraceable"},
            {"finding_index": 1, "field": "evidence", "text": "7,777", "grounded": False, "status": "fabricated"},
            {"finding_index": 1, "field": "evidence", "text": "12.5", "grounded": True}]
    declared = score("c1")
    declared.figures, declared.fabricated_figures, declared.fabrication, declared.untraceable = rows, [rows[2]], 1, 1
    recs = [record("c1", declared), record("c2", score("c2", figures=[(0, "$5")]))]
    [c1, c2] = list(csv.DictReader(io.StringIO(csv_text(recs))))
    assert (c1["figures_grounded"], c1["figures_untraceable"], c1["figures_fabricated"], c1["untraceable_figures"]) == \
        ("2", "1", "1", "10")
    assert (c2["figures_grounded"], c2["figures_untraceable"], c2["figures_fabricated"]) == ("0", "0", "1")
    summary = summarize(recs, cases_total=2, not_run=[])
    assert summary["figures"] == {"grounded": 2, "untraceable": 1, "fabricated": 2}
    assert summary["untraceable_cases"] == [{"case_id": "c1", "untraceable": 1, "items": ['figure "10" in finding #1 claim']}]
    text = format_summary({**HEADER, "status": "complete", "summary": summary, "gate": gate_verdict(summary, "complete")})
    assert ("figures         5       2 grounded, 1 untraceable (grounded by the prose rules only, not declared), "
            "2 fabricated") in text
    assert '  c1: 1 untraceable: figure "10" in finding #1 claim' in text
    # a manifest written before the split has no figures line
    assert "figures         " not in format_summary({**HEADER, "status": "complete", "summary": {
        k: v for k, v in summary.items() if k not in ("figures", "untraceable_cases")}})


def test_missed_by_kind_counts_cases_and_ignores_failed_outputs():
    recs = [
        record("c1", score("c1", 0, missed=["tracking.conversions_stopped@333"])),
        record("c2", score("c2", 0, missed=["tracking.conversions_stopped", "data.duplicate_rows"])),
        record("c3", score("c3", 0, missed=["tracking.conversions_stopped@9"])),
        record("c4", score("c4", 0, status="unparseable", missed=["pacing.overspend"])),
        record("c5", score("c5", 0, status="error", missed=["pacing.overspend"])),
    ]
    by_kind = missed_by_kind(recs)
    assert list(by_kind) == ["tracking.conversions_stopped", "data.duplicate_rows"]
    assert by_kind["tracking.conversions_stopped"] == {"cases": 3, "ids": {
        "tracking.conversions_stopped": ["c2"], "tracking.conversions_stopped@333": ["c1"],
        "tracking.conversions_stopped@9": ["c3"]}}
    assert miss_pattern(by_kind)["pattern"] == "mixed"


def test_miss_patterns_tell_one_finding_everywhere_from_many_findings_once():
    six_same = [record(f"c{i}", score(f"c{i}", 0, missed=["tracking.double_counting"])) for i in range(6)]
    six_different = [record(f"c{i}", score(f"c{i}", 0, missed=[k])) for i, k in enumerate(
        ["pacing.overspend", "pacing.underspend", "data.duplicate_rows", "waste.zero_conv_campaign",
         "efficiency.off_target", "status.disapproved_ads"])]
    same = miss_pattern(missed_by_kind(six_same))
    different = miss_pattern(missed_by_kind(six_different))
    assert same["pattern"] == "concentrated" and "tracking.double_counting missed in 6 cases" in same["text"]
    assert "prompt" in same["text"]
    assert different["pattern"] == "scattered" and different["text"].startswith("scattered: 6 finding kind(s) missed once each")
    assert miss_pattern({}) is None
    one = miss_pattern(missed_by_kind(six_different[:1]))
    assert (one["pattern"], one["text"]) == ("isolated", "isolated: only pacing.overspend is missed, in one case")


def test_gate_passes_fails_with_each_reason_or_gives_no_verdict():
    ok = [record("c1", score("c1", 1.0)), record("c2", score("c2", 0.8))]
    assert gate_verdict(summarize(ok, cases_total=2, not_run=[]), "complete") == {"passed": True, "reasons": []}

    low = [record("c1", score("c1", 0.9)), record("c2", score("c2", 0.85, hits=[(0, "pacing.overspend", "id", None)]))]
    verdict = gate_verdict(summarize(low, cases_total=2, not_run=[]), "complete")
    assert verdict == {"passed": False, "reasons": ["mean recall 0.875 is below 0.90",
                                                    "1 fabrication(s), 0 allowed: c2 (1)"]}

    failed = [record("c1", score("c1")), record("c2", score("c2", 0, status="error", error="529"))]
    verdict = gate_verdict(summarize(failed, cases_total=3, not_run=["c3"]), "cancelled")
    assert verdict["passed"] is None
    assert verdict["reasons"] == ["run incomplete: 1 case(s) could not be obtained (c2); no verdict",
                                  "run cancelled: 1 of 3 case(s) did not finish; no verdict"]


def test_mean_recall_at_exactly_the_threshold_passes():
    recs = [record("c1", score("c1", 0.9)), record("c2", score("c2", 0.9))]
    assert gate_verdict(summarize(recs, cases_total=2, not_run=[]), "complete")["passed"] is True


def test_summary_text_reads_from_the_manifest():
    recs = [
        record("c1", score("c1", 1.0, figures=[(0, "$48,213.77")])),
        record("c2", score("c2", 0.5, missed=["tracking.conversions_stopped@333"])),
        record("c3", score("c3", 0.0, missed=["tracking.conversions_stopped"])),
        record("c4", score("c4", 0.0, status="unparseable", parse_error="not JSON: Expecting value at line 1 column 1")),
    ]
    manifest = build_manifest(HEADER, recs, status="complete", not_run=[], cases_total=4,
                              usage={"input_tokens": 12345, "output_tokens": 678, "cost_usd": 0.031, "cached": 2})
    text = format_summary(manifest)
    assert "mean recall     0.375   needs >= 0.90   FAIL" in text
    assert '  c1: 1: figure "$48,213.77" in finding #1 evidence' in text
    assert "\n    2 cases  tracking.conversions_stopped  c3, c2 (@333)\n" in text
    assert "pattern: concentrated: tracking.conversions_stopped missed in 2 cases" in text
    assert "unparseable     1       allowed 0        FAIL\n  c4: not JSON: Expecting value at line 1 column 1" in text
    assert "tokens          12,345 in / 678 out, estimated cost $0.03, 2 answer(s) from the cache cost nothing" in text
    assert text.rstrip().endswith("  - 1 fabrication(s), 0 allowed: c1 (1)\n"
                                  "  - 1 unparseable answer(s), 0 allowed (--max-unparseable): c4")
    assert "gate            FAILED\n  - mean recall 0.375 is below 0.90\n" in text


def test_summary_usage_lines():
    base = build_manifest(HEADER, [record("c1", score("c1"))], status="complete", not_run=[], cases_total=1,
                          usage={"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0})
    assert "tokens          none (no model calls)" in format_summary(base)
    base["usage"] = {"input_tokens": 10, "output_tokens": 2, "cost_usd": None}
    assert "tokens          10 in / 2 out, cost unknown for this model" in format_summary(base)


def test_prompt_guard(tmp_path):
    paths = RunPaths(tmp_path, "audit-v9")
    assert check_prompt_guard(paths, "a" * 64) is None
    write_manifest(paths, {"prompt_version": "audit-v9", "prompt_sha256": "a" * 64})
    assert check_prompt_guard(paths, "a" * 64)["prompt_sha256"] == "a" * 64
    with pytest.raises(PromptChangedError, match=r"sha256 aaaaaaaaaaaa, now bbbbbbbbbbbb\); bump PROMPT_VERSION in reviewtui/assistant.py"):
        check_prompt_guard(paths, "b" * 64)
    paths.manifest.write_text('{"prompt_sha256": \n', encoding="utf-8")
    with pytest.raises(ResultsError, match=rf"{paths.manifest}:2: the run manifest is not valid JSON"):
        check_prompt_guard(paths, "a" * 64)


def test_case_records_round_trip_and_bad_files_name_the_place(tmp_path):
    paths = RunPaths(tmp_path, "audit-v9")
    rec = record("c1", score("c1", 0.5, missed=["x.y"]), score("c1", 1.0))
    write_case_record(paths, rec)
    back = read_case_record(paths.case_file("c1"))
    assert (back.case_id, back.recall, back.missed_ids, back.runs) == ("c1", 0.75, ["x.y"], 2)
    assert back.outputs[0].raw_text == "{}"
    paths.case_file("c2").write_text("{\n  oops", encoding="utf-8")
    with pytest.raises(ResultsError, match=rf"{paths.case_file('c2')}:2: the case result file is not valid JSON"):
        read_case_record(paths.case_file("c2"))


def test_recorder_writes_its_own_folder_and_swaps_it_in_only_when_it_ends(tmp_path):
    case_set = load_case_set(FIXTURE_CASES)
    paths = RunPaths(tmp_path, "audit-v9")
    paths.cases_dir.mkdir(parents=True)
    (paths.cases_dir / "old-case.json").write_text("{}", encoding="utf-8")
    paths.manifest.write_text('{"status": "complete"}', encoding="utf-8")
    recorder = RunRecorder(paths, {**HEADER, "prompt_sha256": None}, case_set.cases[:3], figures="derived")
    recorder.start()
    assert recorder.work.run_dir == tmp_path / ".work" / "audit-v9"
    assert json.loads(recorder.work.manifest.read_text(encoding="utf-8"))["status"] == "running"
    assert (paths.cases_dir / "old-case.json").exists()  # the record is untouched while the run goes on
    assert json.loads(paths.manifest.read_text(encoding="utf-8")) == {"status": "complete"}

    first = case_set.cases[0]
    recorder.case_done(first, CaseOutput(first.case_id, '{"findings": []}'), 0)
    assert read_case_record(recorder.work.case_file(first.case_id)).recall == 0.0  # on disk before the run ends
    assert not paths.csv.exists() and not paths.case_file(first.case_id).exists()

    manifest = recorder.finish("complete")  # two cases never ran
    assert manifest["status"] == "cancelled"
    assert manifest["summary"]["not_run_cases"] == [c.case_id for c in case_set.cases[1:3]]
    assert [r["case_id"] for r in csv.DictReader(paths.csv.open(encoding="utf-8"))] == [first.case_id]
    assert sorted(p.name for p in paths.cases_dir.iterdir()) == [f"{first.case_id}.json"]  # the run replaced the record
    assert not recorder.work.run_dir.exists()


def test_a_second_writer_is_refused_while_the_first_runs_and_a_killed_run_changes_nothing(tmp_path):
    case_set = load_case_set(FIXTURE_CASES)
    paths = RunPaths(tmp_path, "audit-v9")
    first = RunRecorder(paths, HEADER, case_set.cases[:2], figures="derived")
    first.start()
    with pytest.raises(RunLockedError, match=rf"cannot write the results of audit-v9 in {tmp_path}: another run of "
                                             rf"audit-v9 \(process {os.getpid()}, since .*\) holds "):
        RunRecorder(paths, HEADER, case_set.cases[:2], figures="derived")
    first.finish("complete")
    before = {p.name: p.read_bytes() for p in paths.run_dir.rglob("*.json")}

    killed = RunRecorder(paths, HEADER, case_set.cases[:2], figures="derived")
    killed.start()
    killed.case_done(case_set.cases[0], CaseOutput(case_set.cases[0].case_id, '{"findings": []}'), 0)
    killed.abandon()  # as a kill -9 leaves it: the lock goes with the process, the record is as it was
    assert {p.name: p.read_bytes() for p in paths.run_dir.rglob("*.json")} == before
    again = RunRecorder(paths, HEADER, case_set.cases[:2], figures="derived")
    again.start()  # what the killed run left is cleared
    assert list(again.work.cases_dir.iterdir()) == []
    again.abandon()


def test_a_swap_interrupted_between_its_renames_is_put_back_by_the_next_writer(tmp_path):
    case_set = load_case_set(FIXTURE_CASES)
    paths = RunPaths(tmp_path, "audit-v9")
    recorder = RunRecorder(paths, HEADER, case_set.cases[:1], figures="derived")
    recorder.start()
    recorder.finish("complete")
    manifest = paths.manifest.read_bytes()
    os.rename(paths.run_dir, tmp_path / ".work" / "audit-v9.old")  # killed right after the first rename
    RunRecorder(paths, HEADER, case_set.cases[:1], figures="derived").abandon()
    assert paths.manifest.read_bytes() == manifest


def test_a_resumed_run_counts_the_answers_it_kept():
    from reviewtui.backends.base import CaseOutput
    from reviewtui.runs.summary import format_summary
    from reviewtui.runs.usage import add_kept_usage

    this_session = {"input_tokens": 100, "output_tokens": 10, "cost_usd": 0.001, "cached": 0}
    kept = [
        CaseOutput("a", "{}", input_tokens=1_000_000, output_tokens=0, model="claude-haiku-5-5"),
        CaseOutput("b", "{}", input_tokens=5, output_tokens=5, cached=True, model="claude-haiku-5-5"),
    ]
    usage = add_kept_usage(this_session, kept)
    assert usage["input_tokens"] == 1_000_105 and usage["output_tokens"] == 15
    assert usage["cost_usd"] == pytest.approx(0.101)  # Haiku input at $0.10 per million; the cached one is free
    assert usage["kept"] == 2
    assert add_kept_usage(this_session, []) == this_session
    line = [l for l in format_summary({"usage": usage, "summary": {}, "gate": {}}).splitlines() if l.startswith("tokens")]
    assert line and "2 answer(s) kept from the interrupted run" in line[0]
