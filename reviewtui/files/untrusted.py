"""Rules for input that comes from other people or from a model.

Case files, write-ups, ``disputed.md``, result files, replay files and model
outputs are all untrusted: this module holds the one implementation of each
rule they pass through, so the CLI, the core and the app apply the same ones.

- ``printable``: control characters (terminal escapes, bidi overrides) shown
  as visible characters (ESC as ␛) before anything reaches a terminal.
- ``says_regex``: ``says`` patterns run on RE2, which matches in linear time,
  so no pattern can hang a run; a pattern RE2 cannot run is refused.
- ``read_bytes_limited``, ``check_tree``: file sizes, nesting, list lengths and
  string lengths are checked before anything walks the data.
- ``inside``: a path read from a file must resolve (links followed) inside
  the folder it belongs to.

No Textual import here: the app renders what ``printable`` returns as plain
``Text``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import chain
from operator import methodcaller
from pathlib import Path
from typing import Any

import re2

# Each control character becomes one visible character of the same length, so
# styled text keeps its spans: C0 controls and DEL their Unicode "control
# pictures" (ESC shows as ␛), C1 controls and the bidirectional marks and
# overrides (which reorder what a terminal shows) the replacement character.
_PICTURES = {code: 0x2400 + code for code in range(0x20)} | {0x7F: 0x2421}
_OTHERS = dict.fromkeys([*range(0x80, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                         0x2028, 0x2029], 0xFFFD)
_ONE_LINE = str.maketrans(_PICTURES | _OTHERS)
# With line breaks kept, a carriage return (of a CRLF file) becomes a blank.
_MULTI_LINE = str.maketrans({k: v for k, v in (_PICTURES | _OTHERS).items() if k not in (0x09, 0x0A)} | {0x0D: 0x20})


def printable(value: Any, *, one_line: bool = False) -> str:
    """``value`` as text with every control character replaced by a visible one (ESC as ␛).

    Nothing a terminal acts on (escape sequences, bell, backspace, carriage
    return, bidi overrides) survives. ``one_line`` also replaces line breaks and
    tabs (newline as ␊), for table cells, titles and one-line messages.
    """
    text = value if isinstance(value, str) else str(value)
    return text.translate(_ONE_LINE if one_line else _MULTI_LINE)


_UNPICTURES = str.maketrans({picture: code for code, picture in _PICTURES.items()})


def unprintable(text: str) -> str:
    """``printable``'s control pictures turned back into the characters they show (␉ a tab, ␛ ESC):
    what a form field, shown through ``printable``, holds as a value to write back."""
    return text.translate(_UNPICTURES)


# --------------------------------------------------------------------------
# says patterns
# --------------------------------------------------------------------------

MAX_PATTERN_CHARS = 500
# RE2's memory budget per compiled pattern; a pattern whose automaton needs
# more (huge counted repetitions) is refused rather than run.
_PATTERN_MEMORY = 8 << 20


class UnsafePattern(ValueError):
    """A ``says`` pattern that cannot be run safely (or is not a regex at all)."""


def _options(literal: bool) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False
    options.literal = literal
    options.log_errors = False  # RE2 would log to stderr; the caller reports the problem
    options.max_mem = _PATTERN_MEMORY
    return options


def says_regex(pattern: str, *, literal: bool = False) -> Any:
    """``pattern`` compiled with RE2, case-insensitive. Raises UnsafePattern saying why.

    RE2 has no backtracking, so matching time grows linearly with the text;
    it has no backreferences or lookaround either, and such a pattern is
    refused (the message says which feature). ``literal`` matches the text
    itself, for scoring a pattern that ``check`` refused.
    """
    if not isinstance(pattern, str):
        raise UnsafePattern(f"a pattern must be a string, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS and not literal:
        raise UnsafePattern(f"pattern is {len(pattern):,} characters; the limit is {MAX_PATTERN_CHARS}")
    try:
        return re2.compile(pattern, _options(literal))
    except re2.error as exc:
        try:
            re.compile(pattern)
        except re.error as invalid:
            raise UnsafePattern(f"not a valid regex ({invalid})") from None
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise UnsafePattern(
            f"not a pattern the safe regex engine (RE2) can run ({reason}); backreferences, lookaround "
            "and repetition counts over 1000 are not supported"
        ) from None


def says_problem(pattern: Any) -> str | None:
    """Why a ``says`` pattern is refused, or None: the one rule behind ``check``, ``eval`` and the tag form."""
    try:
        says_regex(pattern)
    except UnsafePattern as exc:
        return f"'says' pattern {pattern!r} refused: {exc}"
    return None


# --------------------------------------------------------------------------
# Sizes and shapes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Documented limits of one kind of file (docs/cases.md lists them)."""

    what: str  # "expected.yaml", "snapshot.json", ...
    max_bytes: int
    max_depth: int
    max_items: int  # entries of any one list or object
    max_chars: int  # characters of any one string


