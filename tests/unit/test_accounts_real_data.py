"""The reference auditor on imported real-shaped exports: closed months, absent status,
ad-level rows, days without delivery, and a costly campaign with no targets."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path


from reviewtui.auditor import audit
from reviewtui.commands.main import main
from reviewtui.scoring.grounding import verdicts_for_text
from reviewtui.caseset.snapshot import Snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "accounts"


def imported(tmp_path: Path, name: str, fmt: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.json"
    assert main(["import", "--format", fmt, str(FIXTURES / name), "-o", str(out), *extra]) == 0
    return json.loads(out.read_text())


def texts(result) -> list[str]:
    return [f.claim + " " + f.evidence for f in result.findings]


def kinds(result) -> list[tuple[str, str | None]]:
    return [(f.kind, f.scope) for f in result.findings]


def test_a_closed_period_has_nothing_missing_after_its_end(tmp_path):
    snap = imported(tmp_path, "google_campaign_daily.csv", "google")
    # as the export had it: as_of days after the end, no last complete day given
    snap["period"] = {"start": "2023-08-01", "end": "2023-08-14", "as_of": "2023-08-18"}
    result = audit(snap, strict=True)
    assert not [k for k in kinds(result) if k[0] in ("delivery.serving_stopped", "data.missing_days")]
    for line in texts(result):
        assert not re.search(r"2023-08-1[5-8]", line), line


def test_an_absent_status_is_never_stated(tmp_path):
    snap = imported(tmp_path, "meta_campaign_month.csv", "meta")
    stopped = "23850000000000001"
    snap["daily"] = [r for r in snap["daily"] if not (r["campaign_id"] == stopped and r["date"] >= "2023-08-25")]
    assert all("status" not in c for c in snap["campaigns"])
    result = audit(snap, strict=True)
    assert ("delivery.serving_stopped", stopped) in kinds(result)
    for line in texts(result):
        assert not re.search(r"enabled|paused|active", line, re.IGNORECASE), line
    # with the status in the data, it is said
    for camp in snap["campaigns"]:
        camp["status"] = "ACTIVE"
    said = [t for (k, s), t in zip(kinds(audit(snap, strict=True)), texts(audit(snap, strict=True)))
            if k == "delivery.serving_stopped"]
    assert said and "is enabled" in said[0]


def test_ad_level_daily_rows_are_summed_not_duplicates(tmp_path):
    snap = imported(tmp_path, "meta_ads_ad_level.csv", "meta", "--keep-ads", "--start", "2023-08-01", "--end", "2023-08-14")
    ad_rows = copy.deepcopy(snap)
    ad_rows["daily"] = ad_rows.pop("ad_daily")  # several rows per campaign and day, distinct ad ids
    result = audit(ad_rows, strict=True)
    assert "data.duplicate_rows" not in [k for k, _ in kinds(result)]
    # the same ad twice on a day, same values: a true duplicate
    ad_rows["daily"].append(dict(ad_rows["daily"][5]))
    result = audit(ad_rows, strict=True)
    assert "data.duplicate_rows" in [k for k, _ in kinds(result)]


def test_days_without_delivery_are_not_dropped_export_days(tmp_path):
    snap = imported(tmp_path, "meta_campaign_month.csv", "meta")
    small = "23850000000000004"  # 4.83 a day, no row on the days it did not deliver
    assert len({r["date"] for r in snap["daily"] if r["campaign_id"] == small}) < 31
    assert "data.missing_days" not in [k for k, _ in kinds(audit(snap, strict=True))]
    # the small campaign alone: its gaps are still no delivery
    alone = copy.deepcopy(snap)
    alone["daily"] = [r for r in alone["daily"] if r["campaign_id"] == small]
    assert "data.missing_days" not in [k for k, _ in kinds(audit(alone, strict=True))]
    # the whole account absent on two dates while every campaign delivered around them: the import's word
    # (source.missing_row_means no_delivery) reads them as days nothing delivered, as on a public holiday
    gap = copy.deepcopy(snap)
    gap["daily"] = [r for r in gap["daily"] if r["date"] not in ("2023-08-10", "2023-08-11")]
    assert "data.missing_days" not in [k for k, _ in kinds(audit(gap, strict=True))]
    # without that word (a snapshot that does not say what a missing row means), they were dropped
    del gap["source"]["missing_row_means"]
    assert "data.missing_days" in [k for k, _ in kinds(audit(gap, strict=True))]


def test_a_campaign_several_times_the_account_cpa_is_reported_with_no_targets(tmp_path):
    snap = imported(tmp_path, "meta_campaign_month.csv", "meta")
    assert "targets" not in snap
    result = audit(snap, strict=True)
    off = {s: f for f in result.findings if (s := f.scope) and f.kind == "efficiency.off_target"}
    assert set(off) == {"23850000000000002", "23850000000000003"}  # 5.3x and 6.9x; the main campaign is not
    assert "5.3x the account's CPA" in off["23850000000000002"].evidence
    loaded = Snapshot.load(tmp_path / "meta_campaign_month.csv.json")
    for finding in off.values():
        verdicts = verdicts_for_text(finding.claim + " " + finding.evidence, loaded)
        assert verdicts and all(v.grounded for v in verdicts), [v for v in verdicts if not v.grounded]
