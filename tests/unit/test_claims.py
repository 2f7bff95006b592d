"""must_not_say ``says`` patterns hit sentences that make the claim, not sentences that deny it.

Each sentence is one finding of a real output scored by ``score_case`` on a real case folder whose
must_not_say entries carry the patterns the shipped cases use.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case
from reviewtui.scoring.claims import affirmed_match
from reviewtui.scoring.score import score_case

SNAPSHOT = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"

# The says lists of the shipped cases (c06, c25, c46, c47, c37, c40...), one entry each.
EXPECTED = r"""case: c01-claims
kind: ordinary
must_find: []
must_not_say:
  - id: pacing.daily_cap_exceeded
    evidence: every day is within its cap
    says: ["(exceed|above|over|breach)\\w* (the |its )?daily (budget )?(cap|limit)", "daily cap"]
  - id: pacing.underspend
    evidence: the budget was raised mid-month
    says: ["under-?spend", "under-?pac", "behind (the )?budget", "below (the )?budget"]
  - id: data.missing_days
    evidence: every day has rows
    says: ["missing (day|date)", "missing (days|dates|rows)", "gaps? in the data"]
  - id: tracking.double_counting
    evidence: the rate rose 28%, not twice
    says: ["conversions (doubled|double)", "double[- ]count"]
  - id: delivery.serving_stopped
    evidence: it serves every day
    says: ["not (serving|delivering)", "stopped (serving|delivering)", "(did not|didn't) serve"]
  - id: tracking.conversion_rate_step_drop
    evidence: recent days are still filling in
    says: ["tracking (is |has )?(broken|stopped)", "conversions (have )?(stopped|collapsed|dropped off)"]
"""

# (sentence, the entry it hits, or None)
SENTENCES = [
    # affirmed: these make the claim
    ("Campaign 222 spent above its daily cap on 2025-03-16.", "pacing.daily_cap_exceeded"),
    ("The daily cap was exceeded on 2025-03-16.", "pacing.daily_cap_exceeded"),
    ("The account is underspending its budget.", "pacing.underspend"),
    ("Spend did not keep pace, an underspend of 30%.", "pacing.underspend"),
    ("Spend is behind budget by 19%.", "pacing.underspend"),
    ("No budget changes explain the underspend.", "pacing.underspend"),
    ("There are no conversions and an underspend.", "pacing.underspend"),
    ("There are missing days in the data.", "data.missing_days"),
    ("A missing day on 2025-03-12 breaks the series.", "data.missing_days"),
    ("Conversions are double counted since 2025-03-11.", "tracking.double_counting"),
    ("Conversions doubled from 2025-03-11.", "tracking.double_counting"),
    ("Campaign 333 stopped serving on 2025-03-12.", "delivery.serving_stopped"),
    ("Campaign 333 is not serving.", "delivery.serving_stopped"),
    ("Campaign 333 didn't serve after 2025-03-12.", "delivery.serving_stopped"),
    ("Purchase tracking has stopped.", "tracking.conversion_rate_step_drop"),
    ("Measured CPA rose because conversions stopped recording.", "tracking.conversion_rate_step_drop"),
    # denied or ruled out: these mention the claim to set it aside
    ("This is not an underspend: the budget was raised on 2025-03-10.", None),
    ("Spending 85.0% of the caps is not an underspend.", None),
    ("Rather than an underspend, the budget rose mid-month.", None),
    ("Underspend is ruled out: the budget was raised on 2025-03-10.", None),
    ("The account looks behind budget on a straight line, but I do not believe it is.", None),
    ("Spend is within Google's 2x daily cap.", None),
    ("Every day stayed under the daily cap.", None),
    ("The daily cap was never exceeded.", None),
    ("No day exceeded the daily cap.", None),
    ("Campaign 222 never went above its daily cap.", None),
    ("No day is missing.", None),
    ("There are no missing days.", None),
    ("There is no sign of double counting.", None),
    ("Conversions are not double counted.", None),
    ("Campaign 333 has not stopped serving.", None),
    ("Recent demo requests look low, but I do not think tracking is broken.", None),
    ("The raw export would have suggested an underspend of 15% that, as far as I can tell, is not there.", None),
]


@pytest.fixture(scope="module")
def score(tmp_path_factory: pytest.TempPathFactory):
    case_dir = tmp_path_factory.mktemp("cases") / "c01-claims"
    case_dir.mkdir()
    shutil.copyfile(SNAPSHOT, case_dir / "snapshot.json")
    (case_dir / "expected.yaml").write_text(EXPECTED, encoding="utf-8")
    case = load_case(case_dir)
    findings = [{"id": "efficiency.off_target", "scope": None, "claim": text, "evidence": "", "severity": "low"}
                for text, _ in SENTENCES]
    return score_case(case, CaseOutput(case.case_id, json.dumps({"findings": findings})))


@pytest.mark.parametrize(("n", "text", "entry"), [(n, t, e) for n, (t, e) in enumerate(SENTENCES)],
                         ids=[t for t, _ in SENTENCES])
def test_says_hits_claims_not_denials(score, n: int, text: str, entry: str | None) -> None:
    hits = [h["entry_id"] for h in score.must_not_say_hits if h["finding_index"] == n]
    assert hits == ([entry] if entry else []), (text, hits)
    assert (score.findings[n]["verdict"] == "must_not_say") is (entry is not None)


def test_a_mention_inside_a_denied_match_of_the_same_entry_is_denied() -> None:
    patterns = [re.compile(r"exceed\w* the daily cap", re.I), re.compile("daily cap", re.I)]
    assert affirmed_match(patterns, "No day exceeded the daily cap.") is None
    i, m = affirmed_match(patterns, "No clicks were lost; spend exceeded the daily cap.")
    assert (i, m.group()) == (0, "exceeded the daily cap")
