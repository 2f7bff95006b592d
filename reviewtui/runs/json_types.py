"""Checking JSON read back from a file against the TypedDict that describes it.

A record's TypedDict is the one definition of its shape: the code that reads
it is type-checked against it (mypy), and ``type_problem`` checks a file's
data against the same definition before any of that code runs, so a
hand-edited or truncated file is refused with the field named instead of
failing later with a KeyError or a TypeError.

What a TypedDict may use: ``str``, ``int``, ``float`` (any number), ``bool``,
``None``, ``Any``, ``Literal[...]`` of strings (the statuses), unions of these
(``X | None``), ``list[X]``, ``dict[str, X]`` and other TypedDicts. A key is
required when the TypedDict says so (``total=True`` without ``NotRequired``);
keys it does not list are allowed (a newer writer's fields).
"""

from __future__ import annotations

import types
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

from ..files.untrusted import shape_problem

_FIELDS: dict[type, dict[str, tuple[Any, bool]]] = {}


def _fields(typed: Any) -> dict[str, tuple[Any, bool]]:
    """A TypedDict's keys: each one's type and whether it is required. Read from the annotations, not from
    ``__required_keys__``, which misses ``NotRequired`` written as a string (``from __future__ import annotations``)
    before Python 3.12."""
    if typed not in _FIELDS:
        fields = {}
        for key, hint in get_type_hints(typed, include_extras=True).items():
            origin = get_origin(hint)
            if origin in (NotRequired, Required):
                (inner,) = get_args(hint)
                fields[key] = (inner, origin is Required)
            else:
                fields[key] = (hint, bool(typed.__total__))
        _FIELDS[typed] = fields
    return _FIELDS[typed]


def _name(expected: Any) -> str:
    """The expected type in words, for the message."""
    if expected is Any:
        return "any value"
    if expected is type(None) or expected is None:
        return "null"
    if is_typeddict(expected):
        return "an object"
    origin = get_origin(expected)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in get_args(expected))
    if origin in (Union, types.UnionType):
        return " or ".join(_name(a) for a in get_args(expected))
    if origin is list:
        return "a list"
    if origin is dict:
        return "an object"
    return {str: "text", int: "a whole number", float: "a number", bool: "true or false"}.get(expected, str(expected))


def type_problem(value: Any, expected: Any, where: str = "") -> str | None:
    """The first place where ``value`` is not of type ``expected``, as ``/pointer: what is wrong``; None when it is."""
    place = where or "the top level"
    origin = get_origin(expected)
    if expected is Any:
        return None
    if origin in (Union, types.UnionType):
        options = get_args(expected)
        if any(type_problem(value, option, where) is None for option in options):
            return None
        others = [o for o in options if o is not type(None)]
        if len(others) == 1:  # X | None, not null: what is wrong with it as an X
            return type_problem(value, others[0], where)
        shallow = [o for o in options if _fits_shallow(value, o)]
        if len(shallow) == 1:  # the right kind of value with a wrong part: name that part
            return type_problem(value, shallow[0], where)
        return f"{place} must be {_name(expected)}, not {_shown(value)}"
    if expected is type(None) or expected is None:
        return None if value is None else f"{place} must be null, not {_shown(value)}"
    if origin is Literal:
        return None if value in get_args(expected) else f"{place} must be {_name(expected)}, not {_shown(value)}"
    if is_typeddict(expected):
        if not isinstance(value, dict):
            return f"{place} must be an object, not {_shown(value)}"
        for key, (hint, required) in _fields(expected).items():
            if key not in value:
                if required:
                    return f"{place} has no '{key}'"
                continue
            problem = type_problem(value[key], hint, f"{where}/{key}")
            if problem:
                return problem
        return None
    if origin is list:
        if not isinstance(value, list):
            return f"{place} must be a list, not {_shown(value)}"
        (item,) = get_args(expected) or (Any,)
        for i, element in enumerate(value):
            problem = type_problem(element, item, f"{where}/{i}")
            if problem:
                return problem
        return None
    if origin is dict:
        if not isinstance(value, dict):
            return f"{place} must be an object, not {_shown(value)}"
        _key, item = get_args(expected) or (str, Any)
        for key, element in value.items():
            problem = type_problem(element, item, f"{where}/{key}")
            if problem:
                return problem
        return None
    if expected in (str, int, float, bool):
        return shape_problem(value, expected, where)  # the same words as every other checked file
    raise TypeError(f"type_problem cannot check {expected!r}")


def _fits_shallow(value: Any, expected: Any) -> bool:
    """Whether ``value`` is the kind of value ``expected`` is (an object for an object, a list for a list)."""
    origin = get_origin(expected)
    if is_typeddict(expected) or origin is dict:
        return isinstance(value, dict)
    if origin is list:
        return isinstance(value, list)
    return False


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"{value!r:.40}"
