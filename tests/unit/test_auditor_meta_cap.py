"""Meta's daily allowance depends on the date: a quarter over the daily budget before 2025-05-29,
three quarters from that day (taxonomy.yaml, pacing.daily_cap_exceeded; the source is in docs/auditor.md).

The same Meta account, with one day at 1.60x its budget, is audited with its dates before and after
the change, through a snapshot on disk and the real auditor.
"""

from __future__ import annotations

import json
from datetime import date

import pytest

from reviewtui.auditor.pacing import cap_multiple
from reviewtui.domain.thresholds import ThresholdError, Thresholds
from tests.fixtures.auditor.helpers import audit_snapshot, fixture, ids, on_disk, ungrounded

CAP = "pacing.daily_cap_exceeded"


def _meta_account(month: str, multiple: float) -> dict:
    """The daily_cap fixture as a Meta account in ``month`` (YYYY-MM, 31 days), campaign 111 at ``multiple`` on day 10."""
    data = fixture("daily_cap")
    data = json.loads(json.dumps(data).replace("2025-03-", f"{month}-"))
    data["platform"] = "meta_ads"
    amount = {cid: b["amount"] for b in data["budgets"] for cid in b["campaign_ids"]}
    assert all(not b["history"] for b in data["budgets"])
    for row in data["daily"]:
        if row["campaign_id"] in amount:  # every other day comfortably under its budget
            row["cost"] = round(min(row["cost"], amount[row["campaign_id"]] * 0.9), 2)
        if row["campaign_id"] == "111" and row["date"] == f"{month}-10":
            row["cost"] = round(amount["111"] * multiple, 2)
    return data


def _cap_ids(tmp_path, month: str, multiple: float) -> set[str]:
    snapshot = on_disk(tmp_path, _meta_account(month, multiple))
    result = audit_snapshot(snapshot)
    assert not ungrounded(snapshot, result)
    return {i for i in ids(result) if i.startswith(CAP)}


def test_a_day_at_1_6x_breaks_metas_old_allowance(tmp_path):
    assert _cap_ids(tmp_path, "2025-03", 1.60) == {CAP, f"{CAP}@111"}


def test_the_same_day_is_within_metas_allowance_from_2025_05_29(tmp_path):
    assert _cap_ids(tmp_path, "2025-07", 1.60) == set()


def test_a_day_above_1_75x_breaks_the_new_allowance(tmp_path):
    assert _cap_ids(tmp_path, "2025-07", 1.90) == {CAP, f"{CAP}@111"}


def test_the_rule_changes_on_its_date_not_by_month():
    t = Thresholds().of(CAP)
    assert cap_multiple(t, True, date(2025, 5, 28)) == 1.25
    assert cap_multiple(t, True, date(2025, 5, 29)) == 1.75
    assert cap_multiple(t, False, date(2025, 5, 29)) == 2.0


def test_a_malformed_date_threshold_names_the_file_and_the_fix(tmp_path):
    override = tmp_path / "thresholds.yaml"
    override.write_text(f"{CAP}:\n  meta_flexible_from: 29 May 2025\n", encoding="utf-8")
    t = Thresholds.load(override).of(CAP)
    with pytest.raises(ThresholdError, match="meta_flexible_from' must be a date written YYYY-MM-DD"):
        t.date("meta_flexible_from")
