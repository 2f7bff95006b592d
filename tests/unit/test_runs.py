"""Stored runs: list_runs, load_run, rescore_run, compare_runs, on runs written by the real eval."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.caseset.cases import ExpectedDoc, load_case_set
from reviewtui.commands.eval import main
from reviewtui.runs.result_files import ResultsError, RunPaths
from reviewtui.runs.stored_runs import compare_runs, format_comparison, list_runs, load_run, rescore_run
from tests.stub_backends import CorrectAssistant, TextAssistant, copy_fixture_cases, finding, output_text

MADE_UP = ("c04-overspend-disapproved", "$48,213.77")


class DropsC01(CorrectAssistant):
    """Misses c01's stop; reports only what the case allows (an empty findings list is unparseable)."""

    def text_for(self, case):
        if case.case_id != "c01-tracking-stopped":
            return super().text_for(case)
        [allowed] = case.may_find
        return output_text([finding(allowed.kind, allowed.scope, evidence=allowed.evidence)])


def run_eval(stub: TextAssistant, cases_dir: Path, results_dir: Path) -> int:
    """A run of a stand-in assistant, in the assistant's place under ``results_dir``."""
    return main(["--cases", str(cases_dir), "--results-dir", str(results_dir)], backend=stub)


@pytest.fixture
def cases_dir(tmp_path):
    return copy_fixture_cases(tmp_path / "cases")


def test_list_runs_newest_first_with_what_the_app_shows(cases_dir, tmp_path, monkeypatch, capsys):
    results = tmp_path / "results"
    monkeypatch.setattr(assistant, "PROMPT_VERSION", "audit-v0")
    assert run_eval(CorrectAssistant(made_up=MADE_UP), cases_dir, results) == 1
    monkeypatch.setattr(assistant, "PROMPT_VERSION", "audit-v1")
    assert run_eval(CorrectAssistant(), cases_dir, results) == 0
    old_manifest = results / "audit-v0" / "manifest.json"
    data = json.loads(old_manifest.read_text(encoding="utf-8"))
    data["finished_at"] = "2025-01-01T09:00:00+00:00"  # an older run
    old_manifest.write_text(json.dumps(data), encoding="utf-8")
    (results / ".cache" / "x").mkdir(parents=True)
    (results / ".cache" / "x" / "manifest.json").write_text("{}", encoding="utf-8")
    (results / "broken").mkdir()
    (results / "broken" / "manifest.json").write_text("{", encoding="utf-8")

    runs = list_runs(results)
    assert [r.prompt_version for r in runs] == ["audit-v1", "audit-v0"]
    newest, oldest = runs
    assert (newest.backend, newest.status, newest.passed, newest.mean_recall, newest.fabrications) == (
        "stub-correct", "complete", True, 1.0, 0)
    assert (oldest.passed, oldest.fabrications, oldest.date) == (False, 1, "2025-01-01T09:00:00+00:00")
    assert newest.case_set_hash == load_case_set(cases_dir).digest()
    assert newest.run_dir == results / "audit-v1"
    assert list_runs(tmp_path / "nothing-here") == []


def test_load_run_reads_the_manifest_and_every_case(cases_dir, tmp_path, capsys):
    results = tmp_path / "results"
    run_eval(CorrectAssistant(made_up=MADE_UP), cases_dir, results)
    run = load_run(results / assistant.PROMPT_VERSION)
    assert len(run.records) == 10 and run.exit_code == 1
    assert run.records[MADE_UP[0]].fabrication == 1
    assert run.records[MADE_UP[0]].outputs[0].raw_text.endswith('"severity": "medium"}]}')

    bad = RunPaths.of_run_dir(run.run_dir).case_file("c02-brand-lost-is")
    bad.write_text('{"case_id": "c02-brand-lost-is",\n "output": ', encoding="utf-8")
    with pytest.raises(ResultsError, match=rf"{bad}:2: the case result file is not valid JSON"):
        load_run(run.run_dir)


