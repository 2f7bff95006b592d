"""reviewtui check: every problem as path:line: message, a count, exit 2 on errors; the check list."""

from __future__ import annotations

import pytest

from reviewtui.commands import check
from reviewtui.runs import validation
from reviewtui.caseset.cases import Problem, load_case_set
from reviewtui.commands.main import main as cli_main
from tests.stub_backends import FIXTURE_CASES, copy_fixture_cases


@pytest.fixture
def no_extra_checks(monkeypatch):
    """Only the case set's own validation (other areas' check modules may be mid-edit)."""
    monkeypatch.setattr(validation, "all_checks", lambda: [])
    monkeypatch.setattr(check, "all_reports", lambda: [])


def test_the_fixture_case_set_passes(no_extra_checks, capsys):
    assert check.main(["--cases", str(FIXTURE_CASES)]) == 0
    out = capsys.readouterr().out
    assert out == "10 case(s) checked: 0 error(s), 0 warning(s): ok\n"


def test_the_fixture_case_set_passes_with_every_available_check(capsys):
    """The real command, with whatever check modules this build has."""
    assert cli_main(["check", "--cases", str(FIXTURE_CASES)]) == 0
    assert "0 error(s)" in capsys.readouterr().out.splitlines()[-1]


def test_every_problem_is_printed_with_file_and_line_and_exit_2(no_extra_checks, tmp_path, capsys):
    cases = copy_fixture_cases(tmp_path / "cases")
    expected = cases / "c04-overspend-disapproved" / "expected.yaml"
    text = expected.read_text(encoding="utf-8")
    text = text.replace("status.disapproved_ads@222", "status.disaproved_ads@222")  # unknown kind
    text = text.replace("rows: [/ads/0]", "rows: [/ads/7]")  # pointer past the end
    text = text.replace("kind: ordinary", "kind: ordinary\nreviewer: anna")  # unknown key: a warning
    expected.write_text(text, encoding="utf-8")
    snapshot = cases / "c05-duplicate-rows" / "snapshot.json"
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace('"platform": "google_ads",', '"platform": "google_ads"'), encoding="utf-8")

    assert check.main(["--cases", str(cases)]) == 2
    lines = capsys.readouterr().out.splitlines()
    lines_of = {n: l for n, l in enumerate(expected.read_text(encoding="utf-8").splitlines(), 1)}
    kind_line = next(n for n, l in lines_of.items() if "disaproved" in l)
    rows_line = next(n for n, l in lines_of.items() if "/ads/7" in l)
    key_line = next(n for n, l in lines_of.items() if l.startswith("reviewer:"))
    assert f"{expected}:{key_line}: warning: unknown key 'reviewer' (known: case, kind, may_find, must_find, must_not_say, notes, source)" in lines
    assert any(l.startswith(f"{expected}:{kind_line}: must_find[1]: unknown finding kind 'status.disaproved_ads'") for l in lines)
    assert any(l.startswith(f"{expected}:{rows_line}: must_find[1]: row '/ads/7' does not resolve") for l in lines)
    assert any(l.startswith(f"{snapshot}:4: malformed JSON") for l in lines)  # where the parser noticed: the next key
    assert lines[-1] == "9 case(s) checked: 3 error(s), 1 warning(s): fix the errors above"


def test_warnings_alone_do_not_fail(no_extra_checks, tmp_path, capsys):
    cases = copy_fixture_cases(tmp_path / "cases")
    expected = cases / "c01-tracking-stopped" / "expected.yaml"
    expected.write_text(expected.read_text(encoding="utf-8") + "reviewed_by: anna\n", encoding="utf-8")
    assert check.main(["--cases", str(cases)]) == 0
    out = capsys.readouterr().out
    assert "warning: unknown key 'reviewed_by'" in out
    assert out.splitlines()[-1] == "10 case(s) checked: 0 error(s), 1 warning(s): ok"


