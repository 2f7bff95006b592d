"""Account snapshots (``snapshot.json``): loading and required fields.

How values read (numbers, dates, JSON Pointers) is ``snapshot_reader``; what is computed from a
snapshot is kept on its data (``snapshot_cache``).

A snapshot is kept as the plain parsed JSON (``Snapshot.data``): unknown
fields are kept and shown, never rejected. Tools never modify snapshot.json.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .account_codes import currency_code_problem, time_zone_problem
from .daily_rows import daily_rows
from .snapshot_cache import snapshot_data
from .snapshot_reader import parse_day, resolve_pointer, unescape_token
from ..files.untrusted import BadInput, LimitError, Limits, load_json, read_bytes_limited

REQUIRED_TOP = ("schema_version", "platform", "account", "period", "daily")
REQUIRED_ACCOUNT = ("id", "currency_code", "time_zone")
REQUIRED_PERIOD = ("start", "end", "as_of")
# A snapshot covers about a month; a year is the most any tool accepts, so a
# hostile period cannot make the per-day tables grow without end.
MAX_PERIOD_DAYS = 366
PERIOD_YEARS = (2000, 2100)  # dates outside these years are refused: no real account, and no date overflow
# Real snapshots: under 60 KB, 5 levels deep, 150 rows, 40-character strings; the app is
# built to open 100,000 rows (about 15 MB).
LIMITS = Limits("snapshot.json", max_bytes=32 << 20, max_depth=32, max_items=200_000, max_chars=2_000)


class SnapshotError(Exception):
    """A snapshot that cannot be read at all (missing file, malformed JSON)."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


def as_object(value: Any) -> dict[str, Any]:
    """A section read as an object: anything else (missing, null, a list) reads as empty."""
    return value if isinstance(value, dict) else {}


def as_array(value: Any) -> list[Any]:
    """A section read as a list of rows: anything else reads as no rows."""
    return value if isinstance(value, list) else []


def required_field_problems(data: Any) -> list[str]:
    """Messages for each required field that is missing or of the wrong type."""
    if not isinstance(data, dict):
        return ["the snapshot must be a JSON object"]
    problems = [f"missing required field '{k}'" for k in REQUIRED_TOP if k not in data]
    for section, fields in (("account", REQUIRED_ACCOUNT), ("period", REQUIRED_PERIOD)):
        if section not in data:
            continue  # already reported as a missing top-level field
        if not isinstance(data[section], dict):
            problems.append(f"'{section}' must be an object")
        else:
            problems += [f"missing required field '{section}.{k}'" for k in fields if k not in data[section]]
    account = data.get("account")
    if isinstance(account, dict):
        for key, problem in (("currency_code", currency_code_problem), ("time_zone", time_zone_problem)):
            if key in account and (why := problem(account[key])):
                problems.append(f"'account.{key}': {why}")
    if "daily" in data and not isinstance(data["daily"], list):
        problems.append("'daily' must be a list of rows")
    return problems


def read_snapshot_bytes(path: Path) -> bytes:
    """The bytes of a snapshot.json within the size limit; SnapshotError saying why not."""
    try:
        return read_bytes_limited(path, LIMITS)
    except FileNotFoundError:
        raise SnapshotError(path, 1, "file not found: every case needs a snapshot.json") from None
    except LimitError as exc:
        raise SnapshotError(path, 1, f"{exc}; a snapshot is one account's month") from None
    except OSError as exc:
        raise SnapshotError(path, 1, f"cannot read the file ({exc.strerror or exc})") from None


def snapshot_text(path: Path, raw: bytes) -> str:
    """``raw`` decoded as it is (no newline translation: the text encodes back to the file's bytes)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotError(path, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8") from None


def period_problems(period: dict[str, Any]) -> list[str]:
    """The period's dates must be real dates, in order, spanning at most MAX_PERIOD_DAYS."""
    days = {k: parse_day(period.get(k)) for k in REQUIRED_PERIOD}
    problems = [f"'period.{k}' is {period.get(k)!r}, not a date such as 2025-03-31"
                for k in REQUIRED_PERIOD if k in period and days[k] is None]
    low, high = PERIOD_YEARS
    for key, day in list(days.items()):
        if day is not None and not low <= day.year <= high:
            problems.append(f"'period.{key}' {day} is outside the years {low} to {high}")
            days[key] = None
    start, end, as_of = days["start"], days["end"], days["as_of"]
    if start and end:
        if end < start:
            problems.append(f"'period.end' {end} is before 'period.start' {start}")
        elif (end - start).days + 1 > MAX_PERIOD_DAYS:
            problems.append(f"the period {start} to {end} spans {(end - start).days + 1:,} days; "
                            f"the limit is {MAX_PERIOD_DAYS} days")
    if end and as_of and abs((as_of - end).days) > MAX_PERIOD_DAYS:
        problems.append(f"'period.as_of' {as_of} is more than {MAX_PERIOD_DAYS} days from 'period.end' {end}")
    return problems


