"""The weekly run's files read back (weekly/results.py): a hand-edited findings.json or weekly.json is refused
naming the file and the field, never a KeyError in the app; the app's loader leaves such an account out and says why."""

from __future__ import annotations

import json

import pytest

from reviewtui.runs.result_files import ResultsError
from reviewtui.weekly.results import read_weekly_manifest
from reviewtui.weekly.folder import WeeklyPaths
from reviewtui.weekly.run import load_results


def account(name: str, **changes) -> dict:
    """findings.json as ``run.skipped_result`` writes it for an account that could not be read."""
    data = {"account": name, "account_id": None, "display_name": None, "period": None, "snapshot": f"/a/{name}.json",
            "status": "skipped", "reason": "not a snapshot", "holds": [], "findings": [], "ungrounded": [],
            "figures": 0, "second_opinion": None}
    data.update(changes)
    return data


def write(paths: WeeklyPaths, name: str, data: dict) -> None:
    path = paths.findings(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_each_account_is_read_and_checked(tmp_path):
    paths = WeeklyPaths(tmp_path / "weekly" / "2026-12-07")
    write(paths, "shoes", account("shoes"))
    write(paths, "tea", account("tea", status="sent"))
    write(paths, "wool", {k: v for k, v in account("wool").items() if k != "second_opinion"})
    write(paths, "yarn", account("yarn", findings=[{"id": "tracking.conversions_stopped", "scope": None}]))
    problems: list[str] = []
    results = load_results(paths, problems)
    assert list(results) == ["shoes"] and results["shoes"]["status"] == "skipped"
    fix = "move the weekly run's folder away and run it again"
    assert problems == [
        f"{paths.findings('tea')}:1: the account's findings has the wrong shape: /status must be one of 'ready to send', "
        f"'hold for review', 'failed', 'skipped', 'not run', not 'sent'; {fix}",
        f"{paths.findings('wool')}:1: the account's findings has the wrong shape: the top level has no 'second_opinion'; {fix}",
        f"{paths.findings('yarn')}:1: the account's findings has the wrong shape: /findings/0 has no 'figures'; {fix}",
    ]
    with pytest.raises(ResultsError, match="/status must be one of"):
        load_results(paths)


def test_an_account_filed_under_another_name_is_refused(tmp_path):
    paths = WeeklyPaths(tmp_path / "weekly" / "2026-12-07")
    write(paths, "shoes", account("boots"))
    problems: list[str] = []
    assert load_results(paths, problems) == {}
    assert problems == [f"{paths.findings('shoes')}:1: the account's findings name the account 'boots', not 'shoes' "
                        "(the folder it is in); move the weekly run's folder away and run it again"]


def test_the_run_record_is_checked(tmp_path):
    path = tmp_path / "weekly.json"
    path.write_text(json.dumps({"kind": "weekly", "status": "complete", "counts": {"ready to send": "two"}}), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"weekly.json:1: the weekly run's record has the wrong shape: "
                                           r"/counts/ready to send must be a whole number, not 'two'"):
        read_weekly_manifest(path)
    path.write_text(json.dumps({"kind": "weekly", "status": "complete", "counts": {"ready to send": 2}}), encoding="utf-8")
    assert read_weekly_manifest(path)["counts"] == {"ready to send": 2}
