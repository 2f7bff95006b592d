"""``reviewtui compare A B`` end to end: two real runs written by ``reviewtui eval`` (replay), compared
from their folders and from their CSVs, text and JSON, with figures computed here by hand."""

from __future__ import annotations

import csv
import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.runs import inference
from reviewtui.caseset.cases import load_case_set
from reviewtui.commands.main import main as cli_main
from reviewtui.commands.compare import main as compare_main
from reviewtui.commands.eval import main as eval_main
from reviewtui.taxonomy import split_id
from tests.stub_backends import EMPTY_OUTPUT, FIXTURE_CASES, CorrectAssistant

REPO = Path(__file__).resolve().parent.parent
VERSION = assistant.PROMPT_VERSION
MADE_UP = ("c04-overspend-disapproved", "$48,213.77")
MISSED_IN_B = ("c01-tracking-stopped", "c03-zero-conv-campaign", "c05-duplicate-rows")
MISSED_IN_A = "c07-clean-steady"
ONLY_IN_A = "c10-trap-primary-action"


class Answers(CorrectAssistant):
    """Correct, except the cases listed answer nothing."""

    def __init__(self, empty=(), made_up=None):
        super().__init__(made_up=made_up)
        self.empty = set(empty)

    def text_for(self, case):
        return EMPTY_OUTPUT if case.case_id in self.empty else super().text_for(case)


def eval_run(tmp_path: Path, name: str, stub, cases: Path) -> Path:
    case_set = load_case_set(cases)
    replay = stub.write_replay_dir(case_set.cases, tmp_path / f"replay-{name}")
    eval_main(["--backend", "replay", "--replay-dir", str(replay), "--cases", str(cases),
               "--results-dir", str(tmp_path / name)])
    return tmp_path / name / "replay" / replay.name / VERSION


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("compare")
    run_a = eval_run(tmp_path, "a", Answers(empty=[MISSED_IN_A]), FIXTURE_CASES)
    cases_b = tmp_path / "cases-b"
    shutil.copytree(FIXTURE_CASES, cases_b)
    shutil.rmtree(cases_b / ONLY_IN_A)
    run_b = eval_run(tmp_path, "b", Answers(empty=MISSED_IN_B, made_up=MADE_UP), cases_b)
    return run_a, run_b


def csv_rows(run_dir: Path) -> dict[str, dict[str, str]]:
    with (run_dir.parent / f"{run_dir.name}.csv").open(newline="", encoding="utf-8") as fh:
        return {row["case_id"]: row for row in csv.DictReader(fh)}


def exact_two_sided(k: int, n: int) -> float:
    """The binomial test by hand: sum of every outcome at most as likely as k, p = 1/2."""
    if n == 0:
        return 1.0
    seen = math.comb(n, k)
    return min(1.0, sum(math.comb(n, i) for i in range(n + 1) if math.comb(n, i) <= seen) / 2**n)


