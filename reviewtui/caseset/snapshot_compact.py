"""The snapshot as the model reads it: compact JSON, lists of like objects as tables.

An indented snapshot spends a third of its bytes on whitespace and repeats
every field name on every daily row. The model gets the same values in less
room:

- no indentation and no spaces after separators;
- a list of objects that mostly share one set of fields (daily rows, search
  terms, ads...) becomes ``{"columns": [field, ...], "rows": [...]}`` with one
  row per line: a row holding exactly the columns' fields is an array of its
  values in column order; a row with other fields stays an object, so an
  absent field is never turned into a null. The table is used only where it
  is shorter than the compact list.

Numbers are copied as the snapshot writes them (``520.10`` stays ``520.10``,
not ``520.1``), so a figure the model copies from a row matches the row's
text. ``expand`` turns the compact text back into the original data; the
tests check that every value of every case survives the round trip.
Grounding and scoring read the original snapshot, never this text.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..files import parse_cache

TABLE_KEYS = ("columns", "rows")
CACHE_FOLDER = "compact"


class _Number(str):
    """A JSON number kept as its source text."""


def _load(text: str) -> Any:
    return json.loads(text, parse_float=_Number, parse_int=_Number,
                      parse_constant=_Number)  # fmt: skip


_encode_string = json.encoder.encode_basestring  # the C encoder json.dumps(..., ensure_ascii=False) uses
_CONSTANTS = {True: "true", False: "false", None: "null"}


def _scalar(value: Any) -> str:
    if isinstance(value, _Number):
        return str(value)
    if isinstance(value, str):
        return _encode_string(value)
    return _CONSTANTS[value]


def _dump(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{_scalar(str(k))}:{_dump(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        plain = "[" + ",".join(_dump(v) for v in value) + "]"
        table = _table(value)
        return table if table is not None and len(table) < len(plain) else plain
    return _scalar(value)


def _table(items: list[Any]) -> str | None:
    """The list as a table, or None when it is not a list of objects."""
    if len(items) < 2 or not all(isinstance(item, dict) for item in items):
        return None
    shapes = Counter(frozenset(item) for item in items)
    common = shapes.most_common(1)[0][0]
    columns = next(list(item) for item in items if frozenset(item) == common)
    rows = [
        "[" + ",".join(_dump(item[c]) for c in columns) + "]" if frozenset(item) == common else _dump(item)
        for item in items
    ]
    return '{"columns":[' + ",".join(_scalar(c) for c in columns) + '],"rows":[\n' + ",\n".join(rows) + "\n]}"


@lru_cache(maxsize=256)
def compact_text(snapshot_text: str) -> str:
    """The snapshot's JSON text in the compact form. Raises ValueError for text that is not JSON.

    Kept for the last few hundred snapshots: a case's repeats and its batch entry reuse it. Kept
    on disk too (``parse_cache``, folder ``compact/``), named by the snapshot's bytes and this
    module's own source, so a run builds its requests without converting the fifty again (about
    2 ms a case) and a change to the conversion converts again.
    """
    raw = snapshot_text.encode("utf-8")
    stored = parse_cache.load(raw, _source_digest(), folder=CACHE_FOLDER)
    if isinstance(stored, str):
        return stored
    compact = _dump(_load(snapshot_text))
    parse_cache.store(raw, compact, _source_digest(), folder=CACHE_FOLDER)
    return compact


@lru_cache(maxsize=1)
def _source_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def expand(compact: str) -> Any:
    """The data the compact text stands for (tables back to lists of objects), numbers as Python numbers."""
    return _expand(json.loads(compact))


def _expand(value: Any) -> Any:
    if isinstance(value, dict):
        if tuple(value) == TABLE_KEYS and isinstance(value["columns"], list) and isinstance(value["rows"], list):
            columns = value["columns"]
            return [_expand(dict(zip(columns, row)) if isinstance(row, list) else row) for row in value["rows"]]
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value
