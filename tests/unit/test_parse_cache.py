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


def test_the_prompts_taxonomy_tree_is_kept_by_the_files_bytes(tmp_path, monkeypatch):
    """The system prompt's commented thresholds come from the round-trip tree of taxonomy.yaml, kept by its
    bytes: a rerun reads the tree back (the same prompt, no parse), an edited file is parsed again."""
    import ruamel.yaml

    from reviewtui import assistant, taxonomy

    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "taxonomy.yaml"
    copy.write_bytes(taxonomy.TAXONOMY_PATH.read_bytes())
    monkeypatch.setattr(taxonomy, "TAXONOMY_PATH", copy)
    assistant._commented_thresholds.cache_clear()
    parsed = dict(assistant._commented_thresholds())
    assert list((tmp_path / "cache" / "taxonomy").glob("*.pickle"))

    def no_parse(*args, **kwargs):
        raise AssertionError("taxonomy.yaml parsed although its tree was kept")

    with monkeypatch.context() as patch:
        patch.setattr(ruamel.yaml.YAML, "load", no_parse)
        assistant._commented_thresholds.cache_clear()
        kept = assistant._commented_thresholds()
        assert {k: dict(v) for k, v in kept.items()} == {k: dict(v) for k, v in parsed.items()}
        assert str(kept["pacing.overspend"].ca.items) == str(parsed["pacing.overspend"].ca.items)
        assert "targets.pacing_tolerance is absent" in str(kept["pacing.overspend"].ca.items)
    copy.write_text(copy.read_text(encoding="utf-8").replace("# used when targets.pacing_tolerance is absent",
                                                             "# an edited comment"), encoding="utf-8")
    assistant._commented_thresholds.cache_clear()
    edited = assistant._commented_thresholds()
    assert "an edited comment" in str(edited["pacing.overspend"].ca.items)
    assistant._commented_thresholds.cache_clear()
