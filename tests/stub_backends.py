"""Stub assistants for tests: deliberately broken ones (issue 2 item 8) and scripted ones.

Each stub is a real ``Backend`` (usable with ``reviewtui.commands.eval.main(argv,
backend=...)``, ``run_eval`` or ``run_cases``) and can also write its answers
as a replay folder (``write_replay_dir``) so a test drives the real
``--backend replay`` path with files on disk.

- ``EmptyAssistant``: returns no findings at all.
- ``EverythingAssistant``: every taxonomy id, unscoped and with every campaign
  of the case as scope, including ids it could not know.
- ``CorrectAssistant``: the case's must_find, evidence copied from the case;
  ``made_up`` adds one invented figure to one case.
- ``ScriptedBackend``: per case, a raw text, a ready ``CaseOutput`` or an
  exception to raise; anything unlisted gets an empty findings list.
- ``GatedBackend``: finishes cases only as a test releases them, for
  concurrency and cancellation tests.
- ``AlternatingAssistant``: a different stub's answer on each repeat, for
  the consistency figures of ``--repeats``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Callable, Iterable

from reviewtui import taxonomy
from reviewtui.backends.base import Backend, CaseOutput
from reviewtui.caseset.cases import Case

EMPTY_OUTPUT = json.dumps({"findings": []})
FIXTURE_CASES = Path(__file__).parent / "fixtures" / "cases"


def copy_fixture_cases(dest: Path) -> Path:
    """A private copy of the fixture case set (tests may break or edit it)."""
    shutil.copytree(FIXTURE_CASES, dest)
    return dest


def finding(kind: str, scope: str | None = None, *, claim: str = "The rows show this problem.",
            evidence: str = "", severity: str = "medium") -> dict:
    return {"id": kind, "scope": scope, "claim": claim, "evidence": evidence, "severity": severity}


def output_text(findings: Iterable[dict]) -> str:
    return json.dumps({"findings": list(findings)}, ensure_ascii=False)


class TextAssistant(Backend):
    """A backend whose answer is a function of the case alone."""

    name = "stub"
    model = None

    def text_for(self, case: Case) -> str:
        raise NotImplementedError

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        return CaseOutput(case.case_id, self.text_for(case))

    def write_replay_dir(self, cases: Iterable[Case], folder: Path) -> Path:
        """Write ``<case_id>.json`` with this stub's raw answer for each case."""
        folder.mkdir(parents=True, exist_ok=True)
        for case in cases:
            (folder / f"{case.case_id}.json").write_text(self.text_for(case), encoding="utf-8")
        return folder


class EmptyAssistant(TextAssistant):
    name = "stub-empty"

    def text_for(self, case: Case) -> str:
        return EMPTY_OUTPUT


class EverythingAssistant(TextAssistant):
    name = "stub-everything"

    def text_for(self, case: Case) -> str:
        scopes: list[str | None] = [None, *sorted(case.snapshot.campaign_ids)]
        return output_text(finding(kind, scope) for kind in taxonomy.kind_ids() for scope in scopes)


class CorrectAssistant(TextAssistant):
    """The senior's must_find as the answer; ``made_up=(case_id, text)`` appends an invented figure."""

    name = "stub-correct"

    def __init__(self, made_up: tuple[str, str] | None = None) -> None:
        self.made_up = made_up

    def text_for(self, case: Case) -> str:
        findings = []
        for entry in case.must_find:
            findings.append(finding(entry.kind, entry.scope, evidence=entry.evidence))
        if self.made_up and self.made_up[0] == case.case_id and findings:
            findings[0]["evidence"] += f"; this wasted {self.made_up[1]} over the month"
        return output_text(findings)


class ScriptedBackend(Backend):
    """Answers from a script: ``{case_id: raw text | CaseOutput | Exception}``."""

    name = "stub-scripted"
    model = None

    def __init__(self, script: dict[str, str | CaseOutput | BaseException], default: str = EMPTY_OUTPUT) -> None:
        self.script = script
        self.default = default
        self.calls: list[tuple[str, int]] = []

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        self.calls.append((case.case_id, repeat))
        answer = self.script.get(case.case_id, self.default)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, CaseOutput):
            return answer
        return CaseOutput(case.case_id, answer)


class GatedBackend(Backend):
    """Each case waits until the test releases it; records how many run at once."""

    name = "stub-gated"
    model = "stub-model"

    def __init__(self, answer: Callable[[Case], CaseOutput] | None = None) -> None:
        self.answer = answer or (lambda case: CaseOutput(case.case_id, EMPTY_OUTPUT, input_tokens=100, output_tokens=10))
        self.started: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.released: dict[str, asyncio.Event] = {}
        self.closed = False

    def gate(self, case_id: str) -> asyncio.Event:
        return self.released.setdefault(case_id, asyncio.Event())

    def release(self, case_id: str) -> None:
        self.gate(case_id).set()

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        self.started.append(case.case_id)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await self.gate(case.case_id).wait()
            return self.answer(case)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        self.closed = True


class AlternatingAssistant(Backend):
    """Per repeat, a different answer: ``answers[repeat % len(answers)]`` is a stub whose text is used.

    With ``(CorrectAssistant(), EmptyAssistant())`` every case passes on even
    repeats and finds nothing on odd ones: its verdict flips between repeats.
    ``only`` limits the alternation to those case ids (the rest get the first answer).
    """

    name = "stub-alternating"
    model = None

    def __init__(self, *answers: TextAssistant, only: Iterable[str] | None = None) -> None:
        self.answers = answers
        self.only = set(only) if only is not None else None

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        alternate = self.only is None or case.case_id in self.only
        stub = self.answers[repeat % len(self.answers)] if alternate else self.answers[0]
        return CaseOutput(case.case_id, stub.text_for(case))