def test_missing_cases_folder(no_extra_checks, tmp_path, capsys):
    assert check.main(["--cases", str(tmp_path / "nope")]) == 2
    assert f"{tmp_path / 'nope'}:1: cases folder not found" in capsys.readouterr().out


def test_a_missing_cases_folder_is_one_error_without_the_case_mix_warning(tmp_path, capsys):
    """The real checks run: an empty set would warn of its case mix, which only buries the one error."""
    assert check.main(["--cases", str(tmp_path / "nope")]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{tmp_path / 'nope'}:1: cases folder not found; pass --cases DIR"
    assert not any("case mix" in line and "warning" in line for line in lines), lines
    assert "1 error(s), 0 warning(s)" in lines[-1]


@pytest.mark.parametrize("make", ["missing", "a file"])
def test_eval_on_a_cases_folder_that_is_not_there_gives_one_error(tmp_path, capsys, monkeypatch, make):
    """One line naming the folder and the fix, exit 2: no backend line, no case-mix warning of an empty set."""
    from reviewtui.commands.eval import main as eval_main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    folder = tmp_path / "nope"
    if make == "a file":
        folder.write_text("", encoding="utf-8")
    assert eval_main(["--cases", str(folder), "--results-dir", str(tmp_path / "results")]) == 2
    out = capsys.readouterr()
    what = "is not a folder" if make == "a file" else "does not exist"
    assert out.out == "" and out.err.splitlines() == [
        f"reviewtui eval: the cases folder {folder} {what}; pass --cases DIR with the folder that holds one folder "
        "per case (snapshot.json and expected.yaml), or run from the repository, whose cases/ is the default"]
    assert not (tmp_path / "results").exists()


def test_bad_usage_exits_2(capsys):
    assert check.main(["--bogus"]) == 2


def test_every_check_of_the_set_and_of_the_auditor_runs_in_order():
    from reviewtui.auditor.support import support_problems
    from reviewtui.caseset import set_checks

    names = [f.__name__ for f in validation.all_checks()]
    assert names == ["check_mix", "check_writeup_snapshots", "check_writeup_claims", "check_kind_coverage",
                     "check_key_files", "check_disputes", "check_redacted_imports", "support_problems"]
    assert validation.all_checks() == [*set_checks.CHECKS, support_problems]
    assert [r.__name__ for r in validation.all_reports()] == ["mix_report"]


def test_each_checks_problems_are_printed_with_the_count(monkeypatch, capsys):
    def too_few_cases(case_set):
        return [Problem(case_set.root, 1, f"only {len(case_set.cases)} cases; the set needs 50")]

    def note(case_set):
        return [Problem(case_set.root / "c01-tracking-stopped" / "expected.yaml", 5, "rows may not support this",
                        "warning")]

    monkeypatch.setattr(validation, "all_checks", lambda: [too_few_cases, note])
    assert check.main(["--cases", str(FIXTURE_CASES)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert f"{FIXTURE_CASES}:1: only 10 cases; the set needs 50" in out
    assert f"{FIXTURE_CASES / 'c01-tracking-stopped' / 'expected.yaml'}:5: warning: rows may not support this" in out
    assert out[-1] == "10 case(s) checked: 1 error(s), 1 warning(s): fix the errors above"


def test_run_checks_sorts_by_file_and_line():
    case_set = load_case_set(FIXTURE_CASES)
    late = Problem(FIXTURE_CASES / "b" / "x.yaml", 9, "late")
    early = Problem(FIXTURE_CASES / "b" / "x.yaml", 2, "early", "warning")
    first = Problem(FIXTURE_CASES / "a" / "x.yaml", 30, "first")
    problems = validation.run_checks(case_set, [lambda cs: [late, early], lambda cs: [first]])
    assert problems == [first, early, late]


def test_the_mix_report_is_printed_whatever_the_verdict(capsys):
    assert check.main(["--cases", str(FIXTURE_CASES)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "case mix (found/planned): ordinary 4/30, broken_data 2/10, clean 2/5, trap 2/5; 0 case(s) built from write-ups" in out
    assert out[-1].startswith("10 case(s) checked:")


DISPUTED_CHECKED = """\
# Disputed claims

Claims the rows do not support.

## writeups/wu01-shoes.md

### D-wu01-1
> The account overspends by 40%.

- **Case:** c01-tracking-stopped
- **Rows show:** spend is on the schedule
- **Rows:** /daily/0
- **Why it stays out:** no overspend in the rows

### D-wu01-2
> Conversions doubled last week.

- **Case:** c01-tracking-stopped
- **Rows show:** conversions are flat
- **Rows:** (none)
- **Why it stays out:** no such rise

### D-wu01-3
> Brand carries everything.

- **Case:** c01-tracking-stopped
- **Rows show:** brand takes a fifth
- **Rows:** /daily/0, /campaigns/99
- **Why it stays out:** a fifth is not everything

### D-wu01-4
> A claim about another account.

- **Case:** c99-elsewhere
- **Rows show:** nothing here
- **Rows:** /daily/0
- **Why it stays out:** another case

## What the disputes say about how we audit

We over-read.
"""


def test_check_validates_disputed_md_beside_the_cases_folder(no_extra_checks, monkeypatch, tmp_path, capsys):
    """A dispute without rows, or with a row its case's snapshot does not hold, is an error at its line in
    disputed.md (and so blocks eval, which runs the same validation); a case not in the set is a warning."""
    from reviewtui.caseset import set_checks

    monkeypatch.setattr(validation, "all_checks", lambda: [set_checks.check_disputes])
    cases = copy_fixture_cases(tmp_path / "cases")
    disputed = tmp_path / "disputed.md"
    disputed.write_text(DISPUTED_CHECKED, encoding="utf-8")
    lines_of = DISPUTED_CHECKED.splitlines()
    none_line = lines_of.index("- **Rows:** (none)") + 1
    bad_line = lines_of.index("- **Rows:** /daily/0, /campaigns/99") + 1
    other_line = lines_of.index("### D-wu01-4") + 1

    assert check.main(["--cases", str(cases)]) == 2
    out = capsys.readouterr().out.splitlines()
    problems = [line for line in out if line.startswith(str(disputed))]
    assert problems == [
        f"{disputed}:{none_line}: D-wu01-2 names no rows; list the JSON Pointers of the rows that show what the rows "
        "show instead (/daily/12, /campaigns/0)",
        f"{disputed}:{bad_line}: D-wu01-3: row '/campaigns/99' does not resolve in "
        f"{cases / 'c01-tracking-stopped' / 'snapshot.json'} (/campaigns has 3 items; index 99 is past the end); fix the pointer",
        f"{disputed}:{other_line}: warning: D-wu01-4 names case 'c99-elsewhere', which is not in {cases}; its rows are not checked",
    ]
    assert out[-1].endswith("2 error(s), 1 warning(s): fix the errors above")

    disputed.write_text(DISPUTED_CHECKED.replace("(none)", "/daily/1").replace("/campaigns/99", "/campaigns/0"), encoding="utf-8")
    assert check.main(["--cases", str(cases)]) == 0


def test_a_held_validation_finds_the_same_and_leaves_its_objects_out_of_the_collector():
    """``validate(hold=True)`` (what ``reviewtui check`` runs): the same case set and problems; no
    collection while it runs; what it loaded frozen out of the collector at the end; the collector
    enabled again as it was."""
    import gc

    collections: list[str] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(phase)

    plain_set, plain_problems = validation.validate(FIXTURE_CASES)
    gc.unfreeze()
    frozen_before = gc.get_freeze_count()
    gc.callbacks.append(note)
    try:
        gc.collect()
        collections.clear()
        case_set, problems = validation.validate(FIXTURE_CASES, hold=True)
        assert collections == []
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before
        assert [str(p) for p in problems] == [str(p) for p in plain_problems]
        assert [c.case_id for c in case_set.cases] == [c.case_id for c in plain_set.cases]
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()
