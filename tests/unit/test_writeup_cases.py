"""The twelve senior write-ups, the cases built from them and disputed.md hold together.

- every write-up sits beside its snapshot, is 250 to 700 words, dated after the snapshot's as_of and signed;
- every claim of a write-up case is one whole sentence of its write-up, as the app's sentence cursor sees it;
- disputed.md parses with ``reviewtui.caseset.disputes``; each dispute quotes a whole sentence of the write-up its
  section names, belongs to the case built from that write-up, and points at rows that resolve;
- a disputed sentence is never also the claim of a case entry.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

import pytest

from reviewtui.caseset import disputes
from reviewtui.caseset.cases import load_case_set
from reviewtui.caseset.snapshot import Snapshot
from reviewtui.caseset.writeup import claim_key, parse_writeup

REPO = Path(__file__).resolve().parents[2]
WRITEUPS = sorted((REPO / "writeups").glob("wu*.md"))
DISPUTED = REPO / "disputed.md"
DATE = re.compile(r"\b(\d{1,2}) (January|February|March|April|May|June|July|August|September|October|November|December) (20\d\d)\b")
AUTHOR = re.compile(r"(?:From|By|Prepared by|Written by)\W{0,6}([A-Z][\w\u00c0-\u017f]+ [A-Z][\w\u00c0-\u017f]+)")

pytestmark = pytest.mark.skipif(not WRITEUPS, reason="no write-ups yet")


@pytest.fixture(scope="module")
def case_set():
    return load_case_set(REPO / "cases")


@pytest.fixture(scope="module")
def writeup_cases(case_set):
    return {case.source: case for case in case_set.cases if case.source}


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@pytest.mark.slow
def test_twelve_writeups_each_with_its_snapshot_and_case(writeup_cases):
    assert len(WRITEUPS) == 12
    for path in WRITEUPS:
        assert path.with_name(path.stem + ".snapshot.json").is_file(), path
        assert _rel(path) in writeup_cases, f"no case has source: {_rel(path)}"


@pytest.mark.parametrize("path", WRITEUPS, ids=[p.stem for p in WRITEUPS])
def test_writeup_length_date_and_author(path):
    text = path.read_text(encoding="utf-8")
    words = len(text.split())
    assert 250 <= words <= 700, f"{path.name}: {words} words"
    snapshot = Snapshot.load(path.with_name(path.stem + ".snapshot.json"))
    as_of = date.fromisoformat(snapshot.data["period"]["as_of"])
    head = "\n".join(text.splitlines()[1:8])  # below the title, which may name the period
    m = DATE.search(head)
    assert m, f"{path.name}: no date in the header"
    written = datetime.strptime(" ".join(m.groups()), "%d %B %Y").date()
    assert 0 < (written - as_of).days <= 7, f"{path.name}: dated {written}, snapshot as_of {as_of}"
    assert AUTHOR.search(head), f"{path.name}: no author in the header"


def test_at_least_five_auditors():
    authors = {AUTHOR.search("\n".join(p.read_text(encoding="utf-8").splitlines()[:8])).group(1) for p in WRITEUPS}
    assert len(authors) >= 5, authors


@pytest.mark.slow
def test_every_claim_is_a_whole_sentence_of_its_writeup(writeup_cases):
    for source, case in writeup_cases.items():
        writeup = parse_writeup((REPO / source).read_text(encoding="utf-8"))
        assert case.must_find, case.case_id
        for entry in case.expectations():
            if entry.list_name == "must_find":
                assert entry.claim, f"{case.case_id} {entry.id}: a must_find of a write-up case needs its claim"
            if entry.claim:
                assert writeup.find(entry.claim) is not None, f"{case.case_id} {entry.id}: {entry.claim!r}"


def test_disputed_md_parses_and_every_dispute_holds(case_set, writeup_cases):
    df = disputes.load(DISPUTED)
    assert df.text.startswith(disputes.TITLE)
    assert df.closing_start is not None and all(s.start < df.closing_start for s in df.sections)
    closing = df.text[df.closing_start:].split("\n", 1)[1]
    assert len(closing.split()) > 100, "the closing section says what the disputes mean"
    ids = [d.id for d in df.disputes]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 8 and len({d.writeup for d in df.disputes}) >= 5
    assert [s.writeup for s in df.sections] == sorted(s.writeup for s in df.sections)
    # Numbers are never reused: they increase, and a gap is a reopened entry (docs/writeups.md).
    assert disputes.numbering_problems(df) == []
    for section in df.sections:
        prefix = disputes.writeup_prefix(section.writeup)
        for d in section.disputes:
            assert d.id.startswith(f"D-{prefix}-")
            case = writeup_cases[section.writeup]
            assert d.case == case.case_id, d.id
            assert set(d.fields) >= {"Case", "Rows show", "Rows", "Why it stays out"}, d.id
            writeup = parse_writeup((REPO / section.writeup).read_text(encoding="utf-8"))
            assert writeup.find(d.quote) is not None, f"{d.id}: quote is not a sentence of {section.writeup}"
            assert d.rows, d.id
            for pointer in d.rows:
                case.snapshot.resolve(pointer)


def test_a_disputed_sentence_is_never_a_claim(case_set):
    claims = {claim_key(e.claim) for case in case_set.cases for e in case.expectations() if e.claim}
    both = [d.id for d in disputes.load(DISPUTED).disputes if claim_key(d.quote) in claims]
    assert both == []
