"""The reference auditor's "do the rows support this id?" check, as the app shows it.

``reviewtui.auditor.support.check_support(snapshot, finding_id)`` belongs to
the reference auditor. It is imported when the first check runs (the auditor
is not needed to draw the first screen), and the app says "not available" when
a check fails, so authoring never depends on it. No Textual import here.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..cancellation import Cancelled
from ..caseset.snapshot import Snapshot


@dataclass(frozen=True)
class SupportVerdict:
    available: bool
    supported: bool | None  # None: the check could not decide or is not available
    detail: str

    def __str__(self) -> str:
        if not self.available:
            return f"support check not available ({self.detail})"
        if self.supported is None:
            return f"reference auditor: undecided. {self.detail}".strip()
        word = "supported" if self.supported else "NOT supported"
        return f"reference auditor: {word} by the rows. {self.detail}".strip()


    def reading(self, list_name: str) -> tuple[str, str]:
        """The verdict as it reads for an entry of ``list_name``, and its tone ("good", "bad" or "neutral").

        Rows that do not support an id are what a must_not_say entry wants (the assistant must not say
        it), and what a must_find entry must not have."""
        if not self.available or self.supported is None:
            return str(self), "neutral"
        detail = f" {self.detail}".rstrip() if self.detail else ""
        if list_name == "must_not_say":
            if self.supported:
                return f"reference auditor: the rows DO support this; is it really wrong to say?{detail}", "bad"
            return f"reference auditor: not supported by the rows, as a must_not_say entry should be.{detail}", "good"
        if list_name == "must_find":
            return str(self), "good" if self.supported else "bad"
        return str(self), "neutral"


def _check_function() -> Any:
    from ..auditor.support import check_support as auditor_check_support

    return auditor_check_support


class SupportCheck(Protocol):
    """A support check: one id's verdict on a snapshot. Once ``cancel`` is set, it may stop with
    ``cancellation.Cancelled`` at its next safe point (the reference auditor's: between its steps)."""

    def __call__(self, snapshot: Snapshot | None, finding_id: str, *,
                 cancel: threading.Event | None = None) -> SupportVerdict: ...


def check_support(snapshot: Snapshot | None, finding_id: str, *, cancel: threading.Event | None = None) -> SupportVerdict:
    """The reference auditor's verdict; ``Cancelled`` (not an Exception) passes through once ``cancel`` is set."""
    if snapshot is None:
        return SupportVerdict(False, None, "snapshot still loading")
    check = _check_function()
    try:
        result = check(snapshot, finding_id, cancel=cancel)
    except Exception as exc:  # the check is advisory: never let it break authoring
        return SupportVerdict(False, None, f"the check failed: {type(exc).__name__}: {exc}")
    return _interpret(result)


def _interpret(result: Any) -> SupportVerdict:
    """Accept a bool, a mapping or an object with ``supported`` and a reason-like field."""
    if isinstance(result, SupportVerdict):
        return result
    if isinstance(result, bool):
        return SupportVerdict(True, result, "")
    get = result.get if isinstance(result, dict) else lambda key, default=None: getattr(result, key, default)
    supported = get("supported", None)
    if supported is None and get("verdict", None) is not None:
        verdict = str(get("verdict")).lower()
        supported = True if verdict in ("supported", "yes", "true") else False if verdict in ("unsupported", "no", "false", "not_supported") else None
    detail = next((str(get(k)) for k in ("reason", "detail", "explanation", "message", "evidence") if get(k, None)), "")
    return SupportVerdict(True, None if supported is None else bool(supported), detail)


# ---------------------------------------------------------------------------------------------
# The author screen's support check: once per snapshot content, one at a time, cancellable
# ---------------------------------------------------------------------------------------------


class CheckToken:
    """One request for verdicts; ``SupportChecks.cancel(token)`` withdraws it."""

    def __init__(self) -> None:
        self.cancelled = False  # withdrawn: nobody reads this request's verdicts
        self.stop = threading.Event()  # set: the check running for this request stops at its next safe point
        self.key: str | None = None


@dataclass
class _Entry:
    """The verdicts known for one snapshot content, and who is asking for them."""

    verdicts: dict[str, SupportVerdict] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)  # held while a check of this content runs
    requests: set[CheckToken] = field(default_factory=set)  # the requests under way for this content
    running: CheckToken | None = None  # the request whose check of this content runs now


