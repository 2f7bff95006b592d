"""The authoring saves never lose a senior's work (reviewtui.files.atomic, ExpectedDoc.save, disputes).

Races are made real: a second writer (``sed -i``, another thread's save, other
processes) runs inside the save, between its check and its rename, through a
hook on the fsync of the new file's temporary copy, which every save makes
right before renaming it over the target.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from reviewtui.caseset import disputes
from reviewtui.caseset.cases import ExpectedDoc, ExternalChangeError, load_case_set, validate_case
from reviewtui.authoring.history import History

from tests.unit.test_cases import EXPECTED, write_case

REPO = Path(__file__).resolve().parents[2]
EVERY_COMMENT = REPO / "tests" / "fixtures" / "yaml" / "every_comment.yaml"

DISPUTED = """\
# Disputed claims

Intro.

## writeups/wu01-shoes.md

### D-wu01-1
> Spend doubled on the 9th.

- **Case:** c01-shoes
- **Rows show:** cost 410.20
- **Rows:** /daily/8
- **Why it stays out:** no change

## writeups/wu05-garden.md

### D-wu05-1
> Brand carries the account.

- **Case:** c05-garden
- **Rows show:** 22%
- **Rows:** /campaigns/0
- **Why it stays out:** 22% is not most

## What the disputes say about how we audit

We over-read single days.
"""

HAND_ENTRY = "### D-wu05-2\n> Written by hand during the save.\n\n- **Case:** c05-garden\n\n"


@pytest.fixture
def during_save(monkeypatch):
    """``during_save(action)``: run ``action`` once inside the next save, after the new content is
    in its temporary file and before that file is renamed over the target."""

    def install(action) -> None:
        real_fsync = os.fsync
        fired = []

        def fsync(fd: int) -> None:
            real_fsync(fd)
            if not fired and stat.S_ISREG(os.fstat(fd).st_mode):
                fired.append(True)
                action()

        monkeypatch.setattr(os, "fsync", fsync)

    return install


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def add_dispute(path: Path, writeup: str = "writeups/wu01-shoes.md", quote: str = "A new claim.") -> disputes.Dispute:
    return disputes.append_dispute(path, writeup=writeup, quote=quote, case_id="c01-shoes",
                                   rows_show="clicks 12", rows=["/daily/1"], why="no support")


# -- races --------------------------------------------------------------------------------------


def test_a_sed_edit_during_the_save_is_not_overwritten(tmp_path, during_save):
    path = write(tmp_path / "expected.yaml", EXPECTED)
    doc = ExpectedDoc.load(path)
    doc.remove_entry("may_find", 0)
    during_save(lambda: subprocess.run(["sed", "-i", "s/on pace/on pace (checked twice)/", str(path)], check=True))
    with pytest.raises(ExternalChangeError, match="during the save"):
        doc.save()
    assert "on pace (checked twice)" in path.read_text()
    assert "waste.zero_conv_search_terms" in path.read_text()
    assert leftovers(tmp_path) == []


def test_an_entry_written_by_hand_during_a_dispute_save_is_kept(tmp_path, during_save):
    path = write(tmp_path / "disputed.md", DISPUTED)
    during_save(lambda: path.write_text(path.read_text().replace("## What the disputes", HAND_ENTRY + "## What the disputes")))
    entry = add_dispute(path)
    text = path.read_text()
    assert HAND_ENTRY in text  # the hand edit survived: the dispute was added again on top of it
    assert entry.id == "D-wu01-2" and "### D-wu01-2\n> A new claim." in text
    assert leftovers(tmp_path) == []


def test_two_saves_at_once_the_second_is_refused(tmp_path, during_save):
    path = write(tmp_path / "expected.yaml", EXPECTED)
    first, second = ExpectedDoc.load(path), ExpectedDoc.load(path)
    first.remove_entry("may_find", 0)
    second.remove_entry("must_not_say", 0)
    outcome: dict[str, str] = {}
    finished = threading.Event()

    def save_second() -> None:
        try:
            second.save()
            outcome["second"] = "saved"
        except ExternalChangeError:
            outcome["second"] = "refused"
        finally:
            finished.set()

    thread = threading.Thread(target=save_second)
    # The second save starts while the first is between its check and its rename; it cannot get
    # past the lock, so this wait runs out and the first save finishes first.
    during_save(lambda: (thread.start(), finished.wait(1.0)))
    first.save()
    thread.join(10)
    assert outcome == {"second": "refused"}
    assert path.read_text() == first.dump()


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from reviewtui.caseset.cases import ExpectedDoc, ExternalChangeError
    path, n, go = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    doc = ExpectedDoc.load(path)
    doc.add_entry("may_find", {"id": f"waste.child_{n}", "evidence": f"written by child {n}"})
    Path(f"{go}.ready{n}").touch()
    while not go.exists():
        pass
    try:
        doc.save()
        print("saved")
    except ExternalChangeError:
        print("refused")
""")


