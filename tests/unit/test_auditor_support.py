"""The support check: do the rows support a finding id? And its warnings in ``reviewtui check``."""

from __future__ import annotations

import json
from pathlib import Path

from reviewtui.auditor import check_support
from reviewtui.commands.check import main as check_main
from tests.fixtures.auditor.helpers import fixture, on_disk


def test_a_planted_stop_is_supported_with_rows_and_figures(tmp_path):
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    answer = check_support(snapshot, "tracking.conversions_stopped")
    assert answer.supported is True
    rows = [snapshot.resolve(p) for p in answer.rows]
    assert {r["date"] for r in rows if r["conversions"] == 0} and {r["date"] for r in rows if r["conversions"] > 0} == {"2025-03-13"}
    assert "2025-03-14" in answer.figures


def test_an_account_wide_stop_supports_each_campaign(tmp_path):
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    assert check_support(snapshot, "tracking.conversions_stopped@222").supported is True


def test_a_lag_taper_does_not_support_a_stop(tmp_path):
    snapshot = on_disk(tmp_path, fixture("lag_trap_small"))
    answer = check_support(snapshot, "tracking.conversions_stopped@555")
    assert answer.supported is False
    assert "lag" in answer.explanation


def test_the_wrong_campaign_is_not_supported(tmp_path):
    snapshot = on_disk(tmp_path, fixture("wasted_campaign"))
    assert check_support(snapshot, "waste.zero_conv_campaign@555").supported is True
    assert check_support(snapshot, "waste.zero_conv_campaign@222").supported is False


def test_what_cannot_be_assessed_is_none(tmp_path):
    snapshot = on_disk(tmp_path, fixture("meta_cap"))  # Meta: no search terms
    answer = check_support(snapshot, "waste.zero_conv_search_terms")
    assert answer.supported is None
    assert "search terms" in answer.explanation


def test_broken_data_leaves_the_corrupted_figures_unassessed(tmp_path):
    snapshot = on_disk(tmp_path, fixture("duplicates"))
    assert check_support(snapshot, "concentration.spend_single_campaign").supported is None
    assert check_support(snapshot, "data.duplicate_rows").supported is True


def test_summary_is_supported_only_on_a_healthy_account(tmp_path):
    assert check_support(on_disk(tmp_path, fixture("clean")), "summary.no_material_issues").supported is True
    answer = check_support(on_disk(tmp_path, fixture("overspend"), "o.json"), "summary.no_material_issues")
    assert answer.supported is False and "pacing.overspend" in answer.explanation


def test_unknown_kind_is_not_assessed(tmp_path):
    answer = check_support(on_disk(tmp_path, fixture("clean")), "pacing.sideways")
    assert answer.supported is None and "not a taxonomy id" in answer.explanation


def test_answers_follow_edits_of_the_snapshot(tmp_path):
    before = check_support(on_disk(tmp_path, fixture("clean")), "pacing.overspend")
    data = fixture("clean")
    data["targets"]["monthly_budget"] = round(data["targets"]["monthly_budget"] / 2, 2)
    after = check_support(on_disk(tmp_path, data), "pacing.overspend")
    assert (before.supported, after.supported) == (False, True)


def _case(root: Path, name: str, snapshot: dict, expected: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_text(json.dumps(snapshot, indent=1), encoding="utf-8")
    (folder / "expected.yaml").write_text(expected, encoding="utf-8")


def test_check_warns_on_unsupported_must_find_and_supported_must_not_say(tmp_path, capsys):
    _case(tmp_path, "c01-stop", fixture("stop_account"), """\
case: c01-stop
kind: ordinary
must_find:
  - id: tracking.conversions_stopped
    evidence: Conversions are 0 from 2025-03-14 while clicks hold
  - id: waste.zero_conv_campaign@222
    evidence: a senior's mistake, the campaign converts
""")
    _case(tmp_path, "c02-over", fixture("overspend"), """\
case: c02-over
kind: trap
must_find:
  - id: summary.no_material_issues
    evidence: looks fine to the senior
must_not_say:
  - id: pacing.overspend
    evidence: the senior thinks spend is on pace
""")
    code = check_main(["--cases", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out  # warnings never fail the check
    assert "c01-stop/expected.yaml:6: warning: must_find waste.zero_conv_campaign@222" in out
    assert "tracking.conversions_stopped: the reference auditor" not in out
    assert "c02-over/expected.yaml:4: warning: must_find summary.no_material_issues" in out
    assert "c02-over/expected.yaml:7: warning: must_not_say pacing.overspend: the reference auditor finds the rows support it" in out


def test_an_audit_is_kept_on_disk_and_read_back_by_the_next_process(tmp_path, monkeypatch):
    from reviewtui.auditor import support

    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())  # earlier tests audited the same content
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    first = support.audit_cached(snapshot)
    assert len(list((tmp_path / "cache" / "audits").glob("*.pickle"))) == 1
    # A new process: nothing in memory, and auditing again would fail
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    monkeypatch.setattr(support, "audit", lambda data: (_ for _ in ()).throw(AssertionError("audited again")))
    again = support.audit_cached(snapshot)
    assert again is not first and again == first
    assert check_support(snapshot, "tracking.conversions_stopped@222").supported is True


def test_a_damaged_audit_on_disk_is_audited_again_and_replaced(tmp_path, monkeypatch):
    from reviewtui.auditor import support

    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())  # earlier tests audited the same content
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    first = support.audit_cached(snapshot)
    [kept] = (tmp_path / "cache" / "audits").glob("*.pickle")
    kept.write_bytes(b"not a pickle")
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    assert support.audit_cached(snapshot) == first
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    monkeypatch.setattr(support, "audit", lambda data: (_ for _ in ()).throw(AssertionError("audited again")))
    assert support.audit_cached(snapshot) == first  # the replaced entry reads back


def test_the_disk_key_follows_every_core_source_but_not_the_app(tmp_path):
    from reviewtui.files.parse_cache import sources_digest

    (tmp_path / "auditor").mkdir()
    (tmp_path / "tui").mkdir()
    (tmp_path / "auditor" / "tracking.py").write_text("MIN = 3\n")
    (tmp_path / "taxonomy.yaml").write_text("kinds: {}\n")
    (tmp_path / "tui" / "app.py").write_text("x = 1\n")
    before = sources_digest(tmp_path)
    (tmp_path / "tui" / "app.py").write_text("x = 2\n")
    assert sources_digest(tmp_path) == before
    (tmp_path / "auditor" / "tracking.py").write_text("MIN = 4\n")
    edited = sources_digest(tmp_path)
    (tmp_path / "taxonomy.yaml").write_text("kinds: {a: 1}\n")
    assert len({before, edited, sources_digest(tmp_path)}) == 3
