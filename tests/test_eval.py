"""``reviewtui eval`` through its real path: case files on disk, the replay backend reading
stored outputs (or a stub handed to ``main``), results written and read back.

The three deliberately broken assistants of issue 2 item 8 prove the harness
measures something; the rest pins exit codes, bad input and the result files.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from statistics import fmean

import pytest

from reviewtui import assistant
from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case_set
from reviewtui.commands.main import main as cli_main
from reviewtui.commands.eval import main
from reviewtui.runs.session import run_eval
from reviewtui.runs.settings import RunSettings
from tests.stub_backends import (
    FIXTURE_CASES,
    CorrectAssistant,
    EmptyAssistant,
    EverythingAssistant,
    ScriptedBackend,
    TextAssistant,
    copy_fixture_cases,
    finding,
    output_text,
)

REPO = Path(__file__).resolve().parent.parent
VERSION = assistant.PROMPT_VERSION
MADE_UP = ("c04-overspend-disapproved", "$48,213.77")
# What an answer that misses a case reports instead (an empty findings list is unparseable): a kind no
# fixture case expects or rules out, with no figure.
OTHER_FINDING = finding("bidding.learning_limited")


@pytest.fixture(scope="module")
def fixture_set():
    case_set = load_case_set(FIXTURE_CASES)
    assert not case_set.problems
    return case_set


def run_replay(stub: TextAssistant, case_set, tmp_path: Path, *extra: str) -> int:
    replay = stub.write_replay_dir(case_set.cases, tmp_path / "replay")
    return main(["--backend", "replay", "--cases", str(case_set.root), "--replay-dir", str(replay),
                 "--results-dir", str(tmp_path / "results"), *extra])


def replay_home(tmp_path: Path) -> Path:
    """Where ``run_replay`` results go: a replay never writes the assistant's ``results/<version>``."""
    return tmp_path / "results" / "replay" / "replay"