def test_three_processes_saving_at_once_one_wins_and_the_others_are_refused(tmp_path):
    path = write(tmp_path / "case" / "expected.yaml", EXPECTED)
    go = tmp_path / "go"
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(n), str(go)], stdout=subprocess.PIPE, text=True)
                for n in range(3)]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}.ready{n}").exists() for n in range(3)):
        assert time.monotonic() < deadline, "children did not start"
        time.sleep(0.01)
    go.touch()
    results = [child.communicate(timeout=60)[0].strip() for child in children]
    assert sorted(results) == ["refused", "refused", "saved"]
    winner = results.index("saved")
    text = path.read_text()
    assert f"written by child {winner}" in text
    assert sum(f"written by child {n}" in text for n in range(3)) == 1
    assert leftovers(path.parent) == []


# -- kept copies, crashes, links, permissions ---------------------------------------------------


def test_keep_both_never_overwrites_an_earlier_copy(tmp_path):
    path = write(tmp_path / "expected.yaml", EXPECTED)
    first, second = ExpectedDoc.load(path), ExpectedDoc.load(path)
    first.remove_entry("may_find", 0)
    second.remove_entry("must_not_say", 0)
    a = first.save_copy(path.with_name("expected.yaml.mine"))
    b = second.save_copy(path.with_name("expected.yaml.mine"))
    assert (a.name, b.name) == ("expected.yaml.mine", "expected.yaml.mine-2")
    assert a.read_text() == first.dump() and b.read_text() == second.dump()
    assert path.read_text() == EXPECTED


def test_a_killed_saves_temporary_files_are_removed_by_the_next_save_and_ignored_by_git(tmp_path):
    case = tmp_path / "c01"
    path = write(case / "expected.yaml", EXPECTED)
    # What kill -9 between the temporary file and the rename leaves behind.
    write(case / ".expected.yaml.k3j4h5g6.tmp", "half of a save")
    write(case / ".other.yaml.k3j4h5g6.tmp", "not ours")
    doc = ExpectedDoc.load(path)
    doc.remove_entry("may_find", 0)
    doc.save()
    assert leftovers(case) == [".other.yaml.k3j4h5g6.tmp"]
    ignored = subprocess.run(
        ["git", "check-ignore", "cases/c01-x/.expected.yaml.k3j4h5g6.tmp", ".disputed.md.ab12cd34.tmp"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert ignored.stdout.split() == ["cases/c01-x/.expected.yaml.k3j4h5g6.tmp", ".disputed.md.ab12cd34.tmp"]


def test_a_symlinked_file_is_written_through_the_link(tmp_path):
    real = write(tmp_path / "shared" / "expected.yaml", EXPECTED)
    link = tmp_path / "case" / "expected.yaml"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))
    doc = ExpectedDoc.load(link)
    doc.remove_entry("may_find", 0)
    doc.save()
    assert link.is_symlink() and real.read_text() == doc.dump()
    assert leftovers(link.parent) == [] and leftovers(real.parent) == []

    real_md = write(tmp_path / "shared" / "disputed.md", DISPUTED)
    link_md = tmp_path / "disputed.md"
    link_md.symlink_to(real_md)
    add_dispute(link_md)
    assert link_md.is_symlink() and "D-wu01-2" in real_md.read_text()


def test_a_read_only_file_is_refused_with_a_clear_message(tmp_path):
    path = write(tmp_path / "expected.yaml", EXPECTED)
    doc = ExpectedDoc.load(path)
    doc.remove_entry("may_find", 0)
    path.chmod(0o444)
    with pytest.raises(PermissionError, match=r"expected.yaml is read-only \(mode 0444\); make it writable"):
        doc.save()
    assert path.read_text() == EXPECTED and stat.S_IMODE(path.stat().st_mode) == 0o444

    md = write(tmp_path / "disputed.md", DISPUTED)
    md.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        add_dispute(md)
    assert md.read_text() == DISPUTED


# -- line endings, long lines ------------------------------------------------------------------


def test_windows_line_endings_are_kept(tmp_path):
    crlf = EXPECTED.replace("\n", "\r\n")
    path = write(tmp_path / "expected.yaml", crlf)
    doc = ExpectedDoc.load(path)
    doc.add_entry("may_find", {"id": "pacing.underspend", "evidence": "b"})
    doc.save()
    raw = path.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and raw.startswith(crlf[:crlf.index("must_not_say")].encode())
    assert raw.endswith(crlf[crlf.index("must_not_say"):].encode())

    md = write(tmp_path / "disputed.md", DISPUTED.replace("\n", "\r\n"))
    add_dispute(md)
    raw = md.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and b"### D-wu01-2\r\n" in raw
    assert raw.startswith(DISPUTED[:DISPUTED.index("## writeups/wu05")].replace("\n", "\r\n").encode())


