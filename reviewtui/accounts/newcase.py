"""A new case folder from a snapshot file (an imported or redacted account).

The snapshot is checked as ``reviewtui check`` would (required fields,
readable daily rows) before anything is written; the case gets an
``expected.yaml`` with empty lists for a senior to fill in. An imported
account whose names ``reviewtui redact`` has not replaced is refused unless
the caller says to copy it anyway: the case set is shared, the account's
names are the advertiser's.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..files.atomic import atomic_write_bytes, atomic_write_text
from ..caseset.cases import CASE_ID_RE, SNAPSHOT_FILE
from ..caseset.rowcheck import daily_problems
from ..caseset.snapshot import Snapshot, SnapshotError, required_field_problems


class NewCaseError(Exception):
    pass


class UnredactedError(NewCaseError):
    """The snapshot is an import that still holds the account's own names (``names``: a few of them)."""

    def __init__(self, path: Path, names: list[str]) -> None:
        super().__init__(f"{path} holds the account's own names ({', '.join(names[:3])}"
                         f"{', ...' if len(names) > 3 else ''}): redact it first, "
                         f"reviewtui redact {path} -o <file> --key ~/.reviewtui/redact.key")
        self.names = names


# What ``reviewtui redact`` writes for a name: "Campaign 3fa2c1 | brand", "Ad set 1b2c3d", "term 3fa2c1".
_PSEUDONYM = re.compile(r"^(?:[A-Z][a-z]+(?: [a-z]+)?|term|text) [0-9a-f]{6,8}(?: \| [^|]+)*$")
_NAMED = (("account", "name"), ("campaigns", "name"), ("conversion_actions", "name"), ("search_terms", "search_term"),
          ("ad_daily", "ad_set_name"), ("ad_daily", "ad_name"))


def unredacted_names(data: object) -> list[str]:
    """The names and search terms of a snapshot ``reviewtui import`` made (it records ``source.format``)
    that are not pseudonyms ``reviewtui redact`` writes; empty for any other snapshot."""
    if not isinstance(data, dict) or not isinstance(data.get("source"), dict) or not data["source"].get("format"):
        return []
    found: list[str] = []
    for section, key in _NAMED:
        value = data.get(section)
        for item in value if isinstance(value, list) else [value]:
            name = item.get(key) if isinstance(item, dict) else None
            if isinstance(name, str) and name.strip() and not _PSEUDONYM.match(name) and repr(name) not in found:
                found.append(repr(name))
    return found


def case_id_for(path: Path, cases_dir: Path) -> str:
    """A free case id from the file's name (its folder's for a snapshot.json)."""
    stem = path.parent.name if path.name == SNAPSHOT_FILE else path.stem
    base = re.sub(r"[^a-z0-9_-]+", "-", stem.lower()).strip("-_")[:56] or "imported"
    if len(base) < 2:
        base = f"case-{base}"
    case_id, n = base, 2
    while (cases_dir / case_id).exists():
        case_id, n = f"{base}-{n}", n + 1
    return case_id


def new_case_from_snapshot(snapshot_path: str | Path, cases_dir: str | Path, case_id: str | None = None, *,
                           allow_unredacted: bool = False) -> str:
    """Copy the snapshot into ``cases_dir/<case_id>/`` beside a blank expected.yaml; return the case id.
    UnredactedError for an import not redacted yet, unless ``allow_unredacted``."""
    path, cases_dir = Path(snapshot_path).expanduser(), Path(cases_dir)
    try:
        snapshot = Snapshot.load(path)
    except SnapshotError as exc:
        raise NewCaseError(str(exc)) from None
    problems = required_field_problems(snapshot.data)
    problems += [msg for severity, msg in daily_problems(snapshot.data) if severity == "error"]
    if problems:
        raise NewCaseError(f"{path}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    if not allow_unredacted and (names := unredacted_names(snapshot.data)):
        raise UnredactedError(path, names)
    case_id = case_id or case_id_for(path, cases_dir)
    if not CASE_ID_RE.match(case_id):
        raise NewCaseError(f"{case_id!r} is not a valid case id (lowercase letters, digits, '-' and '_')")
    folder = cases_dir / case_id
    if folder.exists():
        raise NewCaseError(f"{folder} already exists; nothing written")
    atomic_write_bytes(folder / SNAPSHOT_FILE, path.read_bytes())
    atomic_write_text(folder / "expected.yaml", blank_expected(case_id, path.name))
    return case_id


def blank_expected(case_id: str, from_name: str) -> str:
    """The expected.yaml of a new case: its id, kind ordinary, and empty lists for a senior to fill in."""
    return (f"# New case from {from_name}: read the rows and fill in the lists (format: docs/formats.md, "
            "'expected.yaml').\n"
            f"case: {case_id}\nkind: ordinary\nmust_find: []\nmay_find: []\nmust_not_say: []\n")
