"""tools/snapgen through its command line, on real files in tmp_path."""

from __future__ import annotations

import pytest
import json
import subprocess
import sys
from pathlib import Path

import yaml

from reviewtui.caseset.cases import load_case, validate_case

REPO = Path(__file__).resolve().parents[2]


def snapgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tools.snapgen", *args], cwd=REPO, capture_output=True, text=True)


def test_generate_writes_a_valid_case(tmp_path):
    run = snapgen("generate", "c02-dental-clinic", "--root", str(tmp_path))
    assert run.returncode == 0, run.stderr
    case_dir = tmp_path / "cases" / "c02-dental-clinic"
    snap_text = (case_dir / "snapshot.json").read_text(encoding="utf-8")
    # the write-up copy is byte-identical
    assert (tmp_path / "writeups" / "wu02-dental-clinic.snapshot.json").read_text(encoding="utf-8") == snap_text
    case = load_case(case_dir)
    problems = [p for p in validate_case(case) if "source write-up" not in p.message]
    assert problems == []
    assert case.kind == "ordinary" and case.source == "writeups/wu02-dental-clinic.md"
    assert {"pacing.underspend", "efficiency.off_target@" + case.must_find[2].scope} <= {e.id for e in case.must_find}
    # one daily row per line, so /daily/N pointers are readable and diffs small
    snap = json.loads(snap_text)
    assert sum(line.startswith('    {"date": ') for line in snap_text.splitlines()) == len(snap["daily"])
    assert 3 <= len(snap["campaigns"]) <= 15


def test_evidence_figures_come_from_the_rows(tmp_path):
    assert snapgen("generate", "c02-dental-clinic", "--root", str(tmp_path)).returncode == 0
    case_dir = tmp_path / "cases" / "c02-dental-clinic"
    snap = json.loads((case_dir / "snapshot.json").read_text(encoding="utf-8"))
    expected = yaml.safe_load((case_dir / "expected.yaml").read_text(encoding="utf-8"))
    lcd = snap["period"]["last_complete_date"]
    spend = sum(r["cost"] for r in snap["daily"] if r["date"] <= lcd)
    pacing = next(e for e in expected["must_find"] if e["id"] == "pacing.underspend")
    assert f"spend to date {spend:,.2f}" in pacing["evidence"]
    assert f"{snap['targets']['monthly_budget']:,.2f} monthly budget" in pacing["evidence"]
    off = next(e for e in expected["must_find"] if e["id"].startswith("efficiency.off_target@"))
    cid = off["id"].split("@")[1]
    rows = [r for r in snap["daily"] if r["campaign_id"] == cid and r["date"] <= lcd]
    cpa = sum(r["cost"] for r in rows) / sum(r["conversions"] for r in rows)
    assert f"CPA {cpa:,.2f}" in off["evidence"]
    for ptr in off["rows"]:
        assert snap["daily"][int(ptr.split("/")[2])]["campaign_id"] == cid


