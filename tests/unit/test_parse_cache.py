"""The parsed expected.yaml cache: the same tree as the parser's, a miss on any edit, a bad entry ignored."""

from __future__ import annotations

import io
from pathlib import Path

from reviewtui.files import parse_cache
from reviewtui.caseset.cases import LIMITS, ExpectedDoc, _line, _yaml

CASE = Path(__file__).resolve().parents[2] / "cases" / "c01-outdoor-retail" / "expected.yaml"


def dumped(doc: ExpectedDoc) -> str:
    out = io.StringIO()
    _yaml().dump(doc.data, out)
    return out.getvalue()


def test_a_cached_tree_is_the_parsed_tree(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path))
    parsed = ExpectedDoc.load(CASE)
    assert list((tmp_path / "expected").glob("*.pickle"))
    cached = ExpectedDoc.load(CASE)
    assert cached.data is not parsed.data
    assert dumped(cached) == dumped(parsed) == CASE.read_text(encoding="utf-8")
    assert _line(cached.data, "must_find") == _line(parsed.data, "must_find") > 1
    assert _line(cached.data["must_find"], 0) == _line(parsed.data["must_find"], 0)


def test_an_edit_misses_and_a_bad_entry_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "expected.yaml"
    path.write_text("case: c01-x\nkind: ordinary  # a comment\n", encoding="utf-8")
    ExpectedDoc.load(path)
    path.write_text("case: c01-x\nkind: clean  # a comment\n", encoding="utf-8")
    assert ExpectedDoc.load(path).data["kind"] == "clean"
    for entry in (tmp_path / "cache" / "expected").glob("*.pickle"):
        entry.write_bytes(b"not a pickle")
    doc = ExpectedDoc.load(path)
    assert doc.data["kind"] == "clean" and "# a comment" in dumped(doc)
    assert parse_cache.load(path.read_bytes(), salt=repr(LIMITS)) is not None  # written again