def run_json(capsys, *args: str) -> dict:
    assert compare_main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_compare_two_runs_with_known_differences(two_runs, capsys):
    run_a, run_b = two_runs
    rows_a, rows_b = csv_rows(run_a), csv_rows(run_b)
    paired = sorted(set(rows_a) & set(rows_b))
    deltas = [float(rows_b[c]["recall"]) - float(rows_a[c]["recall"]) for c in paired]
    rng = random.Random(inference.DEFAULT_SEED)
    means = sorted(sum(rng.choices(deltas, k=len(deltas))) / len(deltas) for _ in range(inference.DEFAULT_RESAMPLES))

    result = run_json(capsys, str(run_a), str(run_b))
    assert result["paired_cases"] == paired and result["only_in_a"] == [ONLY_IN_A] and result["only_in_b"] == []
    delta = result["recall"]["delta"]
    assert delta["mean"] == pytest.approx(sum(deltas) / len(deltas))
    assert (delta["low"], delta["high"]) == (pytest.approx(means[250]), pytest.approx(means[9749]))
    # Verdicts: three cases lose every id and c04 gains a fabrication (worse: 4); c07 now answers (better: 1).
    assert result["sign_test"]["worse"] == sorted([*MISSED_IN_B, MADE_UP[0]])
    assert result["sign_test"]["better"] == [MISSED_IN_A]
    assert result["sign_test"]["p"] == pytest.approx(2 * (1 + 5) / 2**5)  # 0.375
    assert result["fabrications"] == {"added": 1, "removed": 0}

    cases = {c.case_id: c for c in load_case_set(FIXTURE_CASES).cases}
    lost: dict[str, int] = {}
    gained: dict[str, int] = {}
    for case_id in MISSED_IN_B:
        for entry in cases[case_id].must_find:
            lost[split_id(entry.id)[0]] = lost.get(split_id(entry.id)[0], 0) + 1
    for entry in cases[MISSED_IN_A].must_find:
        gained[split_id(entry.id)[0]] = gained.get(split_id(entry.id)[0], 0) + 1
    kinds = {k["kind"]: k for k in result["finding_kinds"]}
    all_kinds = {split_id(e.id)[0] for c in paired for e in cases[c].must_find}
    assert set(kinds) == all_kinds
    for kind in all_kinds:
        b, c = lost.get(kind, 0), gained.get(kind, 0)
        assert (kinds[kind]["lost"], kinds[kind]["gained"]) == (b, c), kind
        assert kinds[kind]["p"] == pytest.approx(exact_two_sided(b, b + c)), kind
    by_case = {c["case_id"]: c for c in result["cases"]}
    assert by_case[MISSED_IN_B[0]]["newly_missed"] == sorted(e.id for e in cases[MISSED_IN_B[0]].must_find)
    assert by_case[MISSED_IN_A]["newly_found"] == sorted(e.id for e in cases[MISSED_IN_A].must_find)
    assert by_case[MADE_UP[0]]["fabrications_added"] == [f'figure "{MADE_UP[1]}"']
    assert by_case[ONLY_IN_A]["note"] == f"only in {VERSION}"
    assert result["regression"]["found"] is True


def test_the_csvs_give_the_same_figures_as_the_folders(two_runs, capsys):
    run_a, run_b = two_runs
    from_folders = run_json(capsys, str(run_a), str(run_b))
    from_csvs = run_json(capsys, str(run_a.parent / f"{VERSION}.csv"), str(run_b.parent / f"{VERSION}.csv"))
    for key in ("paired_cases", "only_in_a", "recall", "precision", "sign_test", "finding_kinds", "fabrications", "regression"):
        assert from_csvs[key] == from_folders[key], key


def test_text_output_and_fail_on_regression(two_runs, capsys):
    run_a, run_b = two_runs
    assert compare_main([str(run_a), str(run_b)]) == 0  # without the flag a regression is reported, not failed
    out = capsys.readouterr().out
    assert "exact sign test p = 0.375" in out
    assert f"only in {VERSION}: {ONLY_IN_A}" in out
    assert "fabrications    1 added, 0 removed" in out
    assert f"  - 1 fabrication(s) in B that A did not have: {MADE_UP[0]}" in out
    # 3 of 9 cases dropped, 1 rose: the recall interval straddles zero, so that alone is no regression
    assert "mean recall dropped" not in out
    assert compare_main([str(run_a), str(run_b), "--fail-on-regression"]) == 1
    capsys.readouterr()
    # B -> A: recall rises, no fabrication appears: no regression.
    assert compare_main([str(run_b), str(run_a), "--fail-on-regression"]) == 0
    assert "regression      none" in capsys.readouterr().out


def test_a_run_compared_with_itself_shows_no_change_and_p_1(two_runs, capsys):
    run_a, _ = two_runs
    result = run_json(capsys, str(run_a), str(run_a.parent / f"{VERSION}.csv"))
    assert result["recall"]["delta"] == {"mean": 0.0, "low": 0.0, "high": 0.0}
    assert result["sign_test"] == {"better": [], "worse": [], "p": 1.0}
    assert all(k["p"] == 1.0 and k["p_adjusted"] == 1.0 for k in result["finding_kinds"])
    assert not any(c["changed"] for c in result["cases"])
    assert result["regression"] == {"found": False, "reasons": []}


