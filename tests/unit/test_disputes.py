"""disputed.md parsing and atomic append / reopen (reviewtui.caseset.disputes)."""

from pathlib import Path

import pytest

from reviewtui.caseset import disputes

EXISTING = """# Disputed claims

What this file is.

## writeups/wu01-shoes.md

### D-wu01-1
> Spend doubled on the 9th.

- **Case:** c01-shoes
- **Rows show:** cost 410.20 on 2025-03-09, same as the week before
- **Rows:** /daily/8, /daily/9
- **Why it stays out:** the rows show no change

## writeups/wu05-garden.md

### D-wu05-1
> Brand carries the account.

- **Case:** c05-garden
- **Rows show:** brand has 22% of conversions
- **Rows:** /campaigns/0
- **Why it stays out:** 22% is not most

## What the disputes say about how we audit

We over-read single days.
"""


def add(path: Path, writeup: str, quote: str = "A claim.", rows=("/daily/1",)) -> disputes.Dispute:
    return disputes.append_dispute(
        path, writeup=writeup, quote=quote, case_id="c01-shoes", rows_show="clicks 12", rows=list(rows), why="no support"
    )


def test_parse_reads_sections_entries_and_fields(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING)
    df = disputes.load(path)
    assert [s.writeup for s in df.sections] == ["writeups/wu01-shoes.md", "writeups/wu05-garden.md"]
    first = df.by_id("D-wu01-1")
    assert first.quote == "Spend doubled on the 9th."
    assert first.case == "c01-shoes"
    assert first.rows == ["/daily/8", "/daily/9"]
    assert first.fields["Why it stays out"] == "the rows show no change"


def test_append_goes_to_the_end_of_its_section_and_keeps_other_bytes(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING)
    entry = add(path, "writeups/wu01-shoes.md", "Conversions stopped.")
    text = path.read_text()
    assert entry.id == "D-wu01-2"
    old_block = EXISTING[EXISTING.index("### D-wu01-1"):EXISTING.index("## writeups/wu05")]
    new_block = text[text.index("### D-wu01-2"):text.index("## writeups/wu05")]
    # Everything that was there is still there, in order, byte for byte.
    assert text.replace(new_block, "") == EXISTING
    assert old_block in text
    assert new_block.startswith("### D-wu01-2\n> Conversions stopped.\n\n- **Case:** c01-shoes\n")
    assert new_block.endswith("- **Why it stays out:** no support\n\n")


def test_new_section_is_created_in_writeup_order_before_the_closing_section(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING)
    add(path, "writeups/wu03-bikes.md")
    add(path, "writeups/wu09-toys.md")
    df = disputes.load(path)
    assert [s.writeup for s in df.sections] == [
        "writeups/wu01-shoes.md",
        "writeups/wu03-bikes.md",
        "writeups/wu05-garden.md",
        "writeups/wu09-toys.md",
    ]
    text = path.read_text()
    assert text.rstrip().endswith("## What the disputes say about how we audit\n\nWe over-read single days.")
    assert df.by_id("D-wu03-1").writeup == "writeups/wu03-bikes.md"
    for block in ("### D-wu01-1", "### D-wu05-1"):
        start = EXISTING.index(block)
        original = EXISTING[start:EXISTING.index("## ", start + 4)]
        assert original in text


def test_missing_file_is_created_with_title_and_closing_section(tmp_path):
    path = tmp_path / "disputed.md"
    add(path, "writeups/wu02-x.md")
    text = path.read_text()
    assert text.startswith("# Disputed claims\n\n")
    assert text.index("## writeups/wu02-x.md") < text.index(disputes.CLOSING_HEADING)
    assert disputes.load(path).by_id("D-wu02-1").rows == ["/daily/1"]


def test_reopen_removes_only_that_block_and_numbers_are_never_reused(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING)
    second = add(path, "writeups/wu01-shoes.md", "Second claim.")
    disputes.reopen(path, second.id)
    text = path.read_text()
    assert "Second claim." not in text
    assert text.replace("<!-- reopened D-wu01-2 -->\n\n", "") == EXISTING
    assert add(path, "writeups/wu01-shoes.md", "Third claim.").id == "D-wu01-3"
    with pytest.raises(disputes.DisputeFileError, match="D-wu01-2"):
        disputes.reopen(path, "D-wu01-2")


def test_reopen_first_entry_keeps_the_next_one_intact(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING)
    add(path, "writeups/wu01-shoes.md", "Kept claim.")
    before = path.read_text()
    kept = before[before.index("### D-wu01-2"):before.index("## writeups/wu05")]
    disputes.reopen(path, "D-wu01-1")
    after = path.read_text()
    assert kept in after and "Spend doubled" not in after
    assert disputes.load(path).for_writeup("writeups/wu01-shoes.md")[0].id == "D-wu01-2"


def test_empty_fields_are_refused(tmp_path):
    with pytest.raises(ValueError, match="rows show"):
        disputes.append_dispute(
            tmp_path / "d.md", writeup="writeups/wu1.md", quote="q", case_id="c", rows_show=" ", rows=[], why="w"
        )
    with pytest.raises(ValueError, match="needs the rows"):  # once written as `**Rows:** (none)`
        disputes.append_dispute(
            tmp_path / "d.md", writeup="writeups/wu1.md", quote="q", case_id="c", rows_show="r", rows=[" "], why="w"
        )
    assert not (tmp_path / "d.md").exists()


def test_headings_inside_code_fences_are_ignored(tmp_path):
    path = tmp_path / "disputed.md"
    path.write_text(EXISTING.replace("We over-read single days.", "```\n## not a section\n```"))
    assert [s.writeup for s in disputes.load(path).sections] == ["writeups/wu01-shoes.md", "writeups/wu05-garden.md"]
