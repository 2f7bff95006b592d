"""The weekly run's records: an account's ``findings.json`` and the run's ``weekly.json``, their types and readers.

The TypedDicts are the one definition of both files' shapes: the code that
writes and reads them is type-checked against them, and the readers check a
file against them (``runs/json_types.py``), so a hand-edited or truncated
file is refused with the file and the field named (``ResultsError``), never a
KeyError in the app. An account's status is one of ``STATUSES``; the run's
status is a run's (``runs/manifest_fields.RunStatus``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal, NotRequired, TypedDict, cast, get_args

from ..runs.manifest_fields import RunStatus, Usage
from ..runs.result_files import ResultsError, read_result_json

AccountStatus = Literal["ready to send", "hold for review", "failed", "skipped", "not run"]
READY: Final = "ready to send"
HOLD: Final = "hold for review"
FAILED: Final = "failed"
SKIPPED: Final = "skipped"
NOT_RUN: Final = "not run"
STATUSES: tuple[AccountStatus, ...] = get_args(AccountStatus)


class UngroundedFigure(TypedDict):
    finding: int  # 1-based, as the report numbers them
    field: str | None
    text: str | None
    reason: str | None


class WeeklyFinding(TypedDict):
    id: str
    scope: str | None
    full_id: NotRequired[str | None]
    claim: NotRequired[str | None]
    evidence: NotRequired[str | None]
    severity: NotRequired[str | None]
    figures: list[dict[str, Any]]  # the scored figures (scoring/score.py's rows), less their finding_index


class SecondOpinion(TypedDict):
    auditor: str | None  # the reference auditor's model name; None when it was not run
    error: str | None
    auditor_findings: NotRequired[list[dict[str, Any]]]
    auditor_only: list[dict[str, Any]]
    assistant_only: list[WeeklyFinding]


class AccountResult(TypedDict):
    """``accounts/<name>/findings.json``."""

    account: str
    status: AccountStatus
    reason: str
    holds: list[str]
    findings: list[WeeklyFinding]
    ungrounded: list[UngroundedFigure]
    figures: int
    second_opinion: SecondOpinion | None
    account_id: NotRequired[str | None]
    display_name: NotRequired[str | None]
    period: NotRequired[str | None]
    snapshot: NotRequired[str]
    model: NotRequired[str | None]
    cached: NotRequired[bool]
    input_tokens: NotRequired[int]
    output_tokens: NotRequired[int]
    carried_from: NotRequired[str | None]  # kept from the run it replaced, started then


class AccountLine(TypedDict):
    account: str
    status: AccountStatus
    reason: NotRequired[str]
    carried_from: NotRequired[str | None]


class WeeklyManifest(TypedDict, total=False):
    """``weekly.json``."""

    kind: Literal["weekly"]
    run_id: str | None
    started_at: str
    finished_at: str
    status: RunStatus
    stamp: dict[str, Any]  # the eval manifest's fields the run ran behind (stamp.StampCheck.stamp)
    figures: str
    accounts_dir: str | None
    backend: str
    backend_details: dict[str, Any]
    reference: dict[str, Any] | None
    concurrency: int
    batch: bool
    batches: list[str]
    batch_state: str
    usage: Usage
    counts: dict[str, int]
    accounts: list[AccountLine]


FIX = "move the weekly run's folder away and run it again"


def read_account_result(path: Path) -> AccountResult:
    """An account's findings.json, checked: ResultsError naming the file and the field (FileNotFoundError as is)."""
    data = cast(AccountResult, read_result_json(path, AccountResult, "the account's findings", FIX))
    if data["account"] != path.parent.name:
        raise ResultsError(f"{path}:1: the account's findings name the account {data['account']!r}, not "
                           f"{path.parent.name!r} (the folder it is in); {FIX}")
    return data


def read_weekly_manifest(path: Path) -> WeeklyManifest:
    """A weekly run's weekly.json, checked: ResultsError naming the file and the field (FileNotFoundError as is)."""
    return cast(WeeklyManifest, read_result_json(path, WeeklyManifest, "the weekly run's record", FIX))
