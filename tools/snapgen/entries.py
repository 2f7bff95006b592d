"""Drafted expected entries, as scenarios produce them."""

from __future__ import annotations

from dataclasses import dataclass, field

LIST_ORDER = ("must_find", "may_find", "must_not_say")


@dataclass
class Entry:
    list_name: str          # must_find | may_find | must_not_say
    kind: str               # taxonomy id
    scope: str | None
    evidence: str
    rows: list[str] = field(default_factory=list)
    says: list[str] = field(default_factory=list)
    scenario: str = ""

    @property
    def id(self) -> str:
        return f"{self.kind}@{self.scope}" if self.scope else self.kind


def merge(entries: list[Entry]) -> list[Entry]:
    """One entry per id: the first list in must_find > may_find > must_not_say order wins.

    A must_not_say that collides with a must_find or may_find is a contradiction
    between two planted scenarios and is refused rather than silently dropped.
    """
    chosen: dict[str, Entry] = {}
    for entry in sorted(entries, key=lambda e: LIST_ORDER.index(e.list_name)):
        have = chosen.get(entry.id)
        if have is None:
            chosen[entry.id] = entry
            continue
        if entry.list_name == "must_not_say" and have.list_name != "must_not_say":
            raise ValueError(f"{entry.id}: scenario {entry.scenario!r} says must_not_say but "
                             f"{have.scenario!r} put it in {have.list_name}")
        if entry.list_name == have.list_name == "must_not_say":
            have.says = list(dict.fromkeys(have.says + entry.says))
    return list(chosen.values())
