"""The rules backend: created by name, scored like a model by ``reviewtui eval``, thresholds overridable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from reviewtui.assistant import parse_output
from reviewtui.domain.thresholds import OVERRIDE_ENV
from reviewtui.backends import BackendUsageError, create_backend
from reviewtui.caseset.cases import load_case
from reviewtui.commands.eval import main as eval_main
from tests.fixtures.auditor.build import PLANTED
from tests.fixtures.auditor.helpers import fixture

# A small case set from the fixtures: (case kind, fixture, its must_find, its must_not_say)
CASES = [
    ("ordinary", "stop_account"),
    ("ordinary", "wasted_campaign"),
    ("ordinary", "overspend"),
    ("broken_data", "duplicates"),
    ("broken_data", "micros"),
    ("clean", "clean"),
    ("trap", "budget_raise"),
    ("trap", "lag_trap_long"),
]


def write_case(root: Path, kind: str, name: str) -> Path:
    must, must_not = PLANTED[name]
    case_id = "c-" + name.replace("_", "-")
    folder = root / case_id
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_text(json.dumps(fixture(name), indent=1), encoding="utf-8")
    lines = [f"case: {case_id}", f"kind: {kind}", "must_find:"]
    lines += [f"  - id: {i}\n    evidence: planted in the fixture" for i in must]
    if must_not:
        lines.append("must_not_say:")
        lines += [f"  - id: {i}\n    evidence: the trap of the fixture" for i in must_not if i not in must]
    (folder / "expected.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_created_by_name_and_described():
    backend = create_backend("rules")
    assert backend.name == "rules"
    assert backend.model.startswith("reference-auditor-")
    described = backend.describe()
    assert described["backend"] == "rules" and len(described["thresholds_sha256"]) == 64


def test_runs_a_case_from_disk(tmp_path):
    folder = write_case(tmp_path, "ordinary", "stop_account")
    output = asyncio.run(create_backend("rules").run(load_case(folder)))
    assert output.error is None and output.model == create_backend("rules").model
    assert [f.id for f in parse_output(output.raw_text)] == ["tracking.conversions_stopped"]


def test_a_snapshot_that_cannot_be_read_is_a_case_error(tmp_path):
    folder = write_case(tmp_path, "clean", "clean")
    case = load_case(folder)
    (folder / "snapshot.json").write_text("{ not json", encoding="utf-8")
    case.snapshot = None
    output = asyncio.run(create_backend("rules").run(case))
    assert output.raw_text is None and "malformed JSON" in output.error


def test_thresholds_override_from_the_environment(tmp_path, monkeypatch):
    folder = write_case(tmp_path, "ordinary", "overspend")
    override = tmp_path / "thresholds.yaml"
    override.write_text("pacing.overspend:\n  projection_share_of_tolerance: 9.0\n", encoding="utf-8")
    monkeypatch.setenv(OVERRIDE_ENV, str(override))
    backend = create_backend("rules")
    output = asyncio.run(backend.run(load_case(folder)))
    assert [f.id for f in parse_output(output.raw_text)] == ["summary.no_material_issues"]
    assert backend.describe()["thresholds"] == str(override)


def test_a_bad_override_is_a_usage_error_naming_the_file(tmp_path, monkeypatch):
    override = tmp_path / "thresholds.yaml"
    override.write_text("pacing.overspend:\n  tolerence: 0.2\n", encoding="utf-8")
    monkeypatch.setenv(OVERRIDE_ENV, str(override))
    with pytest.raises(BackendUsageError, match=r"thresholds.yaml: pacing.overspend has no threshold 'tolerence' \(known: "):
        create_backend("rules")
    override.write_text("pacing.sideways:\n  x: 1\n", encoding="utf-8")
    with pytest.raises(BackendUsageError, match="'pacing.sideways' is not a taxonomy id"):
        create_backend("rules")


def test_eval_without_a_key_runs_the_auditor_and_passes_on_the_fixture_cases(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    cases = tmp_path / "cases"
    for kind, name in CASES:
        write_case(cases, kind, name)
    code = eval_main(["--cases", str(cases), "--results-dir", str(tmp_path / "results")])
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("no ANTHROPIC_API_KEY: running the built-in reference auditor")
    assert code == 0, out
    [manifest_path] = (tmp_path / "results" / "reference").glob("*/manifest.json")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert manifest["backend"] == "rules" and manifest["gate"]["passed"] is True
    assert manifest["summary"]["mean_recall"] == 1.0 and manifest["summary"]["fabrications"] == 0


def test_log_levels_warn_on_worked_around_data_and_inform_on_what_was_not_assessed(tmp_path, caplog):
    """A value that is not a number is a warning; a section that is simply absent is only information."""
    case_dir = write_case(tmp_path, "ordinary", "clean")
    data = json.loads((case_dir / "snapshot.json").read_text())
    data["daily"][0]["date"] = "March 1st"
    data.pop("search_terms", None)
    (case_dir / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    backend = create_backend("rules")
    with caplog.at_level("INFO", logger="reviewtui.auditor"):
        asyncio.run(backend.run(load_case(case_dir)))
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    infos = [r.getMessage() for r in caplog.records if r.levelname == "INFO"]
    assert warnings and all(m.startswith("c-clean: ") for m in warnings)
    assert not any("not assessed" in m for m in warnings), warnings
    assert any("not assessed" in m for m in infos), infos


def test_eval_audits_each_snapshot_once(tmp_path, monkeypatch):
    """The validation's support check and the rules backend read one audit of each snapshot: the second
    audit of a 100,000-row account cost seconds."""
    import sys

    from reviewtui.auditor import support

    audit_module = sys.modules["reviewtui.auditor.audit"]
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))  # nothing audited before
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    audited: list[int] = []
    real = audit_module._audit
    monkeypatch.setattr(audit_module, "_audit", lambda *args: audited.append(1) or real(*args))
    cases = tmp_path / "cases"
    for kind, name in CASES[:3]:
        write_case(cases, kind, name)
    assert eval_main(["--backend", "rules", "--cases", str(cases), "--results-dir", str(tmp_path / "results")]) == 0
    assert len(audited) == 3


def test_eval_under_a_thresholds_override_audits_apart_from_the_check(tmp_path, monkeypatch):
    """The support check reads taxonomy.yaml's thresholds; the rules backend under an override must not take
    the check's audit for its own."""
    from reviewtui.auditor import support

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    cases = tmp_path / "cases"
    write_case(cases, "ordinary", "overspend")
    override = tmp_path / "thresholds.yaml"
    override.write_text("pacing.overspend:\n  projection_share_of_tolerance: 9.0\n", encoding="utf-8")
    monkeypatch.setenv(OVERRIDE_ENV, str(override))
    eval_main(["--backend", "rules", "--cases", str(cases), "--results-dir", str(tmp_path / "results")])
    [record] = (tmp_path / "results" / "reference").glob("*/cases/c-overspend.json")
    answer = json.loads(record.read_text(encoding="utf-8"))["output"]["raw_text"]
    assert [f.id for f in parse_output(answer)] == ["summary.no_material_issues"]


