"""A weekly stamp made the real way, for the weekly run's tests and the tamper tests.

``reviewtui eval --backend claude`` over a copy of the project's fifty cases
(``cases/``, ``writeups/``, ``disputed.md``), through the real SDK against the
fake Messages API, whose planned answer for each case is the reference
auditor's own answer to it (recall 1.0, nothing fabricated: the gate
passes). It is made once per test process (``stamp_kit`` in conftest.py) in
a template folder; each test works in its own copy (``stamped``), against
the same fake server, since the stamp records the endpoint it asked.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.backends.rules import RulesBackend
from reviewtui.caseset.cases import Case, load_case_set
from reviewtui.commands.eval import main as eval_main
from reviewtui.weekly.accounts import load_account
from tests.fake_messages_api import FakeMessagesAPI, answer

REPO = Path(__file__).resolve().parents[1]
KEY = "fake-anthropic-key-stamp-kit-3b9c7e"
PROJECT_PARTS = ("cases", "writeups", "disputed.md")
# The project's case set, the one a stamp must be made on.
CASE_COUNT = len(list((REPO / "cases").glob("*/expected.yaml")))
EVAL_ARGS = ("--backend", "claude", "--timeout", "5", "--max-retries", "0")


def copy_project(dest: Path) -> Path:
    """The project's case set (cases/, writeups/, disputed.md) copied into ``dest``; returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for part in PROJECT_PARTS:
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, dest / part)
        else:
            shutil.copy(source, dest / part)
    return dest


def auditor_text(case: Case) -> str:
    """The reference auditor's raw answer to ``case`` (its own event loop, so an async test may ask too)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, RulesBackend().run(case)).result().raw_text


def auditor_answers(cases_dir: Path) -> dict[str, str]:
    """The reference auditor's raw answer for each case, by the case's account id (the fake's marker)."""
    return {case.snapshot.data["account"]["id"]: auditor_text(case) for case in load_case_set(cases_dir).cases}


@dataclass
class StampKit:
    api: FakeMessagesAPI
    template: Path  # cases/, writeups/, disputed.md and results/ (the stamp and its response cache)
    answers: dict[str, str] = field(default_factory=dict)  # account id -> the auditor's answer

    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": self.api.base_url}

    def copy_to(self, dest: Path) -> Path:
        shutil.copytree(self.template, dest, symlinks=True)
        return dest

    def plan_cases(self) -> None:
        """Every case answered as the auditor answers it (what made the stamp pass)."""
        for marker, text in self.answers.items():
            self.api.plan(marker, answer(text))

    def plan_account(self, snapshot: Path, marker: str) -> str:
        """The account at ``snapshot`` (whose account id is ``marker``) answered as the auditor answers it."""
        text = auditor_text(load_account(marker, snapshot).as_case())
        self.api.plan(marker, answer(text))
        return text


def make_stamp_kit(api: FakeMessagesAPI, root: Path, monkeypatch) -> StampKit:
    """Make the template: the project's cases and a passing stamp of them through ``api``."""
    template = copy_project(root / "template")
    kit = StampKit(api, template, auditor_answers(template / "cases"))
    kit.plan_cases()
    for name, value in kit.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(template)  # run where the project's cases/ is, as a CI job does: the stamp of its cases
    code = eval_main([*EVAL_ARGS])
    manifest = json.loads((template / "results" / f"{_version()}" / "manifest.json").read_text(encoding="utf-8"))
    assert code == 0 and manifest["gate"]["passed"] is True, manifest["gate"]
    return kit


def _version() -> str:
    from reviewtui import assistant

    return assistant.PROMPT_VERSION


def account_snapshot(folder: Path, stem: str, source: Path, marker: str, **account: object) -> Path:
    """``folder/<stem>.json``: the snapshot at ``source`` with the account id ``marker`` (and other account fields)."""
    data = json.loads(source.read_text(encoding="utf-8"))
    data["account"].update({"id": marker, **account})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
