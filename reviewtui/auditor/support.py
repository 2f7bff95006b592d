"""Do the rows support a finding id? The reference auditor as a second opinion.

``check_support(snapshot, "waste.zero_conv_campaign@333")`` runs the audit
(once per snapshot text; cached in memory and on disk) and answers from its assessments:
``supported`` True (with the rows and the figures), False (with why not) or
None (the auditor cannot assess it here: a missing section, broken data, or
no check for it). ``support_problems(case_set)`` turns the answers into
``reviewtui check`` warnings: a must_find the rows do not support, a
must_not_say they do.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import __version__, taxonomy
from ..cancellation import stop_if_set
from ..files import parse_cache
from .audit import AUDITOR_VERSION, SUMMARY_KIND, AuditResult, audit
from .findings import Assessment
from ..domain.thresholds import Thresholds

# Kinds where an account-wide finding also answers for each campaign in it
ACCOUNT_COVERS_CAMPAIGNS = ("tracking.", "data.")


@dataclass
class Support:
    finding_id: str
    supported: bool | None  # None: cannot be assessed from this snapshot
    rows: list[str] = field(default_factory=list)  # JSON Pointers into snapshot.json
    figures: str = ""  # the evidence line, with the figures from the rows
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class AuditCache:
    """Audits by snapshot content (the SHA-256 of its text), the most recent ``size`` in memory and
    every one on disk (``parse_cache``'s ``audits/`` folder). Keyed by content, not by snapshot
    object: the app's cases view and its author screen load the same snapshot.json each.

    The audit under other thresholds than taxonomy.yaml's (``REVIEWTUI_AUDITOR_THRESHOLDS``, which the
    rules backend reads) is kept apart, under their digest.

    Thread-safe, and one audit at a time per content: a caller asking while another thread audits the
    same content waits for that audit's result (the app's cases view and its author screen may ask
    for the same 100,000-row snapshot at once; an audit of it takes seconds)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._results: OrderedDict[str, AuditResult] = OrderedDict()
        self._guard = threading.Lock()  # guards _results and _running
        self._running: dict[str, threading.Lock] = {}  # content -> held while that content is being audited

    def clear(self) -> None:
        """Forget every audit kept in memory (the disk keeps its own)."""
        with self._guard:
            self._results.clear()

    def get(self, snapshot: Any, thresholds: Thresholds | None = None, *,
            cancel: threading.Event | None = None) -> AuditResult:
        """The audit of a ``Snapshot`` (or parsed dict) under ``thresholds`` (taxonomy.yaml's when None),
        computed once per distinct content and thresholds in force. Once ``cancel`` is set, a wait for
        another caller's audit or this caller's own audit stops with ``cancellation.Cancelled``, and
        nothing is kept for it, in memory or on disk."""
        content, tag = _audit_key(snapshot, thresholds)
        key = content + tag
        with self._guard:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
            running = self._running.setdefault(key, threading.Lock())
        while not running.acquire(timeout=0.05):  # another caller audits this content: wait for its result
            stop_if_set(cancel)
        try:  # released however the audit ends, so a waiting caller then audits itself
            with self._guard:
                if key in self._results:
                    return self._results[key]
            # On disk too: `reviewtui check` and every eval ask about the same fifty snapshots, and auditing
            # them all is most of an eval's start-up before its first request
            raw, salt = content.encode(), _disk_salt()
            salt = salt + tag if salt else salt
            result = parse_cache.load(raw, salt, folder="audits") if salt else None
            if not isinstance(result, AuditResult):
                # the rows are read only now: a snapshot audited before (ParsedBefore) is not parsed for its key
                result = audit(getattr(snapshot, "data", snapshot), thresholds, cancel=cancel)  # stopped, it raises before anything is stored
                if salt:
                    parse_cache.store(raw, result, salt, folder="audits")
            with self._guard:
                self._results[key] = result
                # The lock leaves _running only with a result: after an audit that failed or was stopped, a
                # caller waiting on it audits next, and one arriving meanwhile waits for that one too
                self._running.pop(key, None)
                if len(self._results) > self.size:
                    self._results.popitem(last=False)
            return result
        finally:
            running.release()