def test_a_rerun_reads_the_rules_answer_and_the_support_warnings_without_the_audit(tmp_path, monkeypatch, capsys):
    """A warm rerun of the check and the eval reads the support warnings and the rules backend's answer kept
    on disk, never the audit; the same output and the same records as the first run."""
    from reviewtui.auditor import support
    from reviewtui.commands.check import main as check_main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    cases = tmp_path / "cases"
    for kind, name in CASES[:3]:
        write_case(cases, kind, name)

    def run(results: str) -> tuple[str, dict[str, str]]:
        check_main(["--cases", str(cases)])
        eval_main(["--backend", "rules", "--cases", str(cases), "--results-dir", str(tmp_path / results)])
        out = capsys.readouterr().out.replace(results, "RESULTS")
        records = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / results).glob("*/*/cases/*.json")}
        return out, records

    first = run("results-a")
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())  # a new process
    monkeypatch.setattr(support.AuditCache, "get", lambda *a, **k: (_ for _ in ()).throw(AssertionError("audit read")))
    second = run("results-b")
    assert second[0].splitlines() == first[0].splitlines()
    assert second[1] == first[1] and len(first[1]) == 3


def test_the_support_warnings_follow_the_entries_and_the_rules_answer_the_thresholds(tmp_path, monkeypatch):
    """The kept support warnings are keyed by the entries checked (a case edited in the app, not saved, is
    checked again) and the kept rules answer by the thresholds in force."""
    from reviewtui.auditor import support
    from reviewtui.domain.thresholds import Thresholds

    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "disk-cache"))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    case = load_case(write_case(tmp_path / "cases", "trap", "overspend"))
    assert support._case_support_warnings(case) == []
    entry = case.must_find[0]
    entry.id, entry.line = "summary.no_material_issues", 9
    assert [line for line, _ in support._case_support_warnings(case)] == [9]

    default = support.audit_answer(case.snapshot)
    override = tmp_path / "thresholds.yaml"
    override.write_text("pacing.overspend:\n  projection_share_of_tolerance: 9.0\n", encoding="utf-8")
    other = support.audit_answer(case.snapshot, Thresholds.load(override))
    assert [f.id for f in parse_output(other.text)] == ["summary.no_material_issues"]
    assert [f.id for f in parse_output(default.text)] != ["summary.no_material_issues"]
    assert support.audit_answer(case.snapshot) == default
