r"""Text from a snapshot or a model, written into a markdown report as text, never as markup.

report.md and index.md go to clients and are opened in renderers that show
images, follow links and run HTML. Everything they quote from an account's
export (its name and id, campaign names) or from the model (claims,
evidence, scopes) passes through ``md_text`` first:

- control characters, line breaks and bidi overrides become spaces, so a
  value stays on its line (no fake heading, no hidden text, no broken table);
- the characters that start markup (backslash, backtick, ``* _ [ ] < > | ~``)
  are backslash-escaped, and so is ``&`` (no entity), and a block marker at
  the start (``#``, ``-``, ``+``, ``=``, ``>``, ``1.``): no HTML, no
  ``<!--`` hiding the rest, no image, no link, no heading, no list;
- a URL, a ``www.`` name, an e-mail address or anything a renderer's
  linkify could take for a domain (``word.tld``, ``evil.com/pixel.png``,
  ``summary.no_material_issues``: a dot between a letter or digit and two or
  more letters) is shown as code, which no renderer turns into a link or
  fetches.

``md_cell`` is ``md_text`` for a table cell: GFM splits a row on every ``|``,
even inside a code span, so a ``|`` there is written ``\|`` (which GFM reads
as a ``|`` of the code).

``md_link_target`` makes a relative link of our own (the index to a report)
that a name cannot break out of.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import quote

_LINK_LIKE = re.compile(r"\S*(?:://|www\.)\S*|[^\s@]+@[^\s@]+\.[^\s@]+|\S*\w\.[^\W\d_]{2,}\S*", re.IGNORECASE)
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_BLOCK_START = re.compile(r"^(?:([#+=>-])|(\d+)([.)]))")
_SPACES = re.compile(r"\s+")


def _one_line(text: str) -> str:
    """Control and format characters (line breaks, ESC, bidi overrides, zero-width) as spaces, runs of spaces as one."""
    cleaned = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)
    return _SPACES.sub(" ", cleaned).strip()


def _escape(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


def _as_code(token: str, cell: bool) -> str:
    code = token.replace("`", "'")
    return "`" + (code.replace("|", "\\|") if cell else code) + "`"


def md_cell(value: Any) -> str:
    """``value`` as ``md_text`` writes it, for a cell of a GFM table."""
    return md_text(value, cell=True)


def md_text(value: Any, *, cell: bool = False) -> str:
    """``value`` as one line of markdown that renders as exactly its text (links shown as code)."""
    text = _one_line("" if value is None else str(value))
    parts, last = [], 0
    for match in _LINK_LIKE.finditer(text):
        parts.append(_escape(text[last:match.start()]))
        parts.append(_as_code(match.group(0), cell))
        last = match.end()
    parts.append(_escape(text[last:]))
    out = "".join(parts)
    block = _BLOCK_START.match(out)
    if block:
        out = ("\\" + out) if block.group(1) else f"{block.group(2)}\\{out[len(block.group(2)):]}"
    return out


def md_link_target(path: str) -> str:
    """A relative link target that renders as one link whatever the characters of ``path``."""
    return "<" + quote(path, safe="/") + ">"
