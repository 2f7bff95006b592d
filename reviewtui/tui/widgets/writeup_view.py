"""The write-up, rendered as light markdown, with a sentence cursor.

Each markdown block is one ``BlockView``; a block re-renders only when the
cursor or a mark touches one of its sentences. Inline markup (``**``, ``*``,
backticks, links) is rendered as style, and the sentence spans from
``reviewtui.caseset.writeup`` are mapped from source offsets to the displayed text,
so the highlight covers exactly the sentence.
"""

from __future__ import annotations

import bisect
import re

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from ...caseset.writeup import INLINE_GROUPS, INLINE_MARKUP, Block, Sentence, Writeup
from ..plain import para, safe

_CONTINUATION = re.compile(r"\n[ \t]*(?:>[ \t]?)*")

STYLES = {
    "strong": Style(bold=True),
    "em": Style(italic=True),
    "code": Style(color="cyan"),
    "link": Style(underline=True),
}


def render_block(source: str, block: Block) -> tuple[Text, list[int]]:
    """The block's displayed text and, for each displayed character, its offset in ``source``."""
    text = Text()
    offsets: list[int] = []

    # A header's fields keep their lines; elsewhere a line break inside a block is a space.
    line_break = "\n" if block.kind == "fields" else " "

    def put(chunk_start: int, chunk_end: int, style: Style | None = None) -> None:
        chunk = source[chunk_start:chunk_end]
        # Line breaks inside a paragraph (and quote markers after them) display as one space.
        pos = 0
        for m in _CONTINUATION.finditer(chunk):
            line_end = m.start()
            if line_break == "\n":  # a header line's trailing blanks (markdown's hard break) are not shown
                line_end = pos + len(chunk[pos:line_end].rstrip(" "))
            text.append(chunk[pos:line_end], style)
            offsets.extend(range(chunk_start + pos, chunk_start + line_end))
            text.append(line_break, style)
            offsets.append(chunk_start + m.start())
            pos = m.end()
        text.append(chunk[pos:], style)
        offsets.extend(range(chunk_start + pos, chunk_end))

    start, end = block.content_start, block.end
    if block.kind in ("code", "table", "rule"):
        text.append(source[block.start:block.end], Style(dim=True))
        return text, list(range(block.start, block.end))
    pos = start
    for m in INLINE_MARKUP.finditer(source, start, end):
        put(pos, m.start())
        group = next(g for g in INLINE_GROUPS if m.group(g) is not None)
        put(m.start(group), m.end(group), STYLES[group])
        pos = m.end()
    put(pos, end)
    return text, offsets


def _prefix(block: Block) -> Text:
    if block.kind == "item":
        bullet = "•" if block.marker in "-*+" else block.marker
        return Text(" " * block.level + f" {bullet} ", style="bold")
    if block.kind == "quote":
        return Text("▌ ", style="dim")
    return Text("")


class BlockView(Static):
    """One markdown block; highlights the sentences it is told about."""

    def __init__(self, source: str, block: Block, sentences: list[Sentence]) -> None:
        super().__init__(classes=f"block block-{block.kind}" + (f" heading-{block.level}" if block.kind == "heading" else ""))
        self.source = source
        self.block = block
        self.sentences = sentences
        self.text, self.offsets = render_block(source, block)
        self.cursor: int | None = None  # sentence index under the cursor, if in this block
        self.tagged: set[int] = set()
        self.disputed: set[int] = set()

    def on_mount(self) -> None:
        self.redraw()

    def display_range(self, sentence: Sentence) -> tuple[int, int]:
        lo = bisect.bisect_left(self.offsets, sentence.start)
        hi = bisect.bisect_left(self.offsets, sentence.end)
        return lo, hi

    def redraw(self) -> None:
        text = self.text.copy()
        for sentence in self.sentences:
            lo, hi = self.display_range(sentence)
            if sentence.index in self.disputed:
                text.stylize("strike", lo, hi)
                text.stylize(Style(color="red"), lo, hi)
            elif sentence.index in self.tagged:
                text.stylize(Style(color="green", underline=True), lo, hi)
            if sentence.index == self.cursor:
                text.stylize("reverse", lo, hi)
        marks = ""
        if any(s.index in self.disputed for s in self.sentences):
            marks += " ✗"
        if any(s.index in self.tagged for s in self.sentences):
            marks += " ✓"
        self.update(safe(_prefix(self.block) + text + Text(marks, style="bold")))


class WriteupView(VerticalScroll, can_focus=True):
    """The write-up with a sentence cursor; ``up``/``down`` move between sentences."""

    BINDINGS = [
        Binding("up", "move(-1)", "Prev sentence", show=False),
        Binding("down", "move(1)", "Next sentence", show=False),
        Binding("pageup", "move(-8)", "Up 8 sentences", show=False),
        Binding("pagedown", "move(8)", "Down 8 sentences", show=False),
        Binding("home", "jump(0)", "First sentence", show=False),
        Binding("end", "jump(-1)", "Last sentence", show=False),
    ]

    cursor: reactive[int] = reactive(0, init=False)

    class SentenceChanged(Message):
        def __init__(self, sentence: Sentence | None) -> None:
            super().__init__()
            self.sentence = sentence

    def __init__(self, writeup: Writeup | None, empty: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.writeup = writeup
        self.empty = empty
        self.tagged: set[int] = set()
        self.disputed: set[int] = set()
        self._views: list[BlockView] = []

    def compose(self):
        if self.writeup is None or not self.writeup.sentences:
            yield Static(para(self.empty), classes="empty-state")
            return
        for block in self.writeup.blocks:
            view = BlockView(self.writeup.text, block, self.writeup.sentences_in(block.index))
            self._views.append(view)
            yield view

    def on_mount(self) -> None:
        self._paint(None, self.cursor)

    @property
    def sentence(self) -> Sentence | None:
        if self.writeup is None or not self.writeup.sentences:
            return None
        return self.writeup.sentences[self.cursor]

    def action_move(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_jump(self, where: int) -> None:
        if self.writeup is not None and self.writeup.sentences:
            self.move_to(where % len(self.writeup.sentences))

    def move_to(self, index: int) -> None:
        if self.writeup is None or not self.writeup.sentences:
            return
        self.cursor = max(0, min(index, len(self.writeup.sentences) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self._paint(old, new)
        self.post_message(self.SentenceChanged(self.sentence))

    def set_marks(self, tagged: set[int], disputed: set[int]) -> None:
        self.tagged, self.disputed = tagged, disputed
        for view in self._views:
            view.tagged, view.disputed = tagged, disputed
            view.redraw()

    def _paint(self, old: int | None, new: int) -> None:
        if self.writeup is None or not self.writeup.sentences:
            return
        if old is not None:  # first clear the old block, which may also be the new one
            self._views[self.writeup.sentences[old].block].cursor = None
            self._views[self.writeup.sentences[old].block].redraw()
        current = self._views[self.writeup.sentences[new].block]
        current.cursor = new
        current.redraw()
        self.call_after_refresh(self.scroll_to_widget, current, animate=False)
