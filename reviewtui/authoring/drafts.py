"""What the author screen's forms edit before it is added: an expectation entry (the tag form) and a
dispute (the dispute form), with the parsing of the forms' rows and ``says`` fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from .. import taxonomy
from ..caseset.snapshot import Snapshot
from ..caseset.snapshot_reader import PointerError
from ..files.untrusted import says_problem


@dataclass
class TagDraft:
    """What the tag form edits; ``entry()`` is the dict stored in expected.yaml."""

    list_name: str
    kind: str = ""
    scope: str | None = None
    evidence: str = ""
    rows: list[str] = field(default_factory=list)
    claim: str | None = None
    says: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return taxonomy.join_id(self.kind, self.scope)

    def entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.id, "evidence": self.evidence}
        if self.rows:
            entry["rows"] = list(self.rows)
        if self.says:
            entry["says"] = list(self.says)
        if self.claim:
            entry["claim"] = self.claim
        return entry

    def problem(self, snapshot: Snapshot | None, taken_ids: set[str]) -> str | None:
        """Why the entry cannot be added, or None: what ``reviewtui check`` would report as an error on it."""
        if not taxonomy.is_kind(self.kind):
            return f"unknown finding kind {self.kind!r}: pick one from the completion (reviewtui/taxonomy.yaml)"
        if not self.evidence.strip():
            return "evidence is empty: write one line with the figures the rows show"
        if self.id in taken_ids:
            return f"{self.id} is already an entry of this case: ids are unique across the three lists"
        if snapshot is not None and (problem := unresolved_row(snapshot, self.rows)) is not None:
            return problem
        for pattern in self.says:
            if (refused := says_problem(pattern)) is not None:
                return f"{refused}; reviewtui check would reject it"
        return None

    @classmethod
    def from_entry(cls, list_name: str, entry: dict[str, Any]) -> "TagDraft":
        kind, scope = taxonomy.split_id(str(entry.get("id", "")))
        return cls(
            list_name=list_name,
            kind=kind,
            scope=scope,
            evidence=str(entry.get("evidence") or ""),
            rows=[str(r) for r in entry.get("rows") or []],
            claim=entry.get("claim"),
            says=[str(s) for s in entry.get("says") or []],
        )


def parse_rows(text: str) -> list[str]:
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


def unresolved_row(snapshot: Snapshot, rows: list[str]) -> str | None:
    """Why the first of ``rows`` that the snapshot does not hold is refused, or None when each resolves.

    Both forms cite rows as evidence: a pointer to nothing would go into the file as if it were."""
    for pointer in rows:
        try:
            snapshot.resolve(pointer)
        except PointerError as exc:
            return f"row {pointer} does not resolve in snapshot.json ({exc})"
    return None


def parse_says(text: str) -> list[str]:
    """``["over-?pac", "overspend"]`` (YAML flow list) or one bare pattern."""
    text = text.strip()
    if not text:
        return []
    quoted = len(text) > 1 and text[0] == text[-1] and text[0] in "'\""
    if text.startswith("[") or quoted:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"says: not a list of patterns ({getattr(exc, 'problem', None) or exc}); write it as [\"a\", \"b\"]") from None
        if quoted:  # one pattern in quotes, as the placeholder shows them: the quotes are not part of it
            return [str(value)]
        return [str(v) for v in value or []]
    return [text]


def format_says(says: list[str]) -> str:
    if not says:
        return ""
    return "[" + ", ".join('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in says) + "]"


@dataclass(frozen=True)
class DisputeDraft:
    """What the dispute form holds: what the rows show instead, the rows, and why the claim stays out."""

    rows_show: str
    rows: list[str]
    why: str
