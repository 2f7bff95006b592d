"""``disputed.md``: write-up claims the snapshot rows do not support.

Format (docs/formats.md): a ``# Disputed claims`` title and an intro, one
``## <write-up path>`` section per write-up holding ``### D-<wu-prefix>-<n>``
entries, and a closing section ``## What the disputes say about how we audit``
that always stays last.

Every change edits the text in place: a new entry is inserted at the end of
its write-up's section (the section is created, in write-up order, before the
closing section when absent); reopening removes that entry's ``###`` block.
All other bytes stay as they were, line endings included, and the file is
replaced through ``reviewtui.files.atomic.update_file``: the read, the edit and the
write happen under the folder lock, a change made on disk meanwhile by a
writer that takes no lock is caught right before the rename and the edit is
made again on the new text, a symlink is written through, a read-only file is
refused.

Entry numbers are never reused: a new entry gets one more than the highest
number of that write-up anywhere in the file (an entry after the closing
section counts too). Reopening leaves a one-line HTML comment
``<!-- reopened D-wu03-2 -->`` (invisible when the markdown is rendered) so
the next dispute of that write-up still gets a fresh number. Within a
section, numbers increase, and a number missing from the sequence is one that
was reopened (``numbering_problems`` checks it).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..files.atomic import FileChangedError, decode_text, encode_text, update_file
from ..files.untrusted import LimitError, Limits, read_bytes_limited

DISPUTED_FILE = "disputed.md"
LIMITS = Limits("disputed.md", max_bytes=4 << 20, max_depth=0, max_items=0, max_chars=0)
TITLE = "# Disputed claims"
CLOSING_HEADING = "## What the disputes say about how we audit"
INTRO = (
    "Claims from the seniors' write-ups that the snapshot rows do not support. Each entry quotes the "
    "sentence, says what the rows show instead and why the claim stays out of the case; a claim kept "
    "out of a case here is never scored."
)
CLOSING_PLACEHOLDER = "(to be written once the disputes are in)"

_HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t]*$", re.M)
_ENTRY_ID = re.compile(r"^D-(?P<prefix>[A-Za-z0-9_]+)-(?P<n>\d+)$")
_TOMBSTONE = re.compile(r"<!-- reopened (D-[A-Za-z0-9_]+-\d+) -->")
_ENTRY_HEADING = re.compile(r"^###[ \t]+(D-[A-Za-z0-9_]+-\d+)[ \t]*$", re.M)
SAVE_ATTEMPTS = 3  # an edit made again on a file changed during the save, at most this often
_FIELD = re.compile(r"^- \*\*(?P<name>[^*]+):\*\*[ \t]*(?P<value>.*)$", re.M)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.M)


class DisputeFileError(ValueError):
    """disputed.md cannot be read or edited safely (not UTF-8, or the entry to reopen is not there)."""


@dataclass
class Dispute:
    id: str
    writeup: str  # the section name: the write-up's path as written in expected.yaml's source
    quote: str
    fields: dict[str, str]
    start: int  # span of the ``###`` block in the file's text
    end: int

    @property
    def case(self) -> str:
        return self.fields.get("Case", "")

    @property
    def rows(self) -> list[str]:
        return [r.strip() for r in self.fields.get("Rows", "").split(",") if r.strip()]


@dataclass
class Section:
    writeup: str
    start: int  # offset of the ``##`` line
    end: int  # offset where the next ``##`` (or the end of the file) begins
    disputes: list[Dispute] = field(default_factory=list)


@dataclass
class DisputeFile:
    path: Path
    text: str
    sections: list[Section]
    closing_start: int | None  # offset of the closing section's heading, if present
    reopened: set[str]
    newline: str = "\n"  # the file's own line ending; ``text`` always has "\n"

    @property
    def disputes(self) -> list[Dispute]:
        return [d for s in self.sections for d in s.disputes]

    def for_writeup(self, writeup: str) -> list[Dispute]:
        return [d for s in self.sections if s.writeup == writeup for d in s.disputes]

    def by_id(self, entry_id: str) -> Dispute | None:
        return next((d for d in self.disputes if d.id == entry_id), None)


def writeup_prefix(writeup: str) -> str:
    """``writeups/wu03-outdoor-retail.md`` -> ``wu03`` (the part before the first dash)."""
    stem = Path(writeup).stem
    prefix = stem.split("-", 1)[0]
    return re.sub(r"[^A-Za-z0-9_]", "_", prefix) or "wu"


def disputed_path(repo_root: str | Path) -> Path:
    return Path(repo_root) / DISPUTED_FILE


def load(path: str | Path) -> DisputeFile:
    """Parse disputed.md; a missing file is an empty one."""
    path = Path(path)
    try:
        raw = read_bytes_limited(path, LIMITS)
    except FileNotFoundError:
        raw = None
    except LimitError as exc:
        raise DisputeFileError(f"{path}: {exc}") from None
    except OSError as exc:
        raise DisputeFileError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    return _parse_bytes(path, raw)


def _parse_bytes(path: Path, raw: bytes | None) -> DisputeFile:
    if raw is None:
        return parse(path, "")
    try:
        text, newline = decode_text(raw)
    except UnicodeDecodeError as exc:
        raise DisputeFileError(f"{path}: not UTF-8 text ({exc.reason}); save the file as UTF-8") from None
    df = parse(path, text)
    df.newline = newline
    return df


def parse(path: Path, text: str) -> DisputeFile:
    fences = _fences(text)
    headings = [m for m in _HEADING.finditer(text) if not _in_fence(fences, m.start())]
    sections: list[Section] = []
    closing_start = None
    level2 = [m for m in headings if len(m.group(1)) == 2]
    for i, m in enumerate(level2):
        end = level2[i + 1].start() if i + 1 < len(level2) else len(text)
        if m.group(0).strip() == CLOSING_HEADING:
            closing_start = m.start()
            continue
        section = Section(m.group(2).strip(), m.start(), end)
        entries = [h for h in headings if len(h.group(1)) == 3 and m.start() < h.start() < end]
        for j, h in enumerate(entries):
            block_end = entries[j + 1].start() if j + 1 < len(entries) else end
            section.disputes.append(_dispute(section.writeup, text, h, block_end))
        sections.append(section)
    return DisputeFile(path, text, sections, closing_start, set(_TOMBSTONE.findall(text)))


def _fences(text: str) -> list[int]:
    """Where each code-fence line starts (once per parse: a large file has thousands of headings)."""
    return [m.start() for m in _FENCE.finditer(text)]


def _in_fence(fences: list[int], pos: int) -> bool:
    return bisect.bisect_left(fences, pos) % 2 == 1


def _dispute(writeup: str, text: str, heading: re.Match[str], end: int) -> Dispute:
    body = text[heading.end():end]
    quote_lines = [line[1:].strip() for line in body.splitlines() if line.startswith(">")]
    fields = {m.group("name").strip(): m.group("value").strip() for m in _FIELD.finditer(body)}
    return Dispute(heading.group(2).strip(), writeup, " ".join(quote_lines), fields, heading.start(), end)


def _number(entry_id: str, prefix: str) -> int | None:
    m = _ENTRY_ID.match(entry_id)
    return int(m.group("n")) if m and m.group("prefix") == prefix else None


def next_id(df: DisputeFile, writeup: str) -> str:
    """One more than the highest number of this write-up's prefix anywhere in the file.

    Every ``### D-...`` heading counts (one a hand edit put after the closing section
    included), and so does every reopened entry's tombstone.
    """
    prefix = writeup_prefix(writeup)
    fences = _fences(df.text)
    ids = [m.group(1) for m in _ENTRY_HEADING.finditer(df.text) if not _in_fence(fences, m.start())]
    numbers = [n for entry_id in ids + sorted(df.reopened) if (n := _number(entry_id, prefix)) is not None]
    return f"D-{prefix}-{max(numbers, default=0) + 1}"


def numbering_problems(df: DisputeFile) -> list[str]:
    """Where the file breaks the numbering rule: within a section numbers increase, and a
    number missing from 1..highest is one whose entry was reopened (it has a tombstone)."""
    problems = []
    for section in df.sections:
        prefix = writeup_prefix(section.writeup)
        parsed = [_number(d.id, prefix) for d in section.disputes]
        numbers = [n for n in parsed if n is not None]
        if len(numbers) < len(parsed):
            problems.append(f"{section.writeup}: an entry id is not D-{prefix}-<n>")
            continue
        if numbers != sorted(set(numbers)):
            problems.append(f"{section.writeup}: entry numbers {numbers} do not increase")
        present = set(numbers)
        for n in range(1, max(present, default=0) + 1):
            if n not in present and f"D-{prefix}-{n}" not in df.reopened:
                problems.append(f"{section.writeup}: D-{prefix}-{n} is missing and was not reopened")
    return problems


def format_entry(entry_id: str, quote: str, case_id: str, rows_show: str, rows: list[str], why: str) -> str:
    lines = [f"### {entry_id}", f"> {_one_line(quote)}", ""]
    lines.append(f"- **Case:** {_one_line(case_id)}")
    lines.append(f"- **Rows show:** {_one_line(rows_show)}")
    lines.append(f"- **Rows:** {', '.join(rows)}")
    lines.append(f"- **Why it stays out:** {_one_line(why)}")
    return "\n".join(lines) + "\n"


# What a dispute form must hold: a reason of a few words, not a letter typed by mistake.
MIN_FIELD_WORDS = 3
_WORD = re.compile(r"[^\W_][\w.,%$€£'-]*")
_SIGN_OFF = re.compile(
    r"^(?:(?:kind|warm|warmest|best|many|with)\s+)?(?:regards|wishes|thanks)\b"
    r"|^(?:cheers|thanks|thank you|sincerely|yours)\b[\s,.!]*", re.I)


def not_a_claim(sentence: str) -> str | None:
    """Why a write-up sentence cannot be disputed (a sign-off, a name alone), or None."""
    text = " ".join(sentence.split())
    if _SIGN_OFF.match(text):
        return "it is the write-up's sign-off, not a claim about the account"
    if len(_WORD.findall(text)) < MIN_FIELD_WORDS:
        return f"it has fewer than {MIN_FIELD_WORDS} words; a claim states something about the account"
    return None


ROWS_NEEDED = "the rows (mark them with space in the table, or type their JSON Pointers)"


def field_problems(rows_show: str, why: str, rows: list[str]) -> list[str]:
    """What is missing from a dispute: each of its two reasons needs at least ``MIN_FIELD_WORDS`` words,
    and it needs the rows that show what the rows show instead (a dispute cites its evidence as an entry does)."""
    problems = []
    for name, value in (("what the rows show", rows_show), ("why it stays out", why)):
        if len(_WORD.findall(value)) < MIN_FIELD_WORDS:
            problems.append(f"{name} (at least {MIN_FIELD_WORDS} words)")
    if not rows:
        problems.append(ROWS_NEEDED)
    return problems


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def append_dispute(
    path: str | Path,
    *,
    writeup: str,
    quote: str,
    case_id: str,
    rows_show: str,
    rows: list[str],
    why: str,
) -> Dispute:
    """Add an entry at the end of ``writeup``'s section and save; returns the new entry."""
    for name, value in (("quote", quote), ("rows show", rows_show), ("why it stays out", why)):
        if not str(value).strip():
            raise ValueError(f"a dispute needs a non-empty {name}")
    if not [r for r in rows if str(r).strip()]:
        raise ValueError(f"a dispute needs {ROWS_NEEDED}")

    def edit(df: DisputeFile) -> tuple[str, str]:
        entry_id = next_id(df, writeup)
        entry = format_entry(entry_id, quote, case_id, rows_show, rows, why)
        df = parse(df.path, df.text or _skeleton())
        section = next((s for s in df.sections if s.writeup == writeup), None)
        if section is None:
            text, at = _insert_section(df, writeup)
        else:
            text, at = df.text, section.end  # the next "##" heading (perhaps the closing one) or the end of the file
        before, after = text[:at], text[at:]
        return _with_blank_line(before) + entry + ("\n" if after else "") + after, entry_id

    text, entry_id = _update(path, edit)
    result = parse(Path(path), text).by_id(entry_id)
    assert result is not None
    return result