def read_csv(tmp_path: Path, home: Path | None = None) -> tuple[list[str], dict[str, dict[str, str]]]:
    with ((home or replay_home(tmp_path)) / f"{VERSION}.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = {row["case_id"]: row for row in reader}
        return list(reader.fieldnames or []), rows


def read_manifest(tmp_path: Path, home: Path | None = None) -> dict:
    return json.loads(((home or replay_home(tmp_path)) / VERSION / "manifest.json").read_text(encoding="utf-8"))


def without_warning_note(err: str) -> str:
    """stderr without the note on the case set's warnings (the fixture set is not the planned mix)."""
    return "\n".join(l for l in err.splitlines() if not re.match(r"note: \d+ warning\(s\) in the case set", l))


def mean_of(rows: dict[str, dict[str, str]], column: str) -> float:
    return fmean(float(row[column]) for row in rows.values())


# --------------------------------------------------------------------------
# The three broken assistants (and the correct one)
# --------------------------------------------------------------------------


def test_a_empty_findings_fail_the_gate_on_recall(fixture_set, tmp_path, capsys):
    assert run_replay(EmptyAssistant(), fixture_set, tmp_path) == 1
    _, rows = read_csv(tmp_path)
    assert len(rows) == len(fixture_set.cases)
    assert mean_of(rows, "recall") <= 0.05
    manifest = read_manifest(tmp_path)
    assert manifest["gate"]["passed"] is False
    assert any(r.startswith("mean recall 0.000 is below 0.90") for r in manifest["gate"]["reasons"])
    assert "gate            FAILED" in capsys.readouterr().out


@pytest.mark.slow
def test_b_every_id_with_every_scope_has_recall_but_no_precision(fixture_set, tmp_path):
    assert run_replay(EverythingAssistant(), fixture_set, tmp_path) == 1
    _, rows = read_csv(tmp_path)
    assert mean_of(rows, "recall") >= 0.95
    assert mean_of(rows, "precision") <= 0.35
    # the ids it could not know are counted as extra, and must_not_say ids as fabrications
    assert all(row["extra_ids"] for row in rows.values())
    assert read_manifest(tmp_path)["summary"]["fabrications"] > 0


def test_c_correct_findings_plus_one_made_up_dollar_figure_fail_on_fabrication(fixture_set, tmp_path, capsys):
    assert run_replay(CorrectAssistant(made_up=MADE_UP), fixture_set, tmp_path) == 1
    out = capsys.readouterr().out
    _, rows = read_csv(tmp_path)
    assert mean_of(rows, "recall") >= 0.90
    assert rows[MADE_UP[0]]["fabrication"] == "1"
    assert rows[MADE_UP[0]]["fabricated_figures"] == MADE_UP[1]
    assert sum(int(r["fabrication"]) for r in rows.values()) == 1
    gate = read_manifest(tmp_path)["gate"]
    assert gate["passed"] is False
    assert gate["reasons"] == [f"1 fabrication(s), 0 allowed: {MADE_UP[0]} (1)"]
    # the summary names the case and the figure
    assert f'  {MADE_UP[0]}: 1: figure "{MADE_UP[1]}" in finding #1 evidence' in out
    assert "mean recall     1.000" in out


def test_correct_findings_pass_the_gate(fixture_set, tmp_path, capsys):
    """The fixture evidence is grounded: copying it into the answer fabricates nothing."""
    assert run_replay(CorrectAssistant(), fixture_set, tmp_path) == 0
    out = capsys.readouterr().out
    assert "gate            PASSED" in out
    _, rows = read_csv(tmp_path)
    assert {row["status"] for row in rows.values()} == {"ok"}
    assert mean_of(rows, "recall") == 1.0 and mean_of(rows, "precision") == 1.0


# --------------------------------------------------------------------------
# Result files
# --------------------------------------------------------------------------


def test_result_files_are_written_and_read_back(fixture_set, tmp_path):
    assert run_replay(CorrectAssistant(made_up=MADE_UP), fixture_set, tmp_path) == 1
    columns, rows = read_csv(tmp_path)
    assert columns[:5] == ["case_id", "recall", "precision", "fabrication", "missed_ids"]
    assert columns[5:] == ["kind", "status", "extra_ids", "fabricated_figures", "must_not_say_hits", "error", "runs",
                           "repeats_passed", "pass_all", "pass_any", "flip", "found_in",
                           "figures_grounded", "figures_untraceable", "figures_fabricated", "untraceable_figures"]
    assert list(rows) == sorted(c.case_id for c in fixture_set.cases)
    assert rows["c07-clean-steady"]["kind"] == "clean"

    manifest = read_manifest(tmp_path)
    assert manifest["prompt_version"] == VERSION
    assert manifest["prompt_sha256"] == assistant.prompt_sha256()
    assert manifest["case_set_hash"] == fixture_set.digest()
    assert manifest["backend"] == "replay" and manifest["status"] == "complete"
    assert manifest["thresholds"] == {"min_mean_recall": 0.9, "max_fabrications": 0, "max_unparseable": 0}
    assert manifest["summary"]["cases"] == len(fixture_set.cases)

    case_file = replay_home(tmp_path) / VERSION / "cases" / f"{MADE_UP[0]}.json"
    stored = json.loads(case_file.read_text(encoding="utf-8"))
    raw = (tmp_path / "replay" / f"{MADE_UP[0]}.json").read_text(encoding="utf-8")
    assert stored["output"]["raw_text"] == raw
    assert [f["text"] for f in stored["score"]["fabricated_figures"]] == [MADE_UP[1]]


def test_missed_ids_grouped_by_kind_one_finding_missed_everywhere(fixture_set, tmp_path, capsys):
    """Dropping the clean-case finding misses one kind in two cases: listed first, called concentrated."""

    class NoSummary(CorrectAssistant):
        def text_for(self, case):
            doc = json.loads(super().text_for(case))
            kept = [f for f in doc["findings"] if f["id"] != "summary.no_material_issues"]
            return output_text(kept or [OTHER_FINDING])

    assert run_replay(NoSummary(), fixture_set, tmp_path) == 1
    out = capsys.readouterr().out
    manifest = read_manifest(tmp_path)
    assert manifest["missed_by_kind"] == {
        "summary.no_material_issues": {"cases": 2, "ids": {"summary.no_material_issues": ["c07-clean-steady", "c08-clean-flight"]}}
    }
    assert manifest["miss_pattern"]["pattern"] == "concentrated"
    assert "    2 cases  summary.no_material_issues  c07-clean-steady, c08-clean-flight" in out
    assert "pattern: concentrated: summary.no_material_issues missed in 2 cases" in out


def test_missed_ids_grouped_by_kind_many_findings_missed_once(fixture_set, tmp_path, capsys):
    dropped = {"c01-tracking-stopped", "c03-zero-conv-campaign", "c05-duplicate-rows"}

    class DropsThree(CorrectAssistant):
        def text_for(self, case):
            return output_text([OTHER_FINDING]) if case.case_id in dropped else super().text_for(case)

    assert run_replay(DropsThree(), fixture_set, tmp_path) == 1
    out = capsys.readouterr().out
    by_kind = read_manifest(tmp_path)["missed_by_kind"]
    assert {k: v["cases"] for k, v in by_kind.items()} == {
        "data.duplicate_rows": 1, "tracking.conversions_stopped": 1, "waste.zero_conv_campaign": 1}
    assert by_kind["tracking.conversions_stopped"]["ids"] == {"tracking.conversions_stopped@333": ["c01-tracking-stopped"]}
    assert "c01-tracking-stopped (@333)" in out
    assert "pattern: scattered: 3 finding kind(s) missed once each" in out


def test_repeats_average_scores_and_add_fabrications(fixture_set, tmp_path):
    exit_code = run_replay(CorrectAssistant(made_up=MADE_UP), fixture_set, tmp_path, "--repeats", "2")
    assert exit_code == 1
    _, rows = read_csv(tmp_path)
    assert rows[MADE_UP[0]]["runs"] == "2"
    assert rows[MADE_UP[0]]["fabrication"] == "2"
    stored = json.loads((replay_home(tmp_path) / VERSION / "cases" / f"{MADE_UP[0]}.json").read_text(encoding="utf-8"))
    assert len(stored["repeats"]) == 2


# --------------------------------------------------------------------------
# Bad input and exit codes
# --------------------------------------------------------------------------


def test_malformed_snapshot_exits_2_with_file_and_line_and_scores_nothing(tmp_path, capsys):
    cases = copy_fixture_cases(tmp_path / "cases")
    snapshot = cases / "c03-zero-conv-campaign" / "snapshot.json"
    lines = snapshot.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].rstrip(",")  # drop a comma between two keys on line 6
    snapshot.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["--backend", "replay", "--replay-dir", str(tmp_path), "--cases", str(cases),
                 "--results-dir", str(tmp_path / "results")])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{snapshot}:7: malformed JSON" in err
    assert "nothing was scored" in err
    assert not (tmp_path / "results").exists()


