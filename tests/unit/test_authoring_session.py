"""The authoring session (reviewtui.authoring.session) on a temporary copy of tests/fixtures/app: what the
author screen's keys do to expected.yaml and disputed.md, without the app."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from reviewtui.caseset import disputes
from reviewtui.authoring.session import NO_WRITEUP, AuthoringSession
from reviewtui.caseset.cases import CaseFileError, ExternalChangeError
from reviewtui.authoring.history import StepRefused
from reviewtui.caseset.snapshot import Snapshot
from reviewtui.authoring.support_checks import SupportVerdict

from tests.app.apphelpers import copy_fixture

CASE = "c01-shoes-tracking"
WRITEUP = "writeups/wu01-shoes.md"
BRAND_SENTENCE = "Brand search (111) spent 1,234.50 more than planned."
SEARCH_TERMS_SENTENCE = 'Search terms such as "free shoes" wasted 166.50 with no conversions.'
OVERSPEND_SENTENCE = "The account overspends by 40%."
TAG = {"id": "waste.zero_conv_search_terms@222", "evidence": SEARCH_TERMS_SENTENCE,
       "rows": ["/daily/3", "/daily/4"], "claim": SEARCH_TERMS_SENTENCE}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "repo")


def session_of(repo: Path, case_id: str = CASE) -> AuthoringSession:
    return AuthoringSession(repo / "cases" / case_id)


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(lines added, lines removed) from ``before`` to ``after``."""
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    return [line[2:] for line in diff if line.startswith("+ ")], [line[2:] for line in diff if line.startswith("- ")]


def dispute_brand(session: AuthoringSession, rows: list[str] | None = None) -> disputes.Dispute:
    return session.dispute(BRAND_SENTENCE, rows_show="brand spent 249.00 on 2025-03-01",
                           rows=["/daily/1"] if rows is None else rows, why="no plan in the snapshot")


def sentence(session: AuthoringSession, text: str):
    assert session.writeup is not None
    found = next((s for s in session.writeup.sentences if s.text == text), None)
    assert found is not None, text
    return found


# -- tags --------------------------------------------------------------------------------------