def reopen(path: str | Path, entry_id: str) -> Dispute:
    """Remove one entry's ``###`` block (leaving a tombstone comment) and save; returns the entry removed."""

    def edit(df: DisputeFile) -> tuple[str, Dispute]:
        dispute = df.by_id(entry_id)
        if dispute is None:
            raise DisputeFileError(f"{df.path}: no entry {entry_id!r} to reopen; it may have been reopened already")
        tombstone = f"<!-- reopened {entry_id} -->\n"
        block = df.text[dispute.start:dispute.end]
        # Keep the blank lines that separated this block from the next one.
        trailing = block[len(block.rstrip("\n")):]
        return df.text[:dispute.start] + tombstone + trailing[1:] + df.text[dispute.end:], dispute

    return _update(path, edit)[1]


def _update(path: str | Path, edit):  # edit: DisputeFile -> (new text, result)
    """Apply ``edit`` to the file as it is on disk, under the lock; again if it changed during the save."""
    path = Path(path)
    out: list = []

    def build(raw: bytes | None) -> bytes:
        df = _parse_bytes(path, raw)
        text, result = edit(df)
        out[:] = [text, result]
        return encode_text(text, df.newline)

    for attempt in range(SAVE_ATTEMPTS):
        try:
            update_file(path, build)
            return out[0], out[1]
        except FileChangedError:
            if attempt == SAVE_ATTEMPTS - 1:
                raise DisputeFileError(f"{path} kept changing on disk during the save; nothing was written, try again") from None
    raise AssertionError("unreachable")


def _skeleton() -> str:
    return f"{TITLE}\n\n{INTRO}\n\n{CLOSING_HEADING}\n\n{CLOSING_PLACEHOLDER}\n"


def _with_blank_line(text: str) -> str:
    """``text`` ending in exactly one blank line (unless it already ends in more)."""
    if not text:
        return text
    if text.endswith("\n\n"):
        return text
    return text + ("\n" if text.endswith("\n") else "\n\n")


def _insert_section(df: DisputeFile, writeup: str) -> tuple[str, int]:
    """Add an empty ``## writeup`` section in write-up order; returns the new text and where entries go."""
    later = [s for s in df.sections if s.writeup > writeup]
    if later:
        at = later[0].start
    elif df.closing_start is not None:
        at = df.closing_start
    else:
        at = len(df.text)
    heading = f"## {writeup}\n"
    before, after = df.text[:at], df.text[at:]
    before = _with_blank_line(before)
    # Entries go right after the heading's blank line; the rest follows after one more blank line.
    return before + heading + "\n" + after, len(before) + len(heading) + 1
