"""Keeping expected.yaml's comments where they were through edits and saves.

ruamel.yaml's round-trip mode keeps comments, with two gaps this module closes:

- It attaches the comment lines that follow an entry to that entry's last key
  (as the tail of the key's end-of-line comment). Removing the entry would
  remove them with it: the comment above the next entry, the comments after a
  list's last entry, the file's closing comment. ``remove_entry`` hands those
  lines on to the entry before, or to the list's key; ``append_entry`` moves
  them below an entry added at the end.
- Its emitter writes a flow list (``rows: [/daily/1, /daily/2]``) on one line
  and drops a comment inside a multi-line one. ``Emitter`` writes such a
  comment and breaks the line after it, aligned under the first item.
- Setting a list value replaces its node and its comments; ``set_items``
  changes the items in place, and the comments of items removed go to the end.

The rule (docs/cases.md): removing an entry removes its own lines, the
comments on them and the comment lines between its keys; every other comment
stays, in order, where it was relative to the entries that remain.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.error import CommentMark
from ruamel.yaml.events import SequenceEndEvent
from ruamel.yaml.tokens import CommentToken


class Emitter(RoundTripEmitter):
    """ruamel.yaml's round-trip emitter, writing the comments inside multi-line flow lists.

    ruamel keeps a comment inside a flow list as the "before" comment of the item after it
    (one after ``[`` belongs to the first item) and one after the last item in the list's end
    comments; its emitter writes none of them. This one writes each where it stood, breaking
    the line after it and going on under the first item (``]`` under ``[``). The event's
    comment lists are the tree's own: they are read, never cleared, so the tree dumps the
    same every time.
    """

    def expect_flow_sequence(self, force_flow_indent: bool | None = False) -> None:
        self._bracket_columns = [*getattr(self, "_bracket_columns", []), self.column]
        super().expect_flow_sequence(force_flow_indent)

    def expect_first_flow_sequence_item(self) -> None:
        if isinstance(self.event, SequenceEndEvent):
            self._close_flow_sequence()
            super().expect_first_flow_sequence_item()
            return
        # Where the first item starts: a line broken after a comment continues under it.
        column = self.column
        self._item_columns = [*getattr(self, "_item_columns", []), column]
        if _before(self.event):  # a comment right after "["
            self._comment_then_item(column)
            return
        super().expect_first_flow_sequence_item()

    def expect_flow_sequence_item(self) -> None:
        if isinstance(self.event, SequenceEndEvent):
            self._close_flow_sequence()
            super().expect_flow_sequence_item()
            return
        if not _before(self.event):
            super().expect_flow_sequence_item()
            return
        # The comment that stood after the previous item's comma, then the item on a new line.
        self.write_indicator(self.flow_seq_separator, False)
        columns = getattr(self, "_item_columns", [])
        self._comment_then_item(columns[-1] if columns else (self.indent or 0))

    def _comment_then_item(self, column: int) -> None:
        for token in _before(self.event) or []:
            self.write_comment(token)  # ends the line
        self._go_to(column)
        self.states.append(self.expect_flow_sequence_item)
        comment = self.event.comment
        before, comment[1] = comment[1], None  # written above; the item itself is written without it
        try:
            self.expect_node(sequence=True)
        finally:
            comment[1] = before

    def _close_flow_sequence(self) -> None:
        """Before "]": the comments that stood after the last item (and its comma), "]" on a line of its own."""
        item_columns, bracket_columns = getattr(self, "_item_columns", []), getattr(self, "_bracket_columns", [])
        first_item_seen = bool(item_columns) and len(item_columns) == len(bracket_columns)
        if first_item_seen:
            item_columns.pop()
        bracket = bracket_columns.pop() + 1 if bracket_columns else self.column  # "[" follows a space
        end = self.event.comment[1] if self.event.comment and len(self.event.comment) > 1 else None
        if not end:
            return
        if first_item_seen:
            self.write_indicator(self.flow_seq_separator, False)
        for token in end:
            self.write_comment(token)
        self._go_to(bracket)

    def _go_to(self, column: int) -> None:
        self.stream.write(" " * column)
        self.column = column
        self.whitespace = True


def _before(event: Any) -> list | None:
    """The comment lines kept before a flow item (ruamel's slot 1 of the event's comment)."""
    comment = getattr(event, "comment", None)
    return comment[1] if comment and len(comment) > 1 and comment[1] else None


def _token(value: str) -> CommentToken:
    return CommentToken(value, CommentMark(0), None)


def _last_slot(node: Any) -> tuple[dict, Any, int] | None:
    """Where the comment after ``node``'s last line is kept: (ca.items, key, position)."""
    if isinstance(node, CommentedMap) and node:
        key = list(node.keys())[-1]
        value = node[key]
        if isinstance(value, (CommentedMap, CommentedSeq)) and value and not value.fa.flow_style():
            return _last_slot(value)
        return node.ca.items, key, 2
    if isinstance(node, CommentedSeq) and node:
        index = len(node) - 1
        value = node[index]
        if isinstance(value, (CommentedMap, CommentedSeq)) and value and not value.fa.flow_style():
            return _last_slot(value)
        return node.ca.items, index, 0
    return None


def take_following_lines(node: Any) -> str:
    """Detach and return the comment lines after ``node`` (its last line's own comment stays)."""
    slot = _last_slot(node)
    if slot is None:
        return ""
    items, key, position = slot
    entry = items.get(key)
    token = entry[position] if entry and len(entry) > position else None
    if token is None or "\n" not in token.value:
        return ""
    head, _, tail = token.value.partition("\n")
    token.value = head + "\n"
    return tail


def give_following_lines(node: Any, lines: str) -> None:
    """Put comment ``lines`` right after ``node``'s last line."""
    if not lines:
        return
    slot = _last_slot(node)
    if slot is None:
        return
    items, key, position = slot
    entry = items.setdefault(key, [None, None, None, None])
    while len(entry) <= position:
        entry.append(None)
    if entry[position] is None:
        entry[position] = _token("\n" + lines)
    else:
        entry[position].value = _ends_line(entry[position].value) + lines


def _ends_line(value: str) -> str:
    return value if value.endswith("\n") else value + "\n"


def remove_entry(parent: CommentedMap, list_name: str, index: int) -> Any:
    """Pop ``parent[list_name][index]``, keeping the comments that are not its own."""
    seq: CommentedSeq = parent[list_name]
    following = take_following_lines(seq[index])
    removed = seq.pop(index)
    if not seq:
        _empty_list(parent, list_name, following)
    elif index > 0:
        give_following_lines(seq[index - 1], following)
    elif following:
        _before_first_item(parent, list_name, following)
    return removed


def set_items(seq: CommentedSeq, values: list[Any]) -> None:
    """Make ``seq`` hold ``values``, keeping its comments: an item that stays keeps its own, and the
    comments of the items no longer there move to the end of the list."""
    if list(seq) == values:
        return
    for index, value in enumerate(values[: len(seq)]):
        if seq[index] != value:
            seq[index] = value
    orphans: list[CommentToken] = []
    while len(seq) > len(values):
        last = len(seq) - 1
        slots = seq.ca.items.pop(last, None) or []
        orphans = [t for slot in slots[:2] for t in (slot if isinstance(slot, list) else [slot]) if t] + orphans
        seq.pop(last)  # by its index: CommentedSeq renumbers the comments of a negative one wrongly
    seq.extend(values[len(seq):])
    if not orphans:
        return
    if seq.fa.flow_style() or not seq:
        seq.ca.end = [_token(t.value if t.value.endswith("\n") else t.value + "\n") for t in orphans] + (seq.ca.end or [])
    else:
        give_following_lines(seq, "".join(_ends_line(t.value.lstrip("\n")) for t in orphans))


def append_entry(seq: CommentedSeq, node: Any) -> None:
    """Append ``node``; the comment lines after the old last entry move below the new one."""
    following = take_following_lines(seq[-1]) if seq else ""
    seq.append(node)
    give_following_lines(node, following)


def _before_first_item(parent: CommentedMap, list_name: str, lines: str) -> None:
    key_comments = parent.ca.items.setdefault(list_name, [None, None, None, None])
    if len(key_comments) > 3 and key_comments[3]:
        key_comments[3].append(_token(lines))
    elif key_comments[2] is not None:
        key_comments[2].value = _ends_line(key_comments[2].value) + lines
    else:
        key_comments[2] = _token("\n" + lines)


def _empty_list(parent: CommentedMap, list_name: str, following: str) -> None:
    """Replace an emptied list with ``[]``, its comments written after that line.

    An emptied block list would keep the comment lines that stood above its items and
    dump as invalid YAML, so they move below the key, followed by the removed entry's
    following lines.
    """
    empty = CommentedSeq()
    empty.fa.set_flow_style()
    parent[list_name] = empty
    key_comments = parent.ca.items.get(list_name)
    head, lines = "\n", ""
    if key_comments:
        if key_comments[2] is not None:
            head, _, lines = key_comments[2].value.partition("\n")
            head += "\n"
        if len(key_comments) > 3 and key_comments[3]:
            lines += "".join(" " * t.start_mark.column + t.value for t in key_comments[3])
            key_comments[3] = None
    lines += following
    if head != "\n" or lines:
        parent.ca.items.setdefault(list_name, [None, None, None, None])[2] = _token(head + lines)