def _audit_key(snapshot: Any, thresholds: Thresholds | None) -> tuple[str, str]:
    """The content an audit is of and the tag of its thresholds: audits under other thresholds than
    taxonomy.yaml's (REVIEWTUI_AUDITOR_THRESHOLDS) are other audits, their digest in the key."""
    digest = thresholds.digest() if thresholds is not None else _default_digest()
    return content_sha256(snapshot), "" if digest == _default_digest() else f"|thresholds {digest}"


@dataclass(frozen=True)
class AuditAnswer:
    """What the rules backend answers from an audit: its findings as the assistant's JSON text, and what it
    logs (the data worked around, what could not be assessed)."""

    text: str
    data_notes: list[str]
    not_assessed: list[str]


def audit_answer(snapshot: Any, thresholds: Thresholds | None = None) -> AuditAnswer:
    """The rules backend's answer for a snapshot under ``thresholds``: kept on disk beside the audit, under
    the same key and salt (``audit-answers/``), so a rerun reads a few kilobytes instead of the whole
    audit; computed from ``audit_cached`` otherwise."""
    content, tag = _audit_key(snapshot, thresholds)
    salt = _disk_salt()
    raw, salt = content.encode(), (salt + tag if salt else salt)
    kept = parse_cache.load(raw, salt, folder="audit-answers") if salt else None
    if isinstance(kept, AuditAnswer):
        return kept
    result = audit_cached(snapshot, thresholds)
    answer = AuditAnswer(result.to_json(), list(result.data_notes), list(result.not_assessed))
    if salt:
        parse_cache.store(raw, answer, salt, folder="audit-answers")
    return answer


def content_sha256(snapshot: Any) -> str:
    """What an audit is kept under: the SHA-256 of a ``Snapshot``'s file bytes (kept on it), or of the
    canonical JSON of a parsed dict or of a snapshot built in memory without a text."""
    if getattr(snapshot, "raw", b""):  # a Snapshot with its file's bytes (one built in memory has none)
        return str(snapshot.sha256)
    data = getattr(snapshot, "data", snapshot)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()


AUDITS = AuditCache()  # the process's audits: the check, the eval's rules backend and the app share them


def audit_cached(snapshot: Any, thresholds: Thresholds | None = None, *,
                 cancel: threading.Event | None = None) -> AuditResult:
    """The audit of a ``Snapshot`` (or parsed dict) from ``AUDITS``, computed once per distinct content
    and thresholds: the support check and the rules backend of the same run share one. ``cancel``: as
    ``AuditCache.get``."""
    return AUDITS.get(snapshot, thresholds, cancel=cancel)


@lru_cache(maxsize=1)
def _default_digest() -> str:
    """The digest of taxonomy.yaml's thresholds, the support check's."""
    return Thresholds().digest()


@lru_cache(maxsize=1)
def _disk_salt() -> str | None:
    """What an audit kept on disk was computed by: the package version, the auditor's version and the
    content of every core source and data file (``parse_cache.package_digest``: the detectors, the
    derived index they quote, the taxonomy and its thresholds), so an edited checkout, editable install
    included, audits again. None when the sources cannot be read: then nothing is kept on disk."""
    digest = parse_cache.package_digest()
    return f"audit|{__version__}|{AUDITOR_VERSION}|{digest}" if digest else None


def check_support(snapshot: Any, finding_id: str, *, result: AuditResult | None = None,
                  cancel: threading.Event | None = None) -> Support:
    """Whether the snapshot's rows support ``finding_id`` (``kind`` or ``kind@campaign``). Once
    ``cancel`` is set, the audit it waits for stops with ``cancellation.Cancelled`` (``AuditCache.get``)."""
    kind, scope = taxonomy.split_id(finding_id)
    if not taxonomy.is_kind(kind):
        return Support(finding_id, None, explanation=f"{kind!r} is not a taxonomy id")
    result = result or audit_cached(snapshot, cancel=cancel)
    if kind == SUMMARY_KIND:
        issues = [a for a in result.findings if a.kind != SUMMARY_KIND]
        if issues:
            names = ", ".join(taxonomy.join_id(a.kind, a.scope) for a in issues)
            return Support(finding_id, False, [p for a in issues for p in a.rows][:12], explanation=f"the rows show: {names}")
        return Support(finding_id, True, explanation="every check passed")
    items = [a for a in result.assessments if a.kind == kind]
    if scope is not None:
        return _scoped(finding_id, kind, scope, items)
    return _unscoped(finding_id, items)