@dataclass
class Snapshot:
    path: Path
    data: dict[str, Any]
    text: str = field(repr=False, default="")

    def __post_init__(self) -> None:
        # What is computed from the snapshot is kept on its data (snapshot_cache)
        self.data = snapshot_data(self.data)

    @classmethod
    def load(cls, path: str | Path) -> "Snapshot":
        path = Path(path)
        raw = read_snapshot_bytes(path)
        return cls.parse(path, raw)

    @classmethod
    def parse(cls, path: Path, raw: bytes) -> "Snapshot":
        """The snapshot of ``raw``, the bytes of ``path`` (``read_snapshot_bytes``); SnapshotError when it
        is not a JSON document within the limits."""
        text = snapshot_text(path, raw)
        try:
            data = load_json(text, LIMITS)
        except BadInput as exc:
            raise SnapshotError(path, exc.line, exc.message) from None
        snapshot = cls(path=path, data=data, text=text)
        snapshot.raw = raw
        return snapshot

    @cached_property
    def raw(self) -> bytes:
        """The file's bytes (``text`` encodes back to them)."""
        return self.text.encode("utf-8")

    @cached_property
    def sha256(self) -> str:
        """The SHA-256 of the file's bytes, computed once: the audit's, the scores' and the validation's
        caches are keyed by it."""
        return hashlib.sha256(self.raw).hexdigest()

    def __getstate__(self) -> dict[str, Any]:
        # Sent to the scoring worker without ``raw``: the text encodes back to it
        return {key: value for key, value in self.__dict__.items() if key != "raw"}

    def section(self, key: str) -> Any:
        """The top-level value under ``key``; None when absent, or when the snapshot is not a JSON object."""
        return self.data.get(key) if isinstance(self.data, dict) else None

    def resolve(self, pointer: str) -> Any:
        return resolve_pointer(self.data, pointer)

    @cached_property
    def campaigns(self) -> dict[str, dict[str, Any]]:
        """Campaigns by id (as strings), from ``campaigns`` and from daily rows."""
        found: dict[str, dict[str, Any]] = {}
        if not isinstance(self.data, dict):  # reported by required_field_problems
            return found
        campaigns = self.data.get("campaigns")
        daily = self.data.get("daily")
        for camp in campaigns if isinstance(campaigns, list) else []:
            if isinstance(camp, dict) and camp.get("id") is not None:
                found[str(camp["id"])] = camp
        if isinstance(daily, list):
            # The rows' campaign ids as the snapshot's shared reading of its rows has them (as text)
            for cid in dict.fromkeys(daily_rows(self.data).campaigns):
                if cid is not None and cid not in found:
                    found[cid] = {"id": cid}
        return found

    @property
    def campaign_ids(self) -> set[str]:
        return set(self.campaigns)

    def line_of(self, pointer: str) -> int:
        """Best-effort line number of a pointer's value in the JSON text (1 if unknown).

        Only used for messages; a key search from the parent's position is
        enough for the pretty-printed snapshots the project ships.
        """
        if not self.text or not pointer:
            return 1
        pos = 0
        for raw in pointer[1:].split("/"):
            token = unescape_token(raw)
            found = self.text.find(json.dumps(token) + ":", pos)
            if found < 0:
                break
            pos = found
        return self.text.count("\n", 0, pos) + 1


_UNREAD = object()  # ParsedBefore's data before it is parsed


class ParsedBefore(Snapshot):
    """A snapshot whose very bytes were parsed and validated before, by this code (the validation's
    memo, ``cases.load_case_set``): the same bytes parse the same, so the parse (seconds on 100,000
    rows) waits until something reads ``data``, and a rerun that reads nothing of it (answers and
    scores kept for its content) never pays it. ``sections``: top-level values kept from that parse
    (``section``), answered without parsing."""

    def __init__(self, path: Path, raw: bytes, sections: dict[str, Any]) -> None:
        self.path = path
        self.raw = raw
        self._sections = sections
        self._data: Any = _UNREAD
        self._parsing = threading.Lock()

    @cached_property
    def text(self) -> str:  # type: ignore[override]
        """The bytes decoded when something reads them (they decoded before)."""
        return snapshot_text(self.path, self.raw)

    @property
    def data(self) -> Any:
        if self._data is _UNREAD:
            with self._parsing:
                if self._data is _UNREAD:
                    try:
                        self._data = snapshot_data(load_json(self.text, LIMITS))
                    except BadInput as exc:  # the file's bytes are those that parsed before: not expected
                        raise SnapshotError(self.path, exc.line, exc.message) from None
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self._data = snapshot_data(value)

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy (the scoring worker's) is one more snapshot parsed when read: the file's bytes travel, not rows
        return (ParsedBefore, (self.path, self.raw, self._sections))

    @property
    def parsed(self) -> bool:
        """Whether ``data`` was read (for tests and diagnostics)."""
        return self._data is not _UNREAD

    def section(self, key: str) -> Any:
        if key in self._sections:
            return self._sections[key]
        return super().section(key)