def test_a_tag_is_added_only_in_memory_until_saved_and_then_written_as_its_own_lines(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    before = expected.read_text()
    session = session_of(repo)
    assert not session.dirty
    assert session.add("may_find", TAG) == 0
    assert session.dirty and [e.id for e in session.case.may_find] == [TAG["id"]]  # the views are re-read
    assert expected.read_text() == before  # nothing written yet
    session.save()
    assert not session.dirty
    added, removed = changed_lines(before, expected.read_text())
    assert removed == ["may_find: []"]
    assert added == [
        "may_find:",
        "  - id: waste.zero_conv_search_terms@222",
        '    evidence: Search terms such as "free shoes" wasted 166.50 with no conversions.',
        "    rows: [/daily/3, /daily/4]",
        '    claim: Search terms such as "free shoes" wasted 166.50 with no conversions.',
    ]


def test_a_save_keeps_the_seniors_comments_and_key_order_byte_for_byte(repo):
    expected = repo / "cases" / "c02-garden-clean" / "expected.yaml"
    commented = (
        "# Garden shop: a healthy account.  Senior: A.B.\n"
        "case: c02-garden-clean   # folder name\n"
        "kind: clean\n"
        "notes: A healthy account; nothing material is wrong.\n"
        "must_find:\n"
        "  # looked and found nothing\n"
        "  - id: summary.no_material_issues\n"
        "    evidence: spend on pace, conversions steady at 8 to 14 a day in both campaigns  # checked twice\n"
        "\n"
        "# end of file comment\n"
    )
    expected.write_text(commented)
    session = session_of(repo, "c02-garden-clean")
    session.add("must_not_say", {"id": "data.duplicate_rows", "evidence": "each date and campaign appears once",
                                 "rows": ["/daily/0"]})
    session.save()
    saved = expected.read_text()
    added, removed = changed_lines(commented, saved)
    assert removed == []
    assert added == [
        "must_not_say:",
        "  - id: data.duplicate_rows",
        "    evidence: each date and campaign appears once",
        "    rows: [/daily/0]",
    ]
    # Every original line, comments included, is still there and in the same order.
    assert [line for line in saved.splitlines() if line in commented.splitlines()] == commented.splitlines()
    # A delete and its undo give the senior's file back byte for byte.
    session.remove("must_not_say", 0)
    session.undo()
    session.save()
    assert expected.read_text() == saved


def test_an_edit_in_place_and_a_move_to_another_list_keep_rows_and_claim(repo):
    session = session_of(repo)
    claim = session.case.must_find[0].claim
    entry = session.entry("must_find", 0)
    edited = dict(entry, evidence="conversions stop on 2025-03-09")
    assert session.replace("must_find", 0, edited) == ("must_find", 0)
    assert session.case.must_find[0].evidence == "conversions stop on 2025-03-09"
    assert "# the main finding" in session.case.doc.dump()  # the entry's comment stays
    assert session.replace("must_find", 0, edited, new_list="may_find") == ("may_find", 0)
    assert session.case.must_find == []
    moved = session.case.may_find[0]
    assert moved.id == "tracking.conversions_stopped@222" and moved.rows == ["/daily/17", "/daily/19"]
    assert moved.claim == claim


def test_delete_returns_the_entry_and_taken_ids_skip_the_one_being_edited(repo):
    session = session_of(repo)
    assert session.taken_ids() == {"tracking.conversions_stopped@222", "pacing.overspend"}
    assert session.taken_ids(skip=("must_not_say", 0)) == {"tracking.conversions_stopped@222"}
    removed = session.remove("must_not_say", 0)
    assert removed["id"] == "pacing.overspend"
    assert session.case.must_not_say == [] and "pacing.overspend" not in session.case.doc.dump()
    assert session.taken_ids() == {"tracking.conversions_stopped@222"}


def test_a_tagged_sentence_is_marked(repo):
    session = session_of(repo)
    tagged = {sentence(session, session.case.must_find[0].claim).index}
    assert session.tagged_sentences() == tagged
    session.add("may_find", TAG)
    assert session.tagged_sentences() == tagged | {sentence(session, SEARCH_TERMS_SENTENCE).index}


# -- undo and redo ----------------------------------------------------------------------------------


def test_undo_and_redo_of_a_delete_and_nothing_left_to_undo(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    original = expected.read_text()
    session = session_of(repo)
    session.remove("must_find", 0)
    assert session.case.must_find == [] and session.dirty
    assert session.undo() == "delete tracking.conversions_stopped@222 from must_find"
    assert [e.id for e in session.case.must_find] == ["tracking.conversions_stopped@222"]
    assert not session.dirty
    assert session.undo() is None
    assert session.redo() == "delete tracking.conversions_stopped@222 from must_find"
    assert session.case.must_find == [] and session.redo() is None
    session.undo()
    session.save()
    assert expected.read_text() == original


def test_undo_and_redo_go_back_and_forth_across_tags_and_disputes(repo):
    disputed = repo / "disputed.md"
    original = disputed.read_text()
    session = session_of(repo)
    session.add("may_find", TAG)
    dispute_brand(session)
    with_dispute = disputed.read_text()
    session.remove("must_not_say", 0)
    assert session.undo() == "delete pacing.overspend from must_not_say"
    assert [e.id for e in session.case.must_not_say] == ["pacing.overspend"]
    assert session.undo() == "dispute D-wu01-2"
    assert disputed.read_text() == original  # byte for byte
    assert [e.id for e in session.case.may_find] == [TAG["id"]]  # the tag before it stays
    assert session.undo() == f"add {TAG['id']} to may_find"
    assert session.case.may_find == [] and not session.dirty
    assert session.redo() == f"add {TAG['id']} to may_find"
    assert session.redo() == "dispute D-wu01-2"
    assert disputed.read_text() == with_dispute
    assert session.redo() == "delete pacing.overspend from must_not_say"
    assert session.redo() is None


def test_a_reopen_is_undone_and_redone(repo):
    disputed = repo / "disputed.md"
    original = disputed.read_text()
    session = session_of(repo)
    session.reopen("D-wu01-1")
    reopened = disputed.read_text()
    assert "### D-wu01-1" not in reopened
    assert session.undo() == "reopen D-wu01-1"
    assert disputed.read_text() == original
    assert session.redo() == "reopen D-wu01-1"
    assert disputed.read_text() == reopened


def test_undo_refuses_to_overwrite_a_change_made_since_by_someone_else(repo):
    disputed = repo / "disputed.md"
    original = disputed.read_text()
    session = session_of(repo)
    dispute_brand(session)
    session.undo()
    theirs = original + "\n<!-- a colleague's note -->\n"
    disputed.write_text(theirs)
    with pytest.raises(StepRefused, match="disputed.md changed since dispute D-wu01-2"):
        session.redo()
    assert disputed.read_text() == theirs
    assert session.redo() is None  # the refused step is dropped


# -- disputes ------------------------------------------------------------------------------------------


def test_a_dispute_is_appended_under_its_write_up_and_every_other_byte_stays(repo):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    session = session_of(repo)
    added = dispute_brand(session, rows=["/daily/0", "/daily/1"])
    assert added.id == "D-wu01-2"
    after = disputed.read_text()
    entry = disputes.load(disputed).by_id("D-wu01-2")
    assert entry is not None and entry.writeup == WRITEUP
    assert entry.quote == BRAND_SENTENCE and entry.rows == ["/daily/0", "/daily/1"] and entry.case == CASE
    assert entry.fields["Why it stays out"] == "no plan in the snapshot"
    block = after[entry.start:entry.end]
    assert after.replace(block, "", 1) == before  # everything else byte-identical
    assert after.index("### D-wu01-2") < after.index("## writeups/wu07-toys.md")
    assert not session.dirty  # disputed.md is written at once; expected.yaml is untouched


def test_a_dispute_citing_a_row_the_loaded_snapshot_does_not_hold_writes_nothing(repo):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    session = session_of(repo)
    session.case.snapshot = Snapshot.load(session.case.snapshot_path)
    with pytest.raises(ValueError, match=r"^row /daild/55 does not resolve in snapshot.json"):
        dispute_brand(session, rows=["/daily/0", "/daild/55"])
    assert disputed.read_text() == before
    assert session.undo() is None  # no step was recorded
    assert dispute_brand(session, rows=["/daily/0"]).rows == ["/daily/0"]


def test_a_disputed_sentence_is_found_and_marked_and_a_reopen_unmarks_it(repo):
    disputed = repo / "disputed.md"
    session = session_of(repo)
    overspend = sentence(session, OVERSPEND_SENTENCE)
    existing = session.dispute_of(overspend)
    assert existing is not None and existing.id == "D-wu01-1"
    assert session.dispute_of(sentence(session, BRAND_SENTENCE)) is None
    assert session.disputed_sentences(session.writeup_disputes()) == {overspend.index}
    removed = session.reopen(existing.id)
    assert removed.quote == OVERSPEND_SENTENCE
    assert session.dispute_of(overspend) is None and session.disputed_sentences(session.writeup_disputes()) == set()
    text = disputed.read_text()
    assert "D-wu01-1" not in text.replace("<!-- reopened D-wu01-1 -->", "")
    assert "### D-wu07-1" in text  # another write-up's entry stays


def test_a_dispute_after_a_reopen_takes_a_fresh_number_by_the_rule(repo):
    session = session_of(repo)
    session.reopen("D-wu01-1")
    assert dispute_brand(session).id == "D-wu01-2"  # 1 was reopened: never reused
    df = disputes.load(repo / "disputed.md")
    assert [d.id for d in df.for_writeup(WRITEUP)] == ["D-wu01-2"]
    assert disputes.numbering_problems(df) == []


def test_a_dispute_that_cannot_be_written_changes_nothing_and_is_not_undoable(repo):
    disputed = repo / "disputed.md"
    before = disputed.read_text()
    disputed.chmod(0o444)
    session = session_of(repo)
    try:
        with pytest.raises(OSError, match="read-only"):
            dispute_brand(session)
    finally:
        disputed.chmod(0o644)
    assert disputed.read_text() == before
    assert session.undo() is None
    with pytest.raises(ValueError, match="non-empty why it stays out"):
        session.dispute(BRAND_SENTENCE, rows_show="brand spent 249.00", rows=[], why=" ")
    assert disputed.read_text() == before and session.undo() is None


def test_a_disputed_md_that_does_not_parse_is_an_error_not_an_empty_list(repo):
    (repo / "disputed.md").write_bytes(b"# Disputed claims\n\n## writeups/wu01-shoes.md\n\n> Caf\xe9\n")
    session = session_of(repo)
    with pytest.raises(disputes.DisputeFileError):
        session.writeup_disputes()


# -- saving and the external-change guard ----------------------------------------------------------------


def external_change(repo: Path, session: AuthoringSession) -> str:
    """Delete an entry here, change the file on disk as a colleague would, and try to save: refused."""
    expected = repo / "cases" / CASE / "expected.yaml"
    session.remove("must_not_say", 0)
    theirs = expected.read_text().replace("kind: ordinary", "kind: trap  # changed by a colleague")
    expected.write_text(theirs)
    with pytest.raises(ExternalChangeError):
        session.save()
    assert expected.read_text() == theirs and session.dirty  # not overwritten, our edit still here
    return theirs


def test_an_external_change_then_keep_both_writes_ours_aside_and_shows_theirs(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    session = session_of(repo)
    theirs = external_change(repo, session)
    mine = session.case.doc.dump()
    written, not_reloaded = session.keep_both()
    assert not_reloaded is None and written == expected.with_name("expected.yaml.mine")
    assert written.read_text() == mine and "pacing.overspend" not in mine and "kind: ordinary" in mine
    assert not session.dirty and session.case.kind == "trap"  # theirs, shown
    assert [e.id for e in session.case.must_not_say] == ["pacing.overspend"]
    assert expected.read_text() == theirs
    assert session.undo() is None  # a new history on the reloaded file


def test_keep_both_twice_numbers_the_second_copy_and_keeps_the_first(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    session = session_of(repo)
    copies = []
    for n in range(2):
        session.remove("must_find", 0) if session.case.must_find else session.remove("must_not_say", 0)
        copies.append(session.case.doc.dump())
        expected.write_text(expected.read_text() + f"# colleague's edit {n}\n")
        with pytest.raises(ExternalChangeError):
            session.save()
        written, not_reloaded = session.keep_both()
        assert not_reloaded is None and not session.dirty
    assert (expected.parent / "expected.yaml.mine").read_text() == copies[0]
    assert (expected.parent / "expected.yaml.mine-2").read_text() == copies[1]
    assert written.name == "expected.yaml.mine-2"


def test_an_external_change_then_reload_drops_our_edit(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    session = session_of(repo)
    session.remove("must_find", 0)
    expected.write_text(expected.read_text() + "# touched\n")
    with pytest.raises(ExternalChangeError):
        session.save()
    session.reload()
    assert [e.id for e in session.case.must_find] == ["tracking.conversions_stopped@222"]
    assert not session.dirty
    assert expected.read_text().endswith("# touched\n")
    session.remove("must_find", 0)
    session.save()  # the reloaded file is the one on disk now: the save goes through
    assert "tracking.conversions_stopped" not in expected.read_text() and "# touched" in expected.read_text()


def test_an_external_change_then_overwrite_writes_ours_over_theirs(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    session = session_of(repo)
    external_change(repo, session)
    mine = session.case.doc.dump()
    session.save(force=True)
    assert expected.read_text() == mine and not session.dirty


def test_reload_or_keep_both_of_a_file_made_invalid_keeps_the_edits(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    session = session_of(repo)
    session.remove("must_find", 0)
    mine = session.case.doc.dump()
    expected.write_text("case: [unclosed\n")
    with pytest.raises(CaseFileError):
        session.reload()
    assert session.dirty and session.case.doc.dump() == mine
    written, not_reloaded = session.keep_both()
    assert isinstance(not_reloaded, CaseFileError)
    assert written.read_text() == mine and session.dirty and session.case.doc.dump() == mine
    assert session.undo() is not None  # the history is kept too
    assert expected.read_text() == "case: [unclosed\n"


def test_a_read_only_expected_yaml_is_not_saved_and_the_edit_stays(repo):
    expected = repo / "cases" / CASE / "expected.yaml"
    before = expected.read_text()
    session = session_of(repo)
    session.remove("must_find", 0)
    expected.chmod(0o444)
    try:
        with pytest.raises(OSError):
            session.save()
    finally:
        expected.chmod(0o644)
    assert expected.read_text() == before and session.dirty


# -- validation and the write-up --------------------------------------------------------------------------


def test_problems_name_a_row_that_does_not_resolve_once_the_snapshot_is_there(repo):
    session = session_of(repo, "c03-bikes-broken")
    session.case.snapshot = Snapshot.load(session.case.snapshot_path)
    messages = [p.message for p in session.problems()]
    assert any("row '/daily/400' does not resolve" in m for m in messages), messages


def test_support_problems_warn_for_each_must_find_the_rows_do_not_support(repo):
    session = session_of(repo)
    session.add("must_find", {"id": "pacing.underspend", "evidence": "spend below schedule"})
    entries = session.support_entries()
    assert [(index, finding_id) for index, finding_id, _ in entries] == [
        (0, "tracking.conversions_stopped@222"), (1, "pacing.underspend")]
    verdicts = {"tracking.conversions_stopped@222": SupportVerdict(True, True, ""),
                "pacing.underspend": SupportVerdict(True, False, "spend is on the budget schedule")}
    problems = session.support_problems(entries, verdicts)
    assert [(p.line, p.severity, p.message) for p in problems] == [
        (entries[1][2], "warning",
         "must_find[1]: the rows do not support pacing.underspend according to the reference auditor"
         " (spend is on the budget schedule)")]
    # A check that is not available or undecided is no warning.
    verdicts["pacing.underspend"] = SupportVerdict(False, False, "the check failed")
    assert session.support_problems(entries, verdicts) == []
    verdicts["pacing.underspend"] = SupportVerdict(True, None, "")
    assert session.support_problems(entries, verdicts) == []


def test_what_the_write_up_region_says_without_a_write_up(repo):
    assert session_of(repo, "c02-garden-clean").no_writeup_text() == NO_WRITEUP  # no source: line
    (repo / "writeups" / "wu01-shoes.md").unlink()
    missing = session_of(repo)
    assert missing.writeup is None and missing.writeup_problem == ""
    text = missing.no_writeup_text()
    assert text.startswith("The write-up writeups/wu01-shoes.md named in expected.yaml (source:) is not found")
    assert "This case has no write-up." not in text
    (repo / "writeups" / "wu01-shoes.md").write_bytes("Caf\xe9 lost its tag.\n".encode("latin-1"))
    unreadable = session_of(repo)
    assert unreadable.writeup is None and "not UTF-8 text" in unreadable.writeup_problem
    assert unreadable.no_writeup_text().startswith("Tag from the rows alone")
    assert unreadable.tagged_sentences() == set()
