"""The reference auditor's "do the rows support this id?" check, as the app shows it.

``reviewtui.auditor.support.check_support(snapshot, finding_id)`` belongs to
the reference auditor and may not exist in every checkout; it is imported
lazily and the app says "not available" when it is missing or fails, so
authoring never depends on it. No Textual import here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from ..snapshot import Snapshot


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
    module = importlib.import_module("reviewtui.auditor.support")
    return getattr(module, "check_support")


def check_support(snapshot: Snapshot | None, finding_id: str) -> SupportVerdict:
    if snapshot is None:
        return SupportVerdict(False, None, "snapshot still loading")
    try:
        check = _check_function()
    except (ImportError, AttributeError):
        return SupportVerdict(False, None, "the reference auditor's support check is not installed")
    try:
        result = check(snapshot, finding_id)
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