def test_rescore_after_editing_the_cases_reports_what_changed_and_rewrites_the_results(cases_dir, tmp_path, capsys):
    results = tmp_path / "results"
    assert run_eval(CorrectAssistant(), cases_dir, results) == 0
    run_dir = results / assistant.PROMPT_VERSION

    # A senior promotes a may_find to must_find (the stored answer lacks it) ...
    doc = ExpectedDoc.load(cases_dir / "c03-zero-conv-campaign" / "expected.yaml")
    promoted = doc.remove_entry("may_find", 0)
    doc.add_entry("must_find", promoted)
    doc.save()
    # ... and forbids a phrase the stored answer of c01 uses.
    doc = ExpectedDoc.load(cases_dir / "c01-tracking-stopped" / "expected.yaml")
    doc.add_entry("must_not_say", {"id": "tracking.double_counting", "evidence": "clicks are flat", "says": ["clicks hold"]})
    doc.save()

    case_set = load_case_set(cases_dir)
    diffs = {d.case_id: d for d in rescore_run(run_dir, case_set)}
    assert len(diffs) == 10
    assert sorted(d.case_id for d in diffs.values() if d.changed) == ["c01-tracking-stopped", "c03-zero-conv-campaign"]
    c03 = diffs["c03-zero-conv-campaign"]
    assert (c03.recall_before, c03.recall_after, c03.recall_delta) == (1.0, 0.5, -0.5)
    assert c03.newly_missed == ["concentration.spend_single_campaign@222"] and c03.newly_found == []
    assert diffs["c01-tracking-stopped"].fabrications_added == ["must_not_say tracking.double_counting (says)"]

    with (results / f"{assistant.PROMPT_VERSION}.csv").open(newline="", encoding="utf-8") as fh:
        rows = {r["case_id"]: r for r in csv.DictReader(fh)}
    assert rows["c03-zero-conv-campaign"]["recall"] == "0.5"
    assert rows["c03-zero-conv-campaign"]["missed_ids"] == "concentration.spend_single_campaign@222"
    manifest = load_run(run_dir).manifest
    assert manifest["case_set_hash"] == case_set.digest()
    assert manifest["summary"]["mean_recall"] == 0.95
    assert manifest["gate"] == {"passed": False, "reasons": ["1 fabrication(s), 0 allowed: c01-tracking-stopped (1)"]}
    assert "rescored_at" in manifest

    # Re-scoring again with nothing edited changes nothing.
    assert not any(d.changed for d in rescore_run(run_dir, case_set))


def test_rescore_keeps_a_case_the_case_set_lost(cases_dir, tmp_path, capsys):
    results = tmp_path / "results"
    run_eval(CorrectAssistant(), cases_dir, results)
    for name in ("snapshot.json", "expected.yaml"):
        (cases_dir / "c10-trap-primary-action" / name).unlink()
    (cases_dir / "c10-trap-primary-action").rmdir()
    diffs = {d.case_id: d for d in rescore_run(results / assistant.PROMPT_VERSION, load_case_set(cases_dir))}
    assert diffs["c10-trap-primary-action"].note == "not in the case set any more: kept as stored"
    assert len(load_run(results / assistant.PROMPT_VERSION).records) == 10


def test_compare_runs_per_case(cases_dir, tmp_path, capsys):
    assert run_eval(CorrectAssistant(made_up=MADE_UP), cases_dir, tmp_path / "before") == 1
    assert run_eval(DropsC01(), cases_dir, tmp_path / "after") == 0  # 9 of 10 recalled: exactly 0.90 passes
    comparison = compare_runs(tmp_path / "before" / assistant.PROMPT_VERSION, tmp_path / "after" / assistant.PROMPT_VERSION)
    changed = {d.case_id: d for d in comparison.changed}
    assert sorted(changed) == ["c01-tracking-stopped", MADE_UP[0]]
    c01 = changed["c01-tracking-stopped"]
    assert (c01.recall_delta, c01.precision_delta) == (-1.0, 0.0)
    assert c01.newly_missed == ["tracking.conversions_stopped@333"]
    assert changed[MADE_UP[0]].fabrications_removed == [f'figure "{MADE_UP[1]}"']
    assert changed[MADE_UP[0]].fabrications_added == []
    assert comparison.mean_recall_delta == -0.1

    text = format_comparison(comparison)
    assert "mean recall -0.100" in text and "fabrications 1 -> 0" in text
    assert "  c01-tracking-stopped: recall -1.000, precision +0.000\n    newly missed: tracking.conversions_stopped@333" in text
    assert f'    fabrications removed: figure "{MADE_UP[1]}"' in text


