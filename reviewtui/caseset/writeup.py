"""A senior's markdown write-up split into blocks and sentences with character spans.

The app's sentence cursor walks these sentences, a tag stores one verbatim as
an entry's ``claim``, and a dispute quotes one in ``disputed.md``. Spans are
offsets into the original text, so the app can highlight the exact source.

The splitter is deliberately simple and predictable rather than clever: a
sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes or brackets) that
is followed by whitespace and then something that can start a sentence, and
not after a known abbreviation or a single-letter initial. Decimals such as
``1,234.50`` never split because no whitespace follows their point. Each
list item, heading and quote paragraph is its own block, so a list item that
lacks a final full stop still ends its sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..files.untrusted import Limits, read_text_file

# Lower-cased, without the trailing point. Followed by a capital these still
# do not end a sentence ("e.g. Google", "vs. March").
ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "vs", "approx", "incl", "excl", "cf", "ca", "mr", "mrs", "ms", "dr", "st", "nr", "fig", "esp", "resp", "est", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "min", "max", "avg", "ytd", "mtd", "wk", "wks", "yr", "yrs", "hr", "hrs"]
)
# "etc." and "no." are left out: followed by a capital they usually do end a
# sentence, and followed by a lower-case word nothing splits anyway.

_HEADING = re.compile(r"^(#{1,6})[ \t]+")
_LIST_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+")
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_RULE = re.compile(r"^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_TABLE = re.compile(r"^[ \t]*\|")
# A header line of a write-up: "**To:** Jonas Weber", "**Date**: 20 March 2025".
_FIELD_LINE = re.compile(r"^[ \t]*(\*\*|__)[^*_\n]{1,40}(:\1|\1:)")
_END = re.compile(r"[.!?]+[\"'”’)\]*_]*")
_STARTER = re.compile(r"[\s]+(?=[A-Z0-9\"'“‘(\[*_`]|$)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_SPACE_RUN = re.compile(r"\s*\n[ \t]*(?:>[ \t]?)*|[ \t]+")
# Inline markup; the named group holds the text that is displayed.
INLINE_MARKUP = re.compile(
    r"(\*\*|__)(?P<strong>.+?)\1|(?<![\w*])(\*|_)(?!\s)(?P<em>.+?)(?<!\s)\3|`(?P<code>[^`]+)`|\[(?P<link>[^\]]+)\]\([^)]*\)"
)
INLINE_GROUPS = ("strong", "em", "code", "link")

TEXT_BLOCKS = ("paragraph", "item", "quote")
# A write-up is a few pages of markdown; only max_bytes applies to it.
LIMITS = Limits("a write-up", max_bytes=1 << 20, max_depth=0, max_items=0, max_chars=0)


class WriteupError(ValueError):
    """A write-up file that cannot be read as text; the message names the file and the fix."""


def read_writeup(path: Path) -> str:
    return read_text_file(path, LIMITS, WriteupError)


@dataclass(frozen=True)
class Block:
    """A markdown block: ``heading``, ``paragraph``, ``item``, ``quote``, ``code``, ``table``, ``rule``, or
    ``fields``: a paragraph of two lines or more, each a ``**Label:** value`` (a write-up's header: to, from, date),
    which holds no claim, so no sentence of it can be tagged or disputed."""

    index: int
    kind: str
    start: int  # span of the whole block in the source, markers included
    end: int
    content_start: int  # where the text after the block marker begins
    marker: str = ""  # "##", "-", "1.", ">"
    level: int = 0  # heading level, or list indentation in columns


@dataclass(frozen=True)
class Sentence:
    index: int
    block: int
    start: int
    end: int
    text: str  # the source slice, line breaks collapsed to single spaces

    @property
    def plain(self) -> str:
        return plain_text(self.text)


@dataclass(frozen=True)
class Writeup:
    text: str
    blocks: tuple[Block, ...]
    sentences: tuple[Sentence, ...]

    def sentences_in(self, block_index: int) -> list[Sentence]:
        return [s for s in self.sentences if s.block == block_index]

    def find(self, quote: str) -> Sentence | None:
        """The sentence a claim or a dispute quotes (compared without markup or spacing differences)."""
        key = claim_key(quote)
        if not key:
            return None
        for sentence in self.sentences:
            if claim_key(sentence.text) == key:
                return sentence
        return None


def collapse_space(text: str) -> str:
    """Line breaks (and quote markers on continuation lines) and runs of blanks become one space."""
    return _SPACE_RUN.sub(" ", text).strip()


def plain_text(text: str) -> str:
    """Inline markdown removed: ``**x**``, ``*x*``, `` `x` ``, ``[x](url)`` -> ``x``."""
    previous = None
    while previous != text:  # nested emphasis such as **a *b* c**
        previous = text
        text = INLINE_MARKUP.sub(lambda m: next(m.group(g) for g in INLINE_GROUPS if m.group(g) is not None), text)
    return text


def claim_key(text: str) -> str:
    """What two quotes of one sentence have in common: plain text, single spaces, no case."""
    return collapse_space(plain_text(text)).casefold()


def parse_writeup(text: str) -> Writeup:
    blocks = _blocks(text)
    sentences: list[Sentence] = []
    for block in blocks:
        if block.kind not in TEXT_BLOCKS:
            continue
        for start, end in _sentence_spans(text, block.content_start, block.end):
            sentences.append(Sentence(len(sentences), block.index, start, end, collapse_space(text[start:end])))
    return Writeup(text, tuple(blocks), tuple(sentences))


def split_sentences(text: str) -> list[Sentence]:
    return list(parse_writeup(text).sentences)


# -- blocks -------------------------------------------------------------------


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line without its newline) for every line."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return out


def _blocks(text: str) -> list[Block]:
    lines = _lines(text)
    blocks: list[Block] = []
    i = 0

    def add(kind: str, start: int, end: int, content_start: int, marker: str = "", level: int = 0) -> None:
        # Trailing blanks are not part of a block.
        while end > content_start and text[end - 1] in " \t\r\n":
            end -= 1
        blocks.append(Block(len(blocks), kind, start, end, content_start, marker, level))

    while i < len(lines):
        offset, line = lines[i]
        end_of = lambda j: lines[j][0] + len(lines[j][1])  # noqa: E731
        if not line.strip():
            i += 1
            continue
        if (opening := _FENCE.match(line)):
            fence = opening.group(1)
            j = i + 1
            while j < len(lines) and not lines[j][1].lstrip().startswith(fence):
                j += 1
            j = min(j, len(lines) - 1)
            add("code", offset, end_of(j), offset)
            i = j + 1
            continue
        if m := _HEADING.match(line):
            add("heading", offset, end_of(i), offset + m.end(), m.group(1), len(m.group(1)))
            i += 1
            continue
        if _RULE.match(line):
            add("rule", offset, end_of(i), offset)
            i += 1
            continue
        if _TABLE.match(line):
            j = i
            while j + 1 < len(lines) and _TABLE.match(lines[j + 1][1]):
                j += 1
            add("table", offset, end_of(j), offset)
            i = j + 1
            continue
        if m := _LIST_ITEM.match(line):
            # An item runs until a blank line, the next item, or another block start.
            j = i
            while j + 1 < len(lines) and _continues(lines[j + 1][1], item=True):
                j += 1
            add("item", offset, end_of(j), offset + m.end(), m.group(2), len(m.group(1).expandtabs(4)))
            i = j + 1
            continue
        if m := _QUOTE.match(line):
            j = i
            while j + 1 < len(lines) and _QUOTE.match(lines[j + 1][1]) and lines[j + 1][1].lstrip(" >\t"):
                j += 1
            add("quote", offset, end_of(j), offset + m.end(), ">")
            i = j + 1
            continue
        j = i
        while j + 1 < len(lines) and _continues(lines[j + 1][1], item=False):
            j += 1
        fields = j > i and all(_FIELD_LINE.match(lines[k][1]) for k in range(i, j + 1))  # two lines or more
        add("fields" if fields else "paragraph", offset, end_of(j), offset)
        i = j + 1
    return blocks


def _continues(line: str, *, item: bool) -> bool:
    """Whether ``line`` continues the current paragraph or list item."""
    if not line.strip():
        return False
    if _HEADING.match(line) or _FENCE.match(line) or _RULE.match(line) or _TABLE.match(line) or _QUOTE.match(line):
        return False
    return not _LIST_ITEM.match(line)


# -- sentences ----------------------------------------------------------------


def _sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    sentence_start = _skip_space(text, start, end)
    pos = sentence_start
    while pos < end:
        m = _END.search(text, pos, end)
        if m is None:
            break
        stop = m.end()
        after = _STARTER.match(text, stop, end)
        at_block_end = _skip_space(text, stop, end) >= end
        if (after or at_block_end) and not _is_abbreviation(text, sentence_start, m.start(), text[m.start()]):
            spans.append((sentence_start, stop))
            sentence_start = _skip_space(text, stop, end)
        pos = stop
    if sentence_start < end and text[sentence_start:end].strip():
        spans.append((sentence_start, end))
    return spans


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in " \t\r\n>":
        pos += 1
    return pos


def _is_abbreviation(text: str, sentence_start: int, point: int, mark: str) -> bool:
    if mark != ".":
        return False
    m = _WORD_BEFORE.search(text, sentence_start, point)
    if m is None:
        return False
    word = m.group(1)
    bare = word.lower()
    if bare in ABBREVIATIONS:
        return True
    # Single letters and dotted initials: "J. Smith", "U.S.", "e.g." written as "e. g."
    return len(word.replace(".", "")) <= 1 or ("." in word and all(len(p) <= 1 for p in word.split(".")))
