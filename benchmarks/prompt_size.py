"""Input size of the assistant's request on the case set (docs/claude.md, "Room to compute").

Prints the system prompt and schema size, the daily rows and snapshot bytes per
case, the whole request's text at an estimated 4 characters a token, and what
precomputed per-campaign and per-day totals would add to each snapshot.

Run: python benchmarks/prompt_size.py [CASES_DIR]
"""

from __future__ import annotations

import json
import statistics
import sys

from reviewtui import assistant
from reviewtui.caseset.cases import load_case_set
from reviewtui.caseset.snapshot_compact import compact_text

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value")


def totals_size(daily: list[dict]) -> int:
    """Characters of per-campaign period totals plus per-day account totals, as indented JSON."""
    per_campaign: dict = {}
    per_day: dict = {}
    for row in daily:
        for key, bucket in ((row.get("campaign_id"), per_campaign), (row.get("date"), per_day)):
            sums = bucket.setdefault(str(key), {})
            for metric in METRICS:
                value = row.get(metric)
                if isinstance(value, (int, float)):
                    sums[metric] = round(sums.get(metric, 0) + value, 2)
    return len(json.dumps({"campaign_totals": per_campaign, "daily_account_totals": per_day}, indent=2))


def main(cases_dir: str = "cases") -> None:
    cases = load_case_set(cases_dir).cases
    system = len(assistant.system_prompt())
    schema = len(json.dumps(assistant.output_schema()))
    rows, snapshot_bytes, request_chars, extra = [], [], [], []
    for case in cases:
        text = case.snapshot.text
        daily = json.loads(text).get("daily") or []
        rows.append(len(daily))
        snapshot_bytes.append(len(text.encode("utf-8")))
        request_chars.append(system + schema + len(assistant.user_message(compact_text(text))))
        extra.append(totals_size(daily))
    med = statistics.median
    print(f"cases {len(cases)}; system prompt {system:,} chars, schema {schema:,} chars "
          f"(the prefix shared by every case, about {(system + schema) / 4:,.0f} tokens)")
    print(f"daily rows per case: min {min(rows)}, median {med(rows):g}, max {max(rows)}")
    print(f"snapshot bytes: min {min(snapshot_bytes):,}, median {med(snapshot_bytes):,.0f}, max {max(snapshot_bytes):,}")
    print(f"whole request text: median {med(request_chars):,.0f} chars, about {med(request_chars) / 4:,.0f} tokens "
          f"(max {max(request_chars) / 4:,.0f}, mean {statistics.mean(request_chars) / 4:,.0f})")
    print(f"precomputed totals would add: median {med(extra):,.0f} chars (about {med(extra) / 4:,.0f} tokens), "
          f"max {max(extra):,}")


if __name__ == "__main__":
    main(*sys.argv[1:])