class LimitError(ValueError):
    """Input over a documented limit; the message names the limit."""


def read_bytes_limited(path: Path, limits: Limits) -> bytes:
    """The file's bytes; LimitError before reading when it is larger than allowed."""
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise LimitError(f"{limits.what} is {size:,} bytes; the limit is {limits.max_bytes:,} bytes")
    data = path.read_bytes()
    if len(data) > limits.max_bytes:  # grew between stat and read, or a special file
        raise LimitError(f"{limits.what} is over the limit of {limits.max_bytes:,} bytes")
    return data


def read_text_file(path: Path, limits: Limits, error: type[Exception]) -> str:
    """A UTF-8 text file within ``limits``; ``error`` (with the path and the fix) when it is not."""
    try:
        return read_bytes_limited(path, limits).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); save the file as UTF-8") from None
    except LimitError as exc:
        raise error(f"{path}: {exc}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def check_tree(data: Any, limits: Limits) -> str | None:
    """The first limit the parsed value breaks (nesting, list length, string length), or None.

    Iterative, so a deep structure cannot exhaust the stack. A tree within every limit (every real
    snapshot) is told so by ``_within_limits``, level by level with the interpreter's built-in loops
    (a 100,000-row snapshot holds a million values); the walk below, which names the place, runs only
    on a tree that may break one.
    """
    return None if _within_limits(data, limits) else _first_break(data, limits)


def _first_break(data: Any, limits: Limits) -> str | None:
    """``check_tree``'s answer by walking every value, depth first, the last child first."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "")]
    while stack:
        node, depth, where = stack.pop()
        place = where or "the top level"
        if depth > limits.max_depth:
            return f"nesting deeper than {limits.max_depth} levels at {place}"
        if isinstance(node, dict):
            if len(node) > limits.max_items:
                return f"{place} has {len(node):,} keys; the limit is {limits.max_items:,}"
            for key, value in node.items():
                if isinstance(key, str) and len(key) > limits.max_chars:
                    return f"a key at {place} is {len(key):,} characters; the limit is {limits.max_chars:,}"
                stack.append((value, depth + 1, f"{where}/{key}"))
        elif isinstance(node, list):
            if len(node) > limits.max_items:
                return f"{place} has {len(node):,} items; the limit is {limits.max_items:,}"
            stack.extend((value, depth + 1, f"{where}/{i}") for i, value in enumerate(node))
        elif isinstance(node, str) and len(node) > limits.max_chars:
            return f"the string at {place} is {len(node):,} characters; the limit is {limits.max_chars:,}"
    return None


_values = methodcaller("values")


def _within_limits(data: Any, limits: Limits) -> bool:
    """True when no limit of ``check_tree`` is broken; False when one may be (``check_tree`` then finds
    which, and where). Reads the tree a level at a time: the lengths of its objects, lists, keys and
    strings, and the containers of the next level."""
    level = [data]
    depth = 0
    while level:
        if depth > limits.max_depth:
            return False
        dicts: list[Any] = []
        lists: list[Any] = []
        for kind in set(map(type, level)):
            if issubclass(kind, dict):
                dicts += [node for node in level if type(node) is kind]
            elif issubclass(kind, list):
                lists += [node for node in level if type(node) is kind]
            elif issubclass(kind, str) and max(map(len, [node for node in level if type(node) is kind])) > limits.max_chars:
                return False
        if (dicts and max(map(len, dicts)) > limits.max_items) or (lists and max(map(len, lists)) > limits.max_items):
            return False
        # The distinct keys: the rows of a list of objects share theirs
        keys = set().union(*dicts)
        if keys and (not all(type(key) is str for key in keys) or max(map(len, keys)) > limits.max_chars):
            return False  # keys that are not text (never from JSON) go the long way
        level = list(chain.from_iterable(map(_values, dicts)))
        level += chain.from_iterable(lists)
        depth += 1
    return True


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (links followed) lies inside ``folder`` (links followed)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


class BadInput(ValueError):
    """Input that cannot be read safely: ``line`` (1 when unknown) and a message naming the fix."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def json_error(exc: json.JSONDecodeError) -> str:
    """The decoder's message and its place: ``Unterminated string starting at line 1 column 5`` (the
    decoder's own message for that one ends in "at", so the place follows without a second one)."""
    return f"{exc.msg}{'' if exc.msg.endswith(' at') else ' at'} line {exc.lineno} column {exc.colno}"


def load_json(text: str, limits: Limits) -> Any:
    """JSON within ``limits``. Raises BadInput naming the line (where known) and the limit."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(exc.lineno, f"malformed JSON: {json_error(exc)}; fix the JSON syntax") from None
    except RecursionError:
        raise BadInput(1, f"nesting deeper than {limits.max_depth} levels; the limit for {limits.what} "
                       f"is {limits.max_depth}") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise BadInput(1, f"a value cannot be read ({str(exc).split(';')[0]}); use numbers of ordinary size") from None
    problem = check_tree(data, limits)
    if problem:
        raise BadInput(1, f"{problem} (the limits of {limits.what} are in docs/cases.md)")
    return data


# --------------------------------------------------------------------------
# Shapes of result files
# --------------------------------------------------------------------------

# A number in a result file outside this range is not a score, a count or a
# token figure; refusing it keeps formatting and arithmetic from overflowing.
MAX_NUMBER = 10**15


@dataclass(frozen=True)
class Optional_:
    """The value may be null (or the key absent)."""

    spec: Any


@dataclass(frozen=True)
class Required:
    """The key must be present (and the value of ``spec``)."""

    spec: Any


def shape_problem(value: Any, spec: Any, where: str = "") -> str | None:
    """The first place where ``value`` does not have the shape ``spec``, or None.

    A spec is a type (``str``, ``int``, ``float`` meaning any number, ``bool``,
    ``dict``, ``list``), ``[spec]`` for a list of that, ``{key: spec}`` for an
    object (other keys allowed; listed keys may be absent unless ``Required``),
    or ``Optional_(spec)`` for a value that may be null.
    """
    place = where or "the top level"
    if isinstance(spec, Optional_):
        return None if value is None else shape_problem(value, spec.spec, where)
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return f"{place} must be an object"
        for key, sub in spec.items():
            if key not in value:
                if isinstance(sub, Required):
                    return f"{place} has no '{key}'"
                continue
            problem = shape_problem(value[key], sub.spec if isinstance(sub, Required) else sub, f"{where}/{key}")
            if problem:
                return problem
        return None
    if isinstance(spec, list):
        if not isinstance(value, list):
            return f"{place} must be a list"
        for i, item in enumerate(value):
            problem = shape_problem(item, spec[0], f"{where}/{i}")
            if problem:
                return problem
        return None
    if spec is float or spec is int:
        ok = isinstance(value, (int, float) if spec is float else int) and not isinstance(value, bool)
        if not ok:
            return f"{place} must be {'a number' if spec is float else 'a whole number'}, not {value!r:.40}"
        if not -MAX_NUMBER <= value <= MAX_NUMBER:  # also false for NaN
            return f"{place} is {value!r:.40}, outside the range of ±{MAX_NUMBER:.0e}"
        return None
    if not isinstance(value, spec):
        return f"{place} must be {spec.__name__}, not {type(value).__name__}"
    return None