@pytest.mark.slow
def test_json_is_read_by_a_script_through_the_real_command(two_runs):
    run_a, run_b = two_runs
    proc = subprocess.run([sys.executable, "-m", "reviewtui", "compare", str(run_a), str(run_b), "--format", "json",
                           "--fail-on-regression"], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["sign_test"]["p"] == pytest.approx(0.375)


def test_the_cli_entry_dispatches_compare_and_bad_input_exits_2(two_runs, tmp_path, capsys):
    run_a, _ = two_runs
    assert cli_main(["compare", str(run_a), str(run_a)]) == 0
    capsys.readouterr()
    assert compare_main([str(tmp_path / "nothing"), str(run_a)]) == 2
    assert f"{tmp_path / 'nothing'}: no run folder or results CSV there" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,recall,precision,fabrication,missed_ids\nc01,high,1,0,\n", encoding="utf-8")
    assert compare_main([str(bad), str(run_a)]) == 2
    assert f"{bad}:2: column recall is 'high', not a number" in capsys.readouterr().err
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("id,score\n", encoding="utf-8")
    assert compare_main([str(wrong), str(run_a)]) == 2
    assert f"{wrong}:1: not a results CSV" in capsys.readouterr().err
    assert compare_main([str(run_a), str(run_a), "--resamples", "10"]) == 2


@pytest.mark.slow
def test_a_bare_version_is_looked_up_under_results_dir(two_runs, capsys):
    run_a, _ = two_runs
    assert compare_main([VERSION, f"{VERSION}.csv", "--results-dir", str(run_a.parent)]) == 0
    assert "regression      none" in capsys.readouterr().out


@pytest.mark.slow
def test_a_recall_drop_whose_interval_is_below_zero_is_a_regression(tmp_path, capsys):
    dropped = ["c01-tracking-stopped", "c02-brand-lost-is", "c03-zero-conv-campaign", "c05-duplicate-rows",
               "c06-micros-not-converted", "c09-trap-learning-period"]
    run_a = eval_run(tmp_path, "a", Answers(), FIXTURE_CASES)
    run_b = eval_run(tmp_path, "b", Answers(empty=dropped), FIXTURE_CASES)
    capsys.readouterr()
    assert compare_main([str(run_a), str(run_b), "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    # six of ten cases fall to 0 and none rises: every resample that picks one of them is below zero,
    # and one that picks none of the six has chance 0.4^10, about 1 in 10,000
    assert "regression      YES\n  - mean recall dropped by 0.600; the 95% interval" in out


def test_must_not_say_hits_and_unparseable_answers_read_the_same_from_csv(tmp_path, monkeypatch, capsys):
    from reviewtui.runs.case_records import write_csv
    from reviewtui.runs.stored_runs import load_run
    from tests.app.review_fixture import review_repo

    root = review_repo(tmp_path, monkeypatch)  # audit-t1 has a must_not_say hit, audit-t2 an unparseable answer
    for version in ("audit-t1", "audit-t2"):
        run = load_run(root / "results" / version)
        write_csv(run.paths, run.records.values())
    folders = run_json(capsys, "results/audit-t1", "results/audit-t2")
    csvs = run_json(capsys, "results/audit-t1.csv", "results/audit-t2.csv")
    assert folders["same_case_set"] is True and csvs["same_case_set"] is None  # a CSV does not record its case set
    for key in ("recall", "precision", "sign_test", "fabrications"):
        assert csvs[key] == folders[key], key
    removed = {c["case_id"]: c["fabrications_removed"] for c in csvs["cases"] if c["fabrications_removed"]}
    assert removed == {c["case_id"]: c["fabrications_removed"] for c in folders["cases"] if c["fabrications_removed"]}
    assert any(label.startswith("must_not_say ") for labels in removed.values() for label in labels)
