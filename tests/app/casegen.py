"""Deterministic synthetic cases for the app's tests and benchmarks.

Small valid snapshots (any number of daily rows), a case folder writer, and
a case set of any size, so tests and benchmarks never depend on the real
``cases/`` folder that is still being filled.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

CAMPAIGNS = [
    {"id": "111", "name": "Search | Brand | DE", "advertising_channel_type": "SEARCH", "status": "ENABLED", "budget_id": "b111"},
    {"id": "222", "name": "Search | Generic | Shoes", "advertising_channel_type": "SEARCH", "status": "ENABLED", "budget_id": "b222"},
    {"id": "333", "name": "PMax | All products", "advertising_channel_type": "PERFORMANCE_MAX", "status": "ENABLED", "budget_id": "b333"},
]


def daily_rows(rows: int, *, campaigns: int = 2, start: date = date(2025, 3, 1), stop_from: int | None = None) -> list[dict[str, Any]]:
    """``rows`` daily rows cycling over the first ``campaigns`` campaigns, one day per full cycle.

    With ``stop_from`` the second campaign records 0 conversions from that day index on.
    """
    out = []
    for i in range(rows):
        day, c = divmod(i, campaigns)
        clicks = 300 + (i * 37) % 41
        conversions = 0.0 if (stop_from is not None and c == 1 and day >= stop_from) else float(8 + (i * 13) % 7)
        out.append({
            "date": (start + timedelta(days=day % 3650)).isoformat(),
            "campaign_id": CAMPAIGNS[c % len(CAMPAIGNS)]["id"],
            "impressions": clicks * 12 + (i % 97),
            "clicks": clicks,
            "cost": round(clicks * 0.83 + (i % 11) * 1.1, 2),
            "conversions": conversions,
            "conversions_value": round(conversions * 79.5, 2),
        })
    return out


def snapshot(rows: int = 36, *, name: str = "ACCT-01", campaigns: int = 2, stop_from: int | None = None) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "platform": "google_ads",
        "account": {"id": "123-456-7890", "name": name, "currency_code": "EUR", "time_zone": "Europe/Berlin"},
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-19", "last_complete_date": "2025-03-18"},
        "targets": {"monthly_budget": 30000.0, "target_cpa": 45.0, "target_roas": None, "pacing_tolerance": 0.1},
        "budgets": [
            {"budget_id": f"b{c['id']}", "campaign_ids": [c["id"]], "period": "DAILY", "amount": 400.0, "history": []}
            for c in CAMPAIGNS[:campaigns]
        ],
        "campaigns": CAMPAIGNS[:campaigns],
        "daily": daily_rows(rows, campaigns=campaigns, stop_from=stop_from),
        "search_terms": [
            {"campaign_id": "222", "search_term": "free shoes", "impressions": 2210, "clicks": 74, "cost": 166.5, "conversions": 0.0},
            {"campaign_id": "222", "search_term": "running shoes sale", "impressions": 5120, "clicks": 310, "cost": 402.1, "conversions": 21.0},
        ],
    }


def write_case(root: Path, case_id: str, kind: str, snap: dict[str, Any], expected: str | None = None, *, indent: int | None = 1) -> Path:
    case_dir = root / case_id
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "snapshot.json").write_text(json.dumps(snap, indent=indent), encoding="utf-8")
    if expected is None:
        expected = (
            f"case: {case_id}\nkind: {kind}\nmust_find:\n"
            "  - id: tracking.conversions_stopped@222\n"
            "    evidence: conversions 0 from 2025-03-09 while clicks hold near 310 a day\n"
            "    rows: [/daily/17, /daily/19]\n"
        )
    (case_dir / "expected.yaml").write_text(expected, encoding="utf-8")
    return case_dir


KINDS_OF_FIFTY = ["ordinary"] * 30 + ["broken_data"] * 10 + ["clean"] * 5 + ["trap"] * 5


def make_case_set(root: Path, count: int = 50, rows: int = 36) -> Path:
    """``count`` small valid cases under ``root`` in the 30/10/5/5 mix."""
    root.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        kind = KINDS_OF_FIFTY[n % len(KINDS_OF_FIFTY)]
        write_case(root, f"c{n + 1:02d}-{kind.replace('_', '-')}", kind, snapshot(rows, stop_from=8))
    return root


def make_large_case(root: Path, case_id: str = "c99-large", rows: int = 100_000) -> Path:
    """One case whose snapshot has ``rows`` daily rows (compact JSON, as an export would be)."""
    return write_case(root, case_id, "ordinary", snapshot(rows, campaigns=3, stop_from=8), indent=None)
