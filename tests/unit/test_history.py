"""Undo / redo of expected.yaml edits (reviewtui.authoring.history)."""

from reviewtui.caseset.cases import ExpectedDoc
from reviewtui.authoring.history import History

YAML = """\
# the senior's own comment
case: c01-shoes
kind: ordinary
must_find:
  - id: tracking.conversions_stopped  # seen in the daily rows
    evidence: conversions 0 from 2025-03-09
    note: keep me
may_find: []
"""


def load(tmp_path):
    path = tmp_path / "expected.yaml"
    path.write_text(YAML)
    return ExpectedDoc.load(path)


def test_add_undo_redo_round_trip(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    assert not history.dirty and not history.can_undo
    history.add("may_find", {"id": "waste.zero_conv_campaign@333", "evidence": "spent 900", "rows": ["/daily/1"]})
    assert history.dirty
    assert doc.entry("may_find", 0)["rows"] == ["/daily/1"]
    assert history.undo() == "add waste.zero_conv_campaign@333 to may_find"
    assert doc.dump() == YAML
    assert not history.dirty and history.can_redo
    history.redo()
    assert doc.entry("may_find", 0)["id"] == "waste.zero_conv_campaign@333"
    assert history.undo() and history.undo() is None


def test_undo_of_delete_restores_the_entry_with_its_comment(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    removed = history.remove("must_find", 0)
    assert removed["id"] == "tracking.conversions_stopped"
    assert "seen in the daily rows" not in doc.dump()
    history.undo()
    assert doc.dump() == YAML


def test_replace_in_place_keeps_comment_and_note_and_drops_cleared_fields(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    history.replace("must_find", 0, {"id": "tracking.conversions_stopped", "evidence": "new evidence", "rows": ["/daily/2"]})
    text = doc.dump()
    assert "# seen in the daily rows" in text and "note: keep me" in text
    assert doc.entry("must_find", 0) == {
        "id": "tracking.conversions_stopped", "evidence": "new evidence", "note": "keep me", "rows": ["/daily/2"],
    }
    history.replace("must_find", 0, {"id": "tracking.conversions_stopped", "evidence": "new evidence"})
    assert "rows" not in doc.entry("must_find", 0)


def test_replace_into_another_list_moves_the_entry(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    where = history.replace("must_find", 0, {"id": "tracking.conversions_stopped", "evidence": "e"}, new_list="may_find")
    assert where == ("may_find", 0)
    assert len(doc.entries("must_find")) == 0
    history.undo()
    assert doc.dump() == YAML


def test_saved_marker_and_new_edit_clears_redo(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    history.add("may_find", {"id": "a.b", "evidence": "x"})
    history.mark_saved()
    assert not history.dirty
    history.undo()
    assert history.dirty  # the file on disk has the entry; the editor does not
    history.add("may_find", {"id": "c.d", "evidence": "y"})
    assert not history.can_redo


def test_deleting_the_only_entry_of_a_list_leaves_valid_yaml(tmp_path):
    # A comment line above the only entry made ruamel.yaml write invalid YAML on a plain pop;
    # the comment is not the entry's own line, so it stays, below the emptied list.
    text = YAML.replace("must_find:\n", "must_find:\n  # the main finding\n")
    path = tmp_path / "expected.yaml"
    path.write_text(text)
    doc = ExpectedDoc.load(path)
    history = History(doc)
    history.remove("must_find", 0)
    assert "must_find: []\n  # the main finding\nmay_find: []\n" in doc.dump()
    assert ExpectedDoc.parse(doc.path, doc.dump().encode()).data["must_find"] == []
    history.undo()
    assert doc.dump() == text


def test_new_entries_get_line_numbers_of_the_saved_text(tmp_path):
    doc = load(tmp_path)
    history = History(doc)
    history.add("must_not_say", {"id": "pacing.overspend", "evidence": "on pace"})
    seq = doc.entries("must_not_say")
    assert seq.lc.item(0)[0] + 1 == doc.dump().splitlines().index("  - id: pacing.overspend") + 1
