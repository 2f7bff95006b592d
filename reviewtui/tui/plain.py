"""Text from files and models, ready to draw: never markup, never a terminal escape.

Strings handed to Textual as ``str`` are parsed as markup (``[@click=...]``,
``[link=...]``); strings with control characters reach the terminal raw. Every
string that comes from a case file, a write-up, ``disputed.md``, a result file
or a model is drawn through ``plain`` (one line) or ``para`` (line breaks kept).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.content import Content

from ..files.untrusted import printable


def plain(value: Any, style: str = "") -> Text:
    """One line of untrusted text (line breaks shown as ``\\x0a``)."""
    return Text(printable("" if value is None else value, one_line=True), style=style)


def para(value: Any, style: str = "") -> Text:
    """Untrusted text with its line breaks kept."""
    return Text(printable("" if value is None else value), style=style)


def safe(text: Text, *, one_line: bool = False) -> Text:
    """A styled Text built from untrusted parts, with control characters made visible.

    ``printable`` swaps each control character for one visible character, so
    the spans (styles) stay where they were.
    """
    cleaned = printable(text.plain, one_line=one_line)
    if cleaned != text.plain:
        text.plain = cleaned
    return text


def cells(*values: Any) -> list[Text]:
    """DataTable cells: a ``str`` would be parsed as markup, so every value becomes plain Text."""
    return [safe(v, one_line=True) if isinstance(v, Text) else plain(v) for v in values]


def label(value: Any) -> Content:
    """One line of untrusted text for a tab or border title (which take Content, not Text)."""
    return Content(printable("" if value is None else value, one_line=True))
