"""`reviewtui compare V1 V2` with bare versions after the README's offline `reviewtui eval`: the only run of the
version is the reference auditor's, in results/reference/V/; the error names that folder."""

from __future__ import annotations

from reviewtui.commands.compare import main as compare_main


def test_a_bare_version_with_only_a_reference_run_names_its_folder(tmp_path, capsys):
    results = tmp_path / "results"
    (results / "reference" / "audit-v9").mkdir(parents=True)
    (results / "replay" / "stored" / "audit-v9").mkdir(parents=True)
    assert compare_main(["audit-v9", "audit-v9", "--results-dir", str(results)]) == 2
    err = capsys.readouterr().err
    assert "audit-v9: no run folder or results CSV there" in err
    assert str(results / "reference" / "audit-v9") in err and str(results / "replay" / "stored" / "audit-v9") in err


def test_a_bare_version_with_no_run_at_all_says_only_that(tmp_path, capsys):
    assert compare_main(["audit-v9", "audit-v9", "--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "audit-v9: no run folder or results CSV there" in err and "reference" not in err