def test_a_long_evidence_line_is_not_folded_and_its_comment_stays_beside_it(tmp_path):
    long_line = "    evidence: " + " ".join(f"day {n} cost {n}.00" for n in range(400)) + "  # the whole month"
    assert len(long_line) > 4096
    text = EXPECTED.replace("    evidence: Conversions are 0 from 2025-03-09 while clicks hold near 410 a day", long_line)
    path = write(tmp_path / "expected.yaml", text)
    doc = ExpectedDoc.load(path)
    doc.remove_entry("must_not_say", 0)
    doc.save()
    assert long_line + "\n" in path.read_text()


# -- comments -------------------------------------------------------------------------------------

EVERY_COMMENT_TEXT = EVERY_COMMENT.read_text()
ENTRIES = [("must_find", 0), ("must_find", 1), ("must_find", 2), ("must_not_say", 0)]
TAGS = {"must_find": "mf", "may_find": "my", "must_not_say": "mn"}


def comments(text: str) -> list[str]:
    """Every comment of a YAML text, in order (no value of the fixture holds a " #")."""
    return [m.group(1).strip() for m in re.finditer(r"(?:^|\s)(#.*)$", text, re.M)]


def session_on(tmp_path: Path) -> tuple[Path, ExpectedDoc, History]:
    """The fixture opened the way the author screen opens it: a document and its undo history."""
    path = write(tmp_path / "expected.yaml", EVERY_COMMENT_TEXT)
    doc = ExpectedDoc.load(path)
    return path, doc, History(doc)


def test_an_untouched_file_saves_byte_for_byte(tmp_path):
    """Every layout the seniors write is kept, a flow list whose "[" opens on its own line included,
    however often the tree is written (the emitter once cleared the comments it wrote from the tree)."""
    path, doc, history = session_on(tmp_path)
    assert doc.dump() == doc.dump() == EVERY_COMMENT_TEXT
    for _ in range(2):
        doc.save(force=True)
        assert path.read_text() == EVERY_COMMENT_TEXT
    assert not history.dirty


@pytest.mark.parametrize(("list_name", "index"), ENTRIES)
def test_deleting_an_entry_removes_its_own_comments_and_keeps_every_other(tmp_path, list_name, index):
    path, doc, history = session_on(tmp_path)
    removed = history.remove(list_name, index)
    doc.save()
    text = path.read_text()
    own = f"# of {TAGS[list_name]}{index}:"
    assert [c for c in comments(EVERY_COMMENT_TEXT) if not c.startswith(own)] == comments(text)
    assert removed["id"] not in text
    # Reopened, the file reads the same and saves byte for byte; undone, the edit gives the file back.
    reopened = ExpectedDoc.load(path)
    assert reopened.dump() == text and reopened.data == doc.data
    history.undo()
    assert doc.dump() == EVERY_COMMENT_TEXT and not history.dirty


def test_deleting_every_entry_one_after_another_keeps_the_comments_of_no_entry(tmp_path):
    path, doc, history = session_on(tmp_path)
    for list_name, index in reversed(ENTRIES):
        history.remove(list_name, index)
        doc.save()
    text = path.read_text()
    assert [c for c in comments(EVERY_COMMENT_TEXT) if not c.startswith("# of ")] == \
        [c for c in comments(text) if not c.startswith("# of mf1: after a dash alone")]
    assert ExpectedDoc.load(path).data["must_find"] == [] and ExpectedDoc.load(path).dump() == text


def test_deleting_the_only_entry_keeps_the_comments_around_it(tmp_path):
    path, doc, history = session_on(tmp_path)
    history.remove("must_not_say", 0)
    doc.save()
    text = path.read_text()
    assert text.endswith("must_not_say: []\n  # above the only must_not_say entry\n# the file's closing comment\n# its second line\n")
    assert ExpectedDoc.load(path).data["must_not_say"] == []


@pytest.mark.parametrize("list_name", ["must_find", "may_find", "must_not_say"])
def test_an_entry_added_at_the_end_goes_above_the_closing_comments(tmp_path, list_name):
    path, doc, history = session_on(tmp_path)
    history.add(list_name, {"id": "pacing.underspend", "evidence": "b", "rows": ["/daily/1"]})
    doc.save()
    text = path.read_text()
    assert comments(text) == comments(EVERY_COMMENT_TEXT)
    assert "  - id: pacing.underspend\n    evidence: b\n    rows: [/daily/1]\n" in text
    if list_name == "must_not_say":
        assert text.endswith("  - id: pacing.underspend\n    evidence: b\n    rows: [/daily/1]\n"
                             "# the file's closing comment\n# its second line\n")
    if list_name == "must_find":
        assert text.index("pacing.underspend") < text.index("# after the last entry of must_find")
    reopened = ExpectedDoc.load(path)
    assert reopened.dump() == text and reopened.entry(list_name, -1)["id"] == "pacing.underspend"