def _answer(finding_id: str, chosen: list[Assessment], supported: bool | None) -> Support:
    rows = [p for a in chosen for p in a.rows]
    figures = " ".join(a.evidence for a in chosen if a.supported)
    explanation = "; ".join(dict.fromkeys(a.explanation for a in chosen if a.explanation))
    return Support(finding_id, supported, list(dict.fromkeys(rows)), figures, explanation)


def _unscoped(finding_id: str, items: list[Assessment]) -> Support:
    if not items:
        return Support(finding_id, None, explanation="the reference auditor recorded no assessment of this kind")
    positive = [a for a in items if a.supported]
    if positive:
        return _answer(finding_id, positive, True)
    negative = [a for a in items if a.supported is False]
    unknown = [a for a in items if a.supported is None]
    if unknown and not any(a.scope is None for a in negative):
        return _answer(finding_id, unknown, None)
    return _answer(finding_id, [a for a in negative if a.scope is None] or negative, False)


def _scoped(finding_id: str, kind: str, scope: str, items: list[Assessment]) -> Support:
    exact = [a for a in items if a.scope == scope]
    for wanted in (True, False, None):
        chosen = [a for a in exact if a.supported is wanted]
        if chosen:
            return _answer(finding_id, chosen, wanted)
    account = [a for a in items if a.scope is None]
    positive = [a for a in account if a.supported]
    if positive and kind.startswith(ACCOUNT_COVERS_CAMPAIGNS):
        return _answer(finding_id, positive, True)
    others = sorted({str(a.scope) for a in items if a.supported and a.scope is not None})
    if others:
        return Support(finding_id, False, explanation=f"the rows support it for campaign {', '.join(others)}, not for {scope}")
    unknown = [a for a in account if a.supported is None]
    if unknown:
        return _answer(finding_id, unknown, None)
    negative = [a for a in account if a.supported is False]
    if negative:
        return _answer(finding_id, negative, False)
    return Support(finding_id, None, explanation=f"the reference auditor has no assessment of campaign {scope} for this kind")


def support_problems(case_set: Any) -> list[Any]:
    """``reviewtui check`` warnings: must_find the rows do not support, must_not_say they do."""
    from ..caseset.cases import Problem  # cases imports ruamel; only the check needs it

    problems: list[Problem] = []
    for case in case_set.cases:
        if case.snapshot is not None:
            problems += [Problem(case.expected_path, line, message, "warning")
                         for line, message in _case_support_warnings(case)]
    return problems


def _case_support_warnings(case: Any) -> list[tuple[int, str]]:
    """The case's support warnings as (line, message), kept on disk (``support/``) by the snapshot's content
    and the checked entries (list, id, line: what the warnings say), salted as the audits are; so a rerun
    of the check does not read the whole audit back. The entries, not expected.yaml's bytes: the app
    checks a case edited in memory."""
    entries = [(entry.list_name, entry.id, entry.line) for entry in (*case.must_find, *case.must_not_say)]
    salt = _disk_salt()
    raw = json.dumps([content_sha256(case.snapshot), entries]).encode("utf-8")
    kept = parse_cache.load(raw, salt, folder="support") if salt else None
    if isinstance(kept, list):
        return kept
    warnings: list[tuple[int, str]] = []
    result = audit_cached(case.snapshot)
    for entry in case.must_find:
        answer = check_support(case.snapshot, entry.id, result=result)
        if answer.supported is False:
            warnings.append((entry.line, f"must_find {entry.id}: the reference auditor finds the rows do not "
                                         f"support it ({answer.explanation})"))
    for entry in case.must_not_say:
        answer = check_support(case.snapshot, entry.id, result=result)
        if answer.supported:
            warnings.append((entry.line, f"must_not_say {entry.id}: the reference auditor finds the rows support "
                                         f"it ({answer.figures})"))
    if salt:
        parse_cache.store(raw, warnings, salt, folder="support")
    return warnings
