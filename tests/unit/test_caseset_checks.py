"""reviewtui.caseset.set_checks on real case folders in tmp_path, through `reviewtui check`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reviewtui.caseset import set_checks as cc
from reviewtui.caseset.cases import load_case_set
from reviewtui.commands.check import main as check_main

SNAPSHOT = {
    "schema_version": "1.0", "platform": "google_ads",
    "account": {"id": "1", "currency_code": "EUR", "time_zone": "Europe/Berlin"},
    "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-10"},
    "campaigns": [{"id": "111", "name": "Search | Brand"}],
    "daily": [{"date": "2025-03-01", "campaign_id": "111", "impressions": 10, "clicks": 2, "cost": 1.5, "conversions": 1.0}],
}


def write_case(root: Path, case_id: str, kind: str = "ordinary", source: str | None = None,
               claim: str | None = None, snapshot: str | None = None) -> Path:
    case = root / "cases" / case_id
    case.mkdir(parents=True)
    (case / "snapshot.json").write_text(snapshot or json.dumps(SNAPSHOT, indent=2), encoding="utf-8")
    lines = [f"case: {case_id}", f"kind: {kind}"]
    if source:
        lines.append(f"source: {source}")
    lines += ["must_find:", "  - id: pacing.overspend", "    evidence: spend 1.50 against 1.00"]
    if claim:
        lines.append(f"    claim: {claim}")
    (case / "expected.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return case


def write_writeup(root: Path, wu: str, text: str, snapshot: str) -> None:
    (root / "writeups").mkdir(exist_ok=True)
    (root / "writeups" / f"{wu}.md").write_text(text, encoding="utf-8")
    (root / "writeups" / f"{wu}.snapshot.json").write_text(snapshot, encoding="utf-8")


def run_check(root: Path, capsys) -> tuple[int, str]:
    code = check_main(["--cases", str(root / "cases")])
    return code, capsys.readouterr().out


def test_mix_off_plan_is_a_warning_on_another_case_set(tmp_path, capsys):
    write_case(tmp_path, "c01-a")
    write_case(tmp_path, "c02-b", kind="clean")
    code, out = run_check(tmp_path, capsys)
    assert code == 0
    assert "warning: case mix ordinary 1/30, broken_data 0/10, clean 1/5, trap 0/5" in out
    assert "(another case set: a warning only)" in out


def test_mix_off_plan_is_an_error_on_the_shipped_set(tmp_path):
    write_case(tmp_path, "c01-a")
    problems = cc.check_mix(load_case_set(tmp_path / "cases"), shipped=True)
    assert [p.severity for p in problems] == ["error"]
    assert "1 ordinary where at least 30 are planned" in problems[0].message


def planned_set(root: Path) -> int:
    n = 0
    for kind, count in cc.PLANNED_MIX.items():
        for _ in range(count):
            n += 1
            write_case(root, f"c{n:02d}-x", kind=kind)
    return n


def test_mix_on_plan_reports_nothing(tmp_path):
    planned_set(tmp_path)
    case_set = load_case_set(tmp_path / "cases")
    assert cc.check_mix(case_set, shipped=True) == []
    assert cc.mix_summary(case_set) == "ordinary 30/30, broken_data 10/10, clean 5/5, trap 5/5"


def test_a_51st_case_from_a_real_account_does_not_block_the_gate(tmp_path):
    """The plan is a floor: the README's "real account as a case" adds an ordinary case to the shipped set,
    and check (the validation eval runs first) must not fail on it; one fewer than planned still does."""
    n = planned_set(tmp_path)
    write_case(tmp_path, f"c{n + 1}-shop", kind="ordinary")
    case_set = load_case_set(tmp_path / "cases")
    assert cc.check_mix(case_set, shipped=True) == []
    assert cc.mix_summary(case_set) == "ordinary 31/30, broken_data 10/10, clean 5/5, trap 5/5"
    shutil.rmtree(tmp_path / "cases" / "c50-x")  # a trap case gone
    problems = cc.check_mix(load_case_set(tmp_path / "cases"), shipped=True)
    assert [p.severity for p in problems] == ["error"] and "4 trap where at least 5 are planned" in problems[0].message


def test_writeup_snapshot_must_be_byte_identical(tmp_path, capsys):
    text = json.dumps(SNAPSHOT, indent=2)
    write_writeup(tmp_path, "wu01-a", "# Audit\n\nSpend is ahead of budget.\n", text + " ")
    write_case(tmp_path, "c01-a", source="writeups/wu01-a.md", claim="Spend is ahead of budget.", snapshot=text)
    code, out = run_check(tmp_path, capsys)
    assert code == 2
    assert "expected.yaml:3: " in out  # the source line
    assert "differs from the write-up's snapshot" in out and "wu01-a.snapshot.json" in out


def test_writeup_snapshot_missing_and_unnamed(tmp_path, capsys):
    text = json.dumps(SNAPSHOT, indent=2)
    (tmp_path / "writeups").mkdir()
    (tmp_path / "writeups" / "wu01-a.md").write_text("Spend is ahead of budget.\n", encoding="utf-8")
    (tmp_path / "writeups" / "wu09-orphan.snapshot.json").write_text(text, encoding="utf-8")
    write_case(tmp_path, "c01-a", source="writeups/wu01-a.md", claim="Spend is ahead of budget.", snapshot=text)
    code, out = run_check(tmp_path, capsys)
    assert code == 2
    assert "wu01-a.snapshot.json not found" in out
    assert "wu09-orphan.snapshot.json:1: warning: no case names this write-up" in out


def test_identical_writeup_with_claim_passes(tmp_path, capsys):
    text = json.dumps(SNAPSHOT, indent=2)
    write_writeup(tmp_path, "wu01-a", "# Audit\n\nSpend is *ahead* of\nbudget.\n", text)
    write_case(tmp_path, "c01-a", source="writeups/wu01-a.md", claim="Spend is ahead of budget.", snapshot=text)
    assert cc.check_writeup_snapshots(load_case_set(tmp_path / "cases")) == []
    assert cc.check_writeup_claims(load_case_set(tmp_path / "cases")) == []


def test_must_find_of_a_writeup_case_needs_its_claim(tmp_path, capsys):
    text = json.dumps(SNAPSHOT, indent=2)
    write_writeup(tmp_path, "wu01-a", "Spend is ahead of budget.\n", text)
    write_case(tmp_path, "c01-a", source="writeups/wu01-a.md", snapshot=text)
    code, out = run_check(tmp_path, capsys)
    assert code == 2
    assert "expected.yaml:5: must_find[0] 'pacing.overspend' of a write-up case has no 'claim'" in out


def test_claim_not_in_the_writeup_is_a_warning(tmp_path):
    text = json.dumps(SNAPSHOT, indent=2)
    write_writeup(tmp_path, "wu01-a", "Spend is ahead of budget.\n", text)
    write_case(tmp_path, "c01-a", source="writeups/wu01-a.md", claim="Spend doubled overnight.", snapshot=text)
    problems = cc.check_writeup_claims(load_case_set(tmp_path / "cases"))
    assert [p.severity for p in problems] == ["warning"]
    assert "not found in writeups/wu01-a.md" in problems[0].message


def test_kind_coverage_names_the_kinds_no_case_must_find(tmp_path):
    write_case(tmp_path, "c01-a")
    problems = cc.check_kind_coverage(load_case_set(tmp_path / "cases"), shipped=True)
    assert problems and problems[0].severity == "error"
    assert "tracking.conversions_stopped" in problems[0].message
    assert "pacing.overspend," not in problems[0].message


@pytest.mark.skipif(not cc.SHIPPED_CASES.is_dir(), reason="no shipped case set in this tree")
def test_shipped_set_has_the_planned_mix_and_covers_every_kind():
    case_set = load_case_set(cc.SHIPPED_CASES)
    assert cc.is_shipped_set(case_set)
    assert cc.check_mix(case_set) == []
    assert cc.check_kind_coverage(case_set) == []
    assert cc.check_writeup_snapshots(case_set) == []


def test_the_cases_views_mix_reads_the_plan_as_check_does():
    """The header's colours come from the same rule: a kind short of the plan is yellow, more is green."""
    from collections import Counter

    from reviewtui.tui.screens.cases import CaseRow, mix_text

    def rows(counts):
        return [CaseRow(f"c{kind}{i}", kind, (0, 0, 0), "") for kind, n in counts.items() for i in range(n)]

    for counts in ({**cc.PLANNED_MIX, "ordinary": 31}, {**cc.PLANNED_MIX, "trap": 4}):
        text = mix_text(rows(counts))
        yellow = {text.plain[span.start:span.end].split("/")[0] for span in text.spans if span.style == "yellow"}
        short = set(cc.short_of_plan(Counter(counts)))
        assert {kind for kind in cc.PLANNED_MIX if str(counts[kind]) in yellow} == short