def test_editing_and_moving_an_entry_keeps_every_comment_not_its_own(tmp_path):
    path, doc, history = session_on(tmp_path)
    history.replace("must_find", 1, {"id": "waste.zero_conv_search_terms", "evidence": "14 terms, 1,240.50",
                                     "rows": ["/daily/3", "/daily/4"]})
    doc.save()
    assert comments(path.read_text()) == comments(EVERY_COMMENT_TEXT)
    history.replace("must_find", 0, {"id": "tracking.conversions_stopped@333", "evidence": "e"}, new_list="may_find")
    doc.save()
    assert [c for c in comments(EVERY_COMMENT_TEXT) if not c.startswith("# of mf0:")] == comments(path.read_text())


def test_editing_a_list_down_moves_the_comments_of_the_items_gone_to_its_end(tmp_path):
    path, doc, history = session_on(tmp_path)
    for index, field, values in ((0, "rows", ["/daily/9"]), (1, "rows", ["/daily/3"]), (2, "says", ["CPA (up|rose)"])):
        entry = doc.entry("must_find", index)
        history.replace("must_find", index, {**entry, field: values})
    doc.save()
    text = path.read_text()
    assert comments(text) == comments(EVERY_COMMENT_TEXT)
    reopened = ExpectedDoc.load(path)
    assert [e.get("rows") or e.get("says") for e in reopened.data["must_find"]] == [["/daily/9"], ["/daily/3"], ["CPA (up|rose)"]]
    assert reopened.dump() == text


def test_a_comment_inside_a_flow_mapping_is_named_since_a_save_after_an_edit_drops_it(tmp_path):
    """ruamel.yaml does not read a comment inside {...}: an untouched save keeps it (the file is written back
    as it was), an edited one cannot; check and the live validation say so at its line, before it is lost."""
    text = EVERY_COMMENT_TEXT.replace(
        "    says: [\"over-?pac\", \"overspend\"]   # of mn0: end of the says line\n",
        "    says: [\"over-?pac\", \"overspend\"]   # of mn0: end of the says line\n"
        "  - {id: pacing.underspend,   # inside a flow mapping\n     evidence: spend is on pace}\n")
    case_dir = write_case(tmp_path, expected=text.replace("c01-demo", "c01-demo"))
    case = load_case_set(tmp_path).cases[0]
    line = text.splitlines().index("  - {id: pacing.underspend,   # inside a flow mapping") + 1
    assert [(p.line, p.severity) for p in validate_case(case) if "flow mapping" in p.message] == [(line, "warning")]
    case.doc.save(force=True)
    assert (case_dir / "expected.yaml").read_text() == text


# -- numbering and hashing -------------------------------------------------------------------------


def test_dispute_numbers_count_an_entry_after_the_closing_section(tmp_path):
    path = write(tmp_path / "disputed.md", DISPUTED + "\n### D-wu01-2\n> Appended by hand at the very end.\n")
    assert add_dispute(path).id == "D-wu01-3"


def test_reopen_then_dispute_gives_a_fresh_number_and_the_numbering_rule_holds(tmp_path):
    path = write(tmp_path / "disputed.md", DISPUTED)
    second = add_dispute(path, quote="Second.")
    disputes.reopen(path, second.id)
    assert add_dispute(path, quote="Third.").id == "D-wu01-3"
    df = disputes.load(path)
    assert [d.id for d in df.for_writeup("writeups/wu01-shoes.md")] == ["D-wu01-1", "D-wu01-3"]
    assert disputes.numbering_problems(df) == []
    broken = disputes.parse(path, df.text.replace("<!-- reopened D-wu01-2 -->", ""))
    assert disputes.numbering_problems(broken) == ["writeups/wu01-shoes.md: D-wu01-2 is missing and was not reopened"]


def test_the_case_set_digest_is_of_the_bytes_that_were_read(tmp_path):
    case_dir = write_case(tmp_path)
    case_set = load_case_set(tmp_path)
    before = case_set.digest()
    (case_dir / "expected.yaml").write_text((case_dir / "expected.yaml").read_text() + "# saved meanwhile\n")
    (case_dir / "snapshot.json").write_text((case_dir / "snapshot.json").read_text() + "\n")
    assert case_set.digest() == before
    assert load_case_set(tmp_path).digest() != before