def test_compare_notes_cases_in_one_run_only(cases_dir, tmp_path, capsys):
    run_eval(CorrectAssistant(), cases_dir, tmp_path / "before")
    (cases_dir / "c10-trap-primary-action" / "expected.yaml").rename(tmp_path / "moved.yaml")
    (cases_dir / "c10-trap-primary-action" / "snapshot.json").unlink()
    (cases_dir / "c10-trap-primary-action").rmdir()
    run_eval(CorrectAssistant(), cases_dir, tmp_path / "after")
    comparison = compare_runs(tmp_path / "before" / assistant.PROMPT_VERSION, tmp_path / "after" / assistant.PROMPT_VERSION)
    [only] = comparison.changed
    assert (only.case_id, only.note) == ("c10-trap-primary-action", f"only in {assistant.PROMPT_VERSION}")
    assert only.recall_after is None and only.newly_missed == []
    # the side without the case has no status: shown like its missing recall, never as Python's None
    assert f"  c10-trap-primary-action: recall n/a, precision n/a, status ok -> n/a (only in {assistant.PROMPT_VERSION})" \
        in format_comparison(comparison)


@pytest.mark.parametrize("edit, field", [
    (lambda m: m.update(status="done"), "/status must be one of 'running', 'complete', 'incomplete', 'cancelled', not 'done'"),
    (lambda m: m["thresholds"].pop("min_mean_recall"), "/thresholds has no 'min_mean_recall'"),
    (lambda m: m["uncertainty"]["recall"].pop("low"), "/uncertainty/recall has no 'low'"),
    (lambda m: m["consistency"].update(flipping_cases=[{"case_id": "c01"}]), "/consistency/flipping_cases/0 has no 'passed'"),
    (lambda m: m["summary"].update(fabrication_cases=[{"case_id": "c01", "fabrication": "two", "items": []}]),
     "/summary/fabrication_cases/0/fabrication must be a whole number, not 'two'"),
    (lambda m: m["gate"].pop("reasons"), "/gate has no 'reasons'"),
    (lambda m: m["missed_by_kind"].update(x={"ids": {}}), "/missed_by_kind/x has no 'cases'"),
    (lambda m: m.update(usage={"input_tokens": "many"}), "/usage/input_tokens must be a whole number, not 'many'"),
])
def test_a_hand_edited_manifest_is_refused_naming_the_file_and_the_field(edit, field, cases_dir, tmp_path, capsys):
    """Every field the summary, the runs list and the stamp check read is checked when the manifest is read:
    a hand edit is a ResultsError naming the file and the field, never a KeyError or TypeError later."""
    results = tmp_path / "results"
    run_eval(CorrectAssistant(), cases_dir, results)
    path = results / assistant.PROMPT_VERSION / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    edit(manifest)
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ResultsError) as refused:
        load_run(path.parent)
    assert str(refused.value) == (f"{path}:1: the run manifest has the wrong shape: {field}; move the folder away "
                                  "and rerun")
    problems: list[str] = []
    assert list_runs(results, problems) == [] and problems == [str(refused.value)]


def test_a_manifest_without_the_later_fields_still_loads(cases_dir, tmp_path, capsys):
    """A manifest written before the statistics, the figures split, roles and run ids reads as it did."""
    from reviewtui.runs.summary import format_summary

    results = tmp_path / "results"
    run_eval(CorrectAssistant(), cases_dir, results)
    path = results / assistant.PROMPT_VERSION / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for key in ("consistency", "uncertainty", "recall_by_case_kind", "recall_by_finding_kind", "results_role",
                "run_id", "answers", "project_cases", "batch", "miss_pattern"):
        manifest.pop(key, None)
    for key in ("figures", "untraceable_cases", "unparseable_answers"):
        manifest["summary"].pop(key)
    manifest["thresholds"].pop("max_unparseable")
    path.write_text(json.dumps(manifest), encoding="utf-8")
    run = load_run(path.parent)
    assert run.exit_code == 0 and run.info.status == "complete"
    assert "gate            PASSED" in format_summary(run.manifest)