def content_key(snapshot: Snapshot) -> str:
    """The snapshot's content, as a key: SHA-256 of its text (of its data when there is no text)."""
    text = snapshot.text or json.dumps(snapshot.data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SupportChecks:
    """The reference auditor's verdicts on must_find ids, computed once per snapshot content.

    The reference auditor audits a snapshot once per id asked (its own cache keeps the last audits),
    and on a 100,000-row snapshot an audit takes seconds of CPU. Verdicts are kept here by the
    snapshot's content and the id, so reopening an unchanged case or re-validating after an edit asks
    only for ids not answered yet. One lock per content: a second screen, or a newer validation, of
    the same snapshot waits for the check under way and then reads its answers instead of running a
    second audit beside it. ``cancel(token)`` withdraws a request: once no request waits for that
    content, the check running for it is asked to stop (its token's ``stop`` event), and the auditor
    stops at its next step, leaving nothing half written.
    """

    def __init__(self, check: SupportCheck, keep: int = 8) -> None:
        self.check = check
        self.keep = keep
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()  # guards _entries, their requests and the check each runs
        self.checks_run = 0  # how many times ``check`` was called (for tests and benchmarks)

    def verdict(self, snapshot: Snapshot | None, finding_id: str) -> SupportVerdict:
        """One id's verdict (the tag modal's), from what is known or checked now."""
        found = self.verdicts(snapshot, [finding_id], CheckToken())
        return found[finding_id] if found else check_support(None, finding_id)

    def verdicts(self, snapshot: Snapshot | None, finding_ids: list[str],
                 token: CheckToken) -> dict[str, SupportVerdict] | None:
        """Every id's verdict, or None when the request was cancelled first. Runs in a worker thread."""
        if snapshot is None:
            return {fid: self.check(None, fid) for fid in finding_ids}
        key = content_key(snapshot)
        with self._lock:
            entry = self._entries.setdefault(key, _Entry())
            self._entries.move_to_end(key)
            entry.requests.add(token)
            token.key = key
            self._forget_old()
        try:
            while not entry.lock.acquire(timeout=0.05):  # another request of this content is checking
                if token.cancelled:
                    return None
            try:
                for finding_id in finding_ids:
                    if token.cancelled:
                        return None
                    if finding_id not in entry.verdicts:
                        entry.verdicts[finding_id] = self._run(entry, snapshot, finding_id, token)
                return {fid: entry.verdicts[fid] for fid in finding_ids}
            finally:
                entry.lock.release()
        except Cancelled:
            return None
        finally:
            with self._lock:
                entry.requests.discard(token)

    def _run(self, entry: _Entry, snapshot: Snapshot, finding_id: str, token: CheckToken) -> SupportVerdict:
        with self._lock:
            if token.cancelled:  # withdrawn since the loop looked: cancel() saw no check to stop
                raise Cancelled
            entry.running = token
        try:
            self.checks_run += 1
            return self.check(snapshot, finding_id, cancel=token.stop)
        finally:
            with self._lock:
                entry.running = None

    def cancel(self, token: CheckToken, *, stop: bool = True) -> None:
        """Withdraw a request. With ``stop``, also stop the check running for the same content once no
        request waits for it any more (it may be an earlier request's, left to finish for this one);
        without, a check under way finishes (a newer request of the same screen will read its verdict)
        and only the ids not started yet are dropped."""
        token.cancelled = True
        with self._lock:
            entry = self._entries.get(token.key or "")
            if not stop or entry is None or entry.running is None:
                return
            if not any(not request.cancelled for request in entry.requests):
                entry.running.stop.set()

    def _forget_old(self) -> None:
        idle = [key for key, entry in self._entries.items() if not entry.requests]
        for key in idle[: max(0, len(self._entries) - self.keep)]:
            del self._entries[key]
