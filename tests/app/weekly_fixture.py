"""A weekly run on disk for the weekly view's tests: two accounts, one ready and one held for review."""

from __future__ import annotations

import json
from pathlib import Path

from reviewtui.backends import create_backend
from reviewtui.weekly.accounts import load_accounts
from reviewtui.weekly.folder import WeeklyPaths
from reviewtui.weekly.run import run_weekly
from tests.stub_backends import FIXTURE_CASES, ScriptedBackend

DAY = "2026-12-07"
MADE_UP = "$48,213.77"


async def write_weekly_run(root: Path) -> WeeklyPaths:
    """Accounts in ``root/accounts``, their weekly run in ``root/results/weekly/<DAY>``."""
    folder = root / "accounts"
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in (("outdoor", "c01-tracking-stopped"), ("shoes", "c02-brand-lost-is")):
        data = json.loads((FIXTURE_CASES / source / "snapshot.json").read_text(encoding="utf-8"))
        (folder / f"{name}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    outdoor = json.loads((folder / "outdoor.json").read_text(encoding="utf-8"))
    first = outdoor["daily"][0]
    script = {
        "outdoor": json.dumps({"findings": [
            {"id": "tracking.conversions_stopped", "scope": None, "severity": "high",
             "claim": "Conversions stopped being recorded.", "evidence": f"Campaign {first['campaign_id']}: cost was {first['cost']} on {first['date']}."}]}),
        "shoes": json.dumps({"findings": [
            {"id": "pacing.overspend", "scope": None, "severity": "medium",
             "claim": "The account spends ahead of its budget.", "evidence": f"Spend was {MADE_UP} this month."}]}),
    }
    paths = WeeklyPaths(root / "results" / "weekly" / DAY)
    await run_weekly(load_accounts(folder), ScriptedBackend(script), create_backend("rules"), paths=paths,
                           stamp={"prompt_version": "audit-v1", "model": "claude-sonnet-5-5"})
    return paths
