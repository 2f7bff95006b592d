"""The reference auditor on every shipped case: it runs, and every figure it prints is grounded.

Recall and precision on the fifty are a measurement (the README, "Baseline on the fifty"), not a test: the cases are
the seniors', and the auditor must not be tuned into agreeing with them. Zero fabrication is a test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.assistant import parse_output
from reviewtui.auditor import audit
from reviewtui.caseset.cases import load_case
from reviewtui.scoring.grounding import GroundingIndex

CASES_DIR = Path(__file__).resolve().parents[2] / "cases"
CASE_DIRS = sorted(p for p in CASES_DIR.glob("*") if (p / "snapshot.json").is_file() and (p / "expected.yaml").is_file())


@pytest.mark.skipif(not CASE_DIRS, reason="no shipped cases yet")
@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_no_ungrounded_figure_on_a_shipped_case(case_dir):
    case = load_case(case_dir)
    result = audit(case.snapshot.data, strict=True)
    assert parse_output(result.to_json())
    index = GroundingIndex.for_snapshot(case.snapshot, "derived")
    bad = [
        f"{f['id']}: {v.figure.text!r} ({v.reason})"
        for f in result.output()["findings"]
        for v in index.check_texts({k: f[k] for k in ("claim", "evidence", "severity")}, scopes=[f["scope"]], kind=f["id"])
        if not v.grounded
    ]
    assert bad == []


@pytest.mark.skipif(not CASE_DIRS, reason="no shipped cases yet")
@pytest.mark.slow
def test_the_auditor_follows_each_kinds_severity_in_the_taxonomy():
    """Severity is the taxonomy's (level, or high when the kind's condition holds), for the auditor as
    for the prompt: no detector sets its own."""
    from reviewtui import taxonomy

    seen = set()
    for case_dir in CASE_DIRS:
        for finding in audit(load_case(case_dir).snapshot.data).output()["findings"]:
            severity = taxonomy.kinds()[finding["id"]].severity
            allowed = {severity.level} | ({"high"} if severity.high_when else set())
            assert finding["severity"] in allowed, (case_dir.name, finding["id"], finding["severity"])
            seen.add((finding["id"], finding["severity"]))
    # both sides of a conditional severity occur on the fifty
    assert {("tracking.missing_conversion_value", "high"), ("tracking.missing_conversion_value", "medium")} <= seen