def test_malformed_expected_yaml_exits_2_with_file_and_line(tmp_path, capsys):
    cases = copy_fixture_cases(tmp_path / "cases")
    expected = cases / "c09-trap-learning-period" / "expected.yaml"
    text = expected.read_text(encoding="utf-8").replace("  - id: bidding.learning_period@333", "  - id: [bidding.learning_period@333")
    expected.write_text(text, encoding="utf-8")
    code = main(["--backend", "replay", "--replay-dir", str(tmp_path), "--cases", str(cases),
                 "--results-dir", str(tmp_path / "results")])
    assert code == 2
    err = capsys.readouterr().err
    line = text.splitlines().index("  - id: [bidding.learning_period@333") + 1
    assert any(l.startswith(f"{expected}:{line}: malformed YAML") or l.startswith(f"{expected}:{line + 1}: malformed YAML")
               for l in err.splitlines()), err
    assert not (tmp_path / "results").exists()


def test_invalid_case_content_exits_2(tmp_path, capsys):
    cases = copy_fixture_cases(tmp_path / "cases")
    expected = cases / "c01-tracking-stopped" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8").replace("@333", "@999"), encoding="utf-8")
    assert main(["--backend", "replay", "--replay-dir", str(tmp_path), "--cases", str(cases),
                 "--results-dir", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert f"{expected}:6: must_find[0]: scope '999' is not a campaign id" in err


def test_unparseable_output_is_a_row_with_recall_0_and_the_raw_text_kept(fixture_set, tmp_path, capsys):
    not_json = "Here are my findings: the account looks fine."
    wrong_schema = json.dumps({"results": []})

    class Garbled(CorrectAssistant):
        def text_for(self, case):
            return {"c02-brand-lost-is": not_json, "c08-clean-flight": wrong_schema}.get(case.case_id) or super().text_for(case)

    assert run_replay(Garbled(), fixture_set, tmp_path) == 1  # 8 of 10 recalled: 0.8 < 0.9
    out = capsys.readouterr().out
    _, rows = read_csv(tmp_path)
    for case_id in ("c02-brand-lost-is", "c08-clean-flight"):
        assert rows[case_id]["status"] == "unparseable"
        assert rows[case_id]["recall"] == "0"
        assert rows[case_id]["error"].startswith(("not JSON", "not the output schema"))
    stored = json.loads((replay_home(tmp_path) / VERSION / "cases" / "c02-brand-lost-is.json").read_text(encoding="utf-8"))
    assert stored["output"]["raw_text"] == not_json
    assert stored["score"]["status"] == "unparseable"
    assert "unparseable     2" in out and "  c02-brand-lost-is: not JSON" in out
    # unparseable cases are listed on their own, not as missed findings
    assert read_manifest(tmp_path)["missed_by_kind"] == {}


# Each a finding of the correct answer changed one way, in a prose answer and in a declared one
# (every finding with ``figures``): the answer is unparseable, its reason names the finding and the key.
SHAPE_CHANGES = {
    "c01-tracking-stopped": ("prose", "drop", "severity", "lacks 'severity', which the output schema requires"),
    "c02-brand-lost-is": ("prose", "add", "confidence", "has 'confidence', which the output schema does not have"),
    "c03-zero-conv-campaign": ("declared", "drop", "severity", "lacks 'severity', which the output schema requires"),
    "c05-duplicate-rows": ("declared", "add", "notes", "has 'notes', which the output schema does not have"),
}


def test_a_finding_without_severity_or_with_a_key_the_schema_lacks_is_unparseable(fixture_set, tmp_path, capsys):
    """Never read with a default severity or the key ignored: the row says which finding and which key."""

    class Reshaped(CorrectAssistant):
        def text_for(self, case):
            findings = json.loads(super().text_for(case))["findings"]
            change = SHAPE_CHANGES.get(case.case_id)
            if change is None:
                return output_text(findings)
            form, how, key, _ = change
            if form == "declared":
                findings = [{**f, "figures": []} for f in findings]
            last = findings[-1]
            if how == "drop":
                del last[key]
            else:
                last[key] = "high"
            return output_text(findings)

    assert {c.case_id for c in fixture_set.cases} >= set(SHAPE_CHANGES)
    assert run_replay(Reshaped(), fixture_set, tmp_path) == 1
    capsys.readouterr()
    _, rows = read_csv(tmp_path)
    for case_id, (_, _, _, says) in SHAPE_CHANGES.items():
        case = next(c for c in fixture_set.cases if c.case_id == case_id)
        last = case.must_find[-1]
        assert rows[case_id]["status"] == "unparseable" and rows[case_id]["recall"] == "0", case_id
        assert rows[case_id]["error"].startswith(f"not the output schema: finding {len(case.must_find)} ({last.kind}) "
                                                 f"{says}"), case_id
    # the other cases are the correct answer, read as before
    assert all(row["status"] == "ok" for case_id, row in rows.items() if case_id not in SHAPE_CHANGES)


def test_output_not_obtained_makes_the_run_incomplete_exit_3(fixture_set, tmp_path, capsys):
    failing = CaseOutput("c05-duplicate-rows", None, error="API overloaded (HTTP 529)")
    stub = ScriptedBackend({"c05-duplicate-rows": failing, "c06-micros-not-converted": RuntimeError("boom")})
    code = main(["--cases", str(fixture_set.root), "--results-dir", str(tmp_path / "results")], backend=stub)
    assert code == 3
    out = capsys.readouterr().out
    assert "  c05-duplicate-rows: API overloaded (HTTP 529)" in out
    assert "  c06-micros-not-converted: backend raised RuntimeError: boom" in out
    assert "gate            NO VERDICT (run incomplete)" in out
    _, rows = read_csv(tmp_path, tmp_path / "results")
    assert rows["c05-duplicate-rows"]["status"] == "error" and len(rows) == len(fixture_set.cases)
    manifest = read_manifest(tmp_path, tmp_path / "results")
    assert manifest["status"] == "incomplete" and manifest["gate"]["passed"] is None
    # the means still describe the cases that were scored
    assert manifest["summary"]["scored"] == len(fixture_set.cases) - 2


def test_keyboard_interrupt_keeps_what_finished_and_exits_3(fixture_set, tmp_path, capsys):
    stub = ScriptedBackend({"c04-overspend-disapproved": KeyboardInterrupt()})
    code = main(["--cases", str(fixture_set.root), "--results-dir", str(tmp_path / "results"), "--concurrency", "1"],
                backend=stub)
    assert code == 3
    captured = capsys.readouterr()
    assert "cancelled: what finished is kept" in captured.err
    _, rows = read_csv(tmp_path, tmp_path / "results")
    assert sorted(rows) == ["c01-tracking-stopped", "c02-brand-lost-is", "c03-zero-conv-campaign"]
    manifest = read_manifest(tmp_path, tmp_path / "results")
    assert manifest["status"] == "cancelled" and manifest["gate"]["passed"] is None
    assert "c04-overspend-disapproved" in manifest["summary"]["not_run_cases"]
    assert sorted(p.stem for p in (tmp_path / "results" / VERSION / "cases").glob("*.json")) == sorted(rows)


@pytest.mark.slow
def test_sigint_in_a_real_process_cancels_and_exits_3(tmp_path):
    """Ctrl-C: a real SIGINT while two cases are done and the third hangs."""
    script = textwrap.dedent(f"""
        import asyncio, os, signal, sys
        from reviewtui.backends.base import Backend, CaseOutput
        from reviewtui.commands.eval import main
        from reviewtui.runs.session import run_eval

        class Slow(Backend):
            name = "stub-slow"
            done = 0
            async def run(self, case, *, repeat=0):
                if self.done == 2:
                    os.kill(os.getpid(), signal.SIGINT)
                    await asyncio.sleep(3600)
                self.done += 1
                return CaseOutput(case.case_id, '{{"findings": []}}')

        sys.exit(main(["--cases", {str(FIXTURE_CASES)!r}, "--results-dir", {str(tmp_path / "results")!r},
                       "--concurrency", "1"], backend=Slow()))
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    _, rows = read_csv(tmp_path, tmp_path / "results")
    assert sorted(rows) == ["c01-tracking-stopped", "c02-brand-lost-is"]
    assert read_manifest(tmp_path, tmp_path / "results")["status"] == "cancelled"


def test_prompt_hash_guard_refuses_results_of_other_prompt_text(fixture_set, tmp_path, monkeypatch, capsys):
    assert run_replay(CorrectAssistant(), fixture_set, tmp_path) == 0
    csv_before = (replay_home(tmp_path) / f"{VERSION}.csv").read_bytes()
    manifest_before = (replay_home(tmp_path) / VERSION / "manifest.json").read_bytes()
    capsys.readouterr()

    monkeypatch.setattr(assistant, "prompt_sha256", lambda *a, **k: "f" * 64)  # the prompt text was edited
    assert run_replay(EmptyAssistant(), fixture_set, tmp_path) == 2
    err = without_warning_note(capsys.readouterr().err)
    assert "bump PROMPT_VERSION in reviewtui/assistant.py" in err
    assert len(err.strip().splitlines()) == 1
    assert (replay_home(tmp_path) / f"{VERSION}.csv").read_bytes() == csv_before
    assert (replay_home(tmp_path) / VERSION / "manifest.json").read_bytes() == manifest_before


def test_same_prompt_rerun_replaces_the_results(fixture_set, tmp_path, capsys):
    assert run_replay(CorrectAssistant(), fixture_set, tmp_path) == 0
    assert run_replay(EmptyAssistant(), fixture_set, tmp_path) == 1
    _, rows = read_csv(tmp_path)
    assert mean_of(rows, "recall") == 0.0


def test_replacing_results_of_another_backend_is_noted(fixture_set, tmp_path, capsys):
    results = tmp_path / "results"
    assert main(["--cases", str(fixture_set.root), "--results-dir", str(results)], backend=CorrectAssistant()) == 0
    capsys.readouterr()
    assert main(["--cases", str(fixture_set.root), "--results-dir", str(results)], backend=ScriptedBackend({})) == 1
    assert f"note: replacing the {VERSION} results of backend stub-correct (model -, " in capsys.readouterr().err
    assert read_manifest(tmp_path, results)["backend"] == "stub-scripted"


def test_a_replay_never_replaces_or_passes_for_the_assistants_results(fixture_set, tmp_path, capsys):
    results = tmp_path / "results"
    assert main(["--cases", str(fixture_set.root), "--results-dir", str(results)], backend=EmptyAssistant()) == 1
    assistant_csv = (results / f"{VERSION}.csv").read_bytes()
    assistant_manifest = (results / VERSION / "manifest.json").read_bytes()
    capsys.readouterr()

    assert run_replay(CorrectAssistant(), fixture_set, tmp_path) == 0
    out = capsys.readouterr().out
    assert (results / f"{VERSION}.csv").read_bytes() == assistant_csv
    assert (results / VERSION / "manifest.json").read_bytes() == assistant_manifest
    assert out.splitlines()[1] == f"results of the replay of {tmp_path / 'replay'} (not the assistant's results)"
    assert f"results: {replay_home(tmp_path) / (VERSION + '.csv')}" in out
    assert read_manifest(tmp_path)["results_role"] == "replay"
    assert read_manifest(tmp_path, results)["results_role"] == "assistant"


def test_results_dir_that_cannot_be_written_exits_2(fixture_set, tmp_path, capsys):
    blocker = tmp_path / "results"
    blocker.write_text("a file where the results folder should be", encoding="utf-8")
    replay = EmptyAssistant().write_replay_dir(fixture_set.cases, tmp_path / "replay")
    code = main(["--backend", "replay", "--cases", str(fixture_set.root), "--replay-dir", str(replay),
                 "--results-dir", str(blocker)])
    assert code == 2
    err = without_warning_note(capsys.readouterr().err).strip()
    assert err.startswith(f"reviewtui eval: cannot write the results under {blocker}:")
    assert "\n" not in err


def test_unknown_backend_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["--backend", "gpt", "--cases", str(FIXTURE_CASES), "--results-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "reviewtui eval: unknown backend 'gpt'; use one of claude, rules, replay"
    assert not (tmp_path / "r").exists()


def test_missing_key_for_claude_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["--backend", "claude", "--cases", str(FIXTURE_CASES), "--results-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert "ANTHROPIC_API_KEY" in err and "\n" not in err


def test_bad_flag_value_exits_2(capsys):
    assert main(["--concurrency", "0"]) == 2
    assert "--concurrency: 0 must be at least 1" in capsys.readouterr().err


def test_default_backend_without_a_key_is_rules_and_the_first_line_says_why(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    copy_fixture_cases(tmp_path / "cases")  # the default --cases is ./cases
    code = main([])
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "no ANTHROPIC_API_KEY: running the built-in reference auditor (rules backend)"
    assert code == 0, captured.err  # the reference auditor passes the fixture set's gate
    # the reference auditor's results go under results/reference, never the assistant's place
    assert (tmp_path / "results" / "reference" / f"{VERSION}.csv").is_file()
    assert not (tmp_path / "results" / f"{VERSION}.csv").exists()
    assert captured.out.splitlines()[1] == "results of the reference auditor (not the assistant's results)"


def test_replay_without_a_stored_output_is_an_error_row(fixture_set, tmp_path, capsys):
    replay = CorrectAssistant().write_replay_dir(fixture_set.cases, tmp_path / "replay")
    (replay / "c10-trap-primary-action.json").unlink()
    code = main(["--backend", "replay", "--cases", str(fixture_set.root), "--replay-dir", str(replay),
                 "--results-dir", str(tmp_path / "results")])
    assert code == 3
    assert "  c10-trap-primary-action: no stored output" in capsys.readouterr().out


def test_the_cli_entry_dispatches_eval(fixture_set, tmp_path, capsys):
    replay = EmptyAssistant().write_replay_dir(fixture_set.cases, tmp_path / "replay")
    code = cli_main(["eval", "--backend", "replay", "--cases", str(fixture_set.root), "--replay-dir", str(replay),
                     "--results-dir", str(tmp_path / "results")])
    assert code == 1
    assert (replay_home(tmp_path) / f"{VERSION}.csv").is_file()


@pytest.mark.slow
def test_python_dash_m_reviewtui_eval(fixture_set, tmp_path):
    replay = CorrectAssistant().write_replay_dir(fixture_set.cases, tmp_path / "replay")
    proc = subprocess.run([sys.executable, "-m", "reviewtui.commands.eval", "--backend", "replay", "--cases", str(fixture_set.root),
                           "--replay-dir", str(replay), "--results-dir", str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "backend replay (--backend replay): running stored raw outputs"
    assert re.search(r"^\[\d+/10\] c04-overspend-disapproved: recall 1.00, precision 1.00, fabrications 0$",
                     proc.stderr, re.M), proc.stderr  # progress on stderr, with each case's score
    assert "gate            PASSED" in proc.stdout and "[1/10]" not in proc.stdout


def test_scoped_answers_match_only_their_scope(fixture_set, tmp_path):
    """A finding with the wrong campaign does not recall a scoped must_find."""

    class WrongScope(CorrectAssistant):
        def text_for(self, case):
            if case.case_id != "c01-tracking-stopped":
                return super().text_for(case)
            return output_text([finding("tracking.conversions_stopped", "111")])

    run_replay(WrongScope(), fixture_set, tmp_path)
    _, rows = read_csv(tmp_path)
    assert rows["c01-tracking-stopped"]["recall"] == "0"
    assert rows["c01-tracking-stopped"]["missed_ids"] == "tracking.conversions_stopped@333"
    assert rows["c01-tracking-stopped"]["extra_ids"] == "tracking.conversions_stopped@111"


async def test_run_eval_for_the_app_reports_progress_and_records(fixture_set, tmp_path):
    progress, records = [], []
    run = await run_eval(fixture_set, CorrectAssistant(made_up=MADE_UP),
                         RunSettings(results_dir=tmp_path / "results", concurrency=3),
                         on_progress=progress.append, on_record=records.append)
    assert run.exit_code == 1 and run.manifest["status"] == "complete"
    assert sorted(r.case_id for r in records) == sorted(run.records) == sorted(c.case_id for c in fixture_set.cases)
    assert [p.done for p in progress] == list(range(1, 11))
    assert read_manifest(tmp_path, tmp_path / "results")["gate"]["passed"] is False


async def test_run_eval_cancelled_before_it_starts_gives_no_verdict(fixture_set, tmp_path):
    cancel = asyncio.Event()
    cancel.set()
    run = await run_eval(fixture_set, EmptyAssistant(), RunSettings(results_dir=tmp_path / "results"), cancel=cancel)
    assert run.exit_code == 3 and run.manifest["status"] == "cancelled" and run.records == {}
    assert read_manifest(tmp_path, tmp_path / "results")["summary"]["not_run"] == len(fixture_set.cases)


# --------------------------------------------------------------------------
# One validation: eval stops on whatever check fails
# --------------------------------------------------------------------------


def _copy_shipped(tmp_path: Path, *, writeup_snapshots: bool) -> Path:
    """The shipped cases and write-ups copied to ``tmp_path``, optionally without the write-ups' snapshots."""
    import shutil
    shutil.copytree(REPO / "cases", tmp_path / "cases")
    shutil.copytree(REPO / "writeups", tmp_path / "writeups",
                    ignore=None if writeup_snapshots else shutil.ignore_patterns("*.snapshot.json"))
    return tmp_path / "cases"


def _problem_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^\S+:\d+: ", line)]


@pytest.mark.slow
def test_eval_stops_with_exit_2_and_checks_messages_when_check_fails(tmp_path, capsys):
    cases = _copy_shipped(tmp_path, writeup_snapshots=False)
    assert cli_main(["check", "--cases", str(cases)]) == 2
    checked = capsys.readouterr().out
    check_problems = _problem_lines(checked)
    assert any("has no snapshot beside it" in line for line in check_problems), checked

    code = cli_main(["eval", "--backend", "rules", "--cases", str(cases), "--results-dir", str(tmp_path / "results")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert _problem_lines(err) == check_problems  # the same messages, in the same order
    assert checked.splitlines()[-1] in err.splitlines()  # and the same count line
    assert "nothing was scored" in err
    assert not (tmp_path / "results").exists()


def test_eval_notes_the_same_warnings_check_lists_and_runs(tmp_path, capsys):
    import shutil
    (tmp_path / "cases").mkdir()
    shutil.copytree(REPO / "cases" / "c04-furniture-store", tmp_path / "cases" / "c04-furniture-store")
    shutil.copytree(REPO / "writeups", tmp_path / "writeups")
    cases = tmp_path / "cases"
    assert cli_main(["check", "--cases", str(cases)]) == 0
    warnings = _problem_lines(capsys.readouterr().out)
    assert warnings and any("case mix" in line for line in warnings)  # a scratch set: the mix is a warning

    code = cli_main(["eval", "--backend", "rules", "--cases", str(cases), "--results-dir", str(tmp_path / "results")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"note: {len(warnings)} warning(s) in the case set; `reviewtui check` lists them" in err
    assert (tmp_path / "results" / "reference" / f"{VERSION}.csv").is_file()
