"""The re-score notice's one line, on a run whose manifest lost its summary (a hand edit)."""

from __future__ import annotations

from reviewtui.tui.screens.run_review import rescore_summary


def test_a_summary_missing_from_the_manifest_reads_n_a_not_none():
    after = {"mean_recall": 1.0, "mean_precision": 1.0, "fabrications": 0}
    line = rescore_summary([], {}, after)
    assert "mean recall n/a → 1.000" in line and "fabrications n/a → 0" in line
    assert "None" not in line