@pytest.mark.slow
def test_regenerating_never_writes_over_expected_yaml(tmp_path):
    assert snapgen("generate", "c50-services-trap", "--root", str(tmp_path)).returncode == 0
    case_dir = tmp_path / "cases" / "c50-services-trap"
    expected = case_dir / "expected.yaml"
    edited = expected.read_text(encoding="utf-8") + "# a senior's note\n"
    expected.write_text(edited, encoding="utf-8")
    snap_before = (case_dir / "snapshot.json").read_bytes()
    (case_dir / "snapshot.json").write_text("{}", encoding="utf-8")  # a damaged snapshot is restored
    run = snapgen("generate", "c50-services-trap", "--root", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert expected.read_text(encoding="utf-8") == edited
    assert (case_dir / "snapshot.json").read_bytes() == snap_before
    draft = case_dir / "expected.draft.yaml"
    assert draft.is_file() and "summary.no_material_issues" in draft.read_text(encoding="utf-8")
    assert "left alone" in run.stderr
    draft.unlink()
    run = snapgen("generate", "c50-services-trap", "--root", str(tmp_path), "--stdout-draft")
    assert "summary.no_material_issues" in run.stdout and not draft.exists()
    assert expected.read_text(encoding="utf-8") == edited


@pytest.mark.slow
def test_generation_is_reproducible_and_matches_the_shipped_set(tmp_path):
    for n in (1, 2):
        assert snapgen("generate", "c07-law-firm", "--root", str(tmp_path / str(n))).returncode == 0
    a = (tmp_path / "1" / "cases" / "c07-law-firm" / "snapshot.json").read_bytes()
    b = (tmp_path / "2" / "cases" / "c07-law-firm" / "snapshot.json").read_bytes()
    assert a == b
    shipped = REPO / "cases" / "c07-law-firm" / "snapshot.json"
    if shipped.exists():
        assert shipped.read_bytes() == a
        run = snapgen("verify")
        assert run.returncode == 0, run.stdout
        assert "50 cases checked, 0 problem(s)" in run.stdout


@pytest.mark.slow
def test_verify_reports_a_changed_snapshot(tmp_path):
    assert snapgen("generate", "c07-law-firm", "--root", str(tmp_path)).returncode == 0
    path = tmp_path / "cases" / "c07-law-firm" / "snapshot.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"EUR"', '"USD"', 1).replace('"USD"', '"CAD"', 1), encoding="utf-8")
    run = snapgen("verify", "--root", str(tmp_path))
    assert run.returncode == 1
    assert "c07-law-firm: " in run.stdout and "differs from what seed 107 generates" in run.stdout


def test_sanity_flags_conditions_no_list_mentions():
    sys.path.insert(0, str(REPO))
    from tools.snapgen import sanity
    from tools.snapgen.build import generate, spec_for

    gen = generate(spec_for("c42-roastery-clean"))
    assert gen.unlisted == {}
    snap = gen.snapshot
    snap["daily"].append(dict(snap["daily"][0]))
    snap["daily"][5]["cost"] = -3.0
    found = sanity.conditions(snap)
    assert "data.duplicate_rows" in found and "data.invalid_values" in found
    ids = {e.id for e in gen.entries}
    # invalid_values is already named (must_not_say: the 0.0999 impression share), duplicates are not
    assert "data.duplicate_rows" in sanity.uncovered(found, ids)
    assert "data.invalid_values" not in sanity.uncovered(found, ids)


def test_unknown_case_is_a_clear_error():
    run = snapgen("generate", "c99-nope")
    assert run.returncode != 0
    assert "unknown case 'c99-nope'" in run.stderr + run.stdout


def test_a_budget_change_draft_cites_the_history_entries_of_that_change(tmp_path):
    # c47's budgets carry older changes (2024-11) before the planted doubling of 2025-01-12
    assert snapgen("generate", "c47-furniture-trap", "--root", str(tmp_path)).returncode == 0
    case_dir = tmp_path / "cases" / "c47-furniture-trap"
    snap = json.loads((case_dir / "snapshot.json").read_text(encoding="utf-8"))
    expected = yaml.safe_load((case_dir / "expected.yaml").read_text(encoding="utf-8"))
    trap = next(e for e in expected["must_not_say"] if e["id"] == "pacing.underspend")
    cited = [p for p in trap["rows"] if "/history/" in p]
    assert cited == ["/budgets/1/history/0", "/budgets/3/history/1", "/budgets/4/history/0"]
    for pointer in cited:
        _, _, n, _, k = pointer.split("/")
        assert snap["budgets"][int(n)]["history"][int(k)]["changed_at"].startswith("2025-01-12")


def test_a_meta_day_at_1_7x_is_drafted_by_the_allowance_of_its_date(tmp_path):
    # c25's day is 2025-10-09: Meta allows 1.75x from 2025-05-29, so 1.70x is the tempting wrong reading
    assert snapgen("generate", "c25-yoga-app", "--root", str(tmp_path)).returncode == 0
    expected = yaml.safe_load((tmp_path / "cases" / "c25-yoga-app" / "expected.yaml").read_text(encoding="utf-8"))
    assert not any(e["id"].startswith("pacing.daily_cap_exceeded") for e in expected["must_find"])
    trap = next(e for e in expected["must_not_say"] if e["id"] == "pacing.daily_cap_exceeded")
    assert "(1.70x); Meta allows up to 1.75x on one day since 2025-05-29, so the day is within the limit" in trap["evidence"]


def test_a_side_effect_says_a_cpa_is_inflated_and_a_roas_depressed(tmp_path):
    assert snapgen("generate", "c14-university", "--root", str(tmp_path)).returncode == 0
    expected = yaml.safe_load((tmp_path / "cases" / "c14-university" / "expected.yaml").read_text(encoding="utf-8"))
    side = next(e for e in expected["may_find"] if e["id"].startswith("efficiency.off_target@"))
    assert "measured CPA" in side["evidence"] and side["evidence"].endswith("inflated by the stopped tracking")


def test_the_weekly_sample_accounts_regenerate_byte_for_byte_and_load_as_accounts():
    from reviewtui.weekly.accounts import load_accounts
    from tools.snapgen.samples import SAMPLES_DIR, verify_samples

    assert verify_samples(REPO) == []
    accounts = load_accounts(REPO / SAMPLES_DIR)
    assert len(accounts) == 6 and [a.problem for a in accounts] == [None] * 6
