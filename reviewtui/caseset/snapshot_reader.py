"""How a snapshot's values read: numbers, dates, the last complete day, money left in micros and
JSON Pointers. The scoring's derived index, the grounding, the reference auditor, the case checks
and the app all read snapshots through these rules, so a value means the same to each of them.

The snapshot is untrusted input: every reader here returns None (or nothing) for a value it
cannot read, and never raises on one.
"""

from __future__ import annotations

import functools
import math
import statistics
from datetime import date, timedelta
from typing import Any, Iterable, Sequence

# -- numbers and dates ---------------------------------------------------------------------------


def number(value: Any) -> float | None:
    """A finite float from a JSON value (numbers and numeric strings such as ``"1,204.50"``), else
    None: null, booleans, junk text, inf and nan, and integers beyond float range read as no number."""
    if type(value) is float:  # the common case, first
        return value if value - value == 0 else None  # False for inf and nan
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            f = float(value)
        except OverflowError:  # an int beyond float range
            return None
    elif isinstance(value, str):
        try:
            f = float(value.strip().replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def parse_day(value: Any) -> date | None:
    """The calendar date of ``2025-03-09`` or ``2025-03-09T10:00...``; None when it is not one."""
    if not isinstance(value, str):
        return None
    return _day_of(value[:10])


# A pure function of ten characters, memoised because a 100,000-row snapshot repeats the same
# thirty dates; bounded, so a hostile snapshot cannot grow it, and thread-safe.
@functools.lru_cache(maxsize=4096)
def _day_of(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def last_complete_day(period: dict[str, Any], end: date | None, last_row: date | None) -> date | None:
    """The last day whose rows are complete, in this order: ``period.last_complete_date``; else the
    day before ``period.as_of``, no later than ``end`` (a closed period ends at its last day:
    nothing after it is due); else ``last_row``, the last date with rows.

    ``end`` is the period's last day as the caller reads it (the derived index drops a period it
    refuses to tabulate), so it is passed in rather than read here.
    """
    explicit = parse_day(period.get("last_complete_date"))
    if explicit is not None:
        return explicit
    as_of = parse_day(period.get("as_of"))
    if as_of is not None and as_of > date.min:
        day = as_of - timedelta(days=1)
        return min(day, end) if end is not None else day
    return last_row


# -- money left in micros ------------------------------------------------------------------------
# Two rules, on purpose. The derived index adds a "micros converted" reading of the rows whenever a
# row costs more than MICROS_OVER_MEDIAN times the median row: a generous test, since that reading
# only adds figures a finding may quote and never decides anything. The reference auditor reports
# data.micros_not_converted only past the taxonomy's row_over_typical (10,000 times the median row)
# or its max_cpc: a finding must be sure. Unifying them would change which figures ground and
# which cases the auditor flags.

MICROS_OVER_MEDIAN = 1000.0  # the derived index's corrected reading: a row this many times the median row


def micros_limits(rows: Iterable[Any]) -> tuple[float, float] | None:
    """(cost, conversion value) above which a daily row's money reads as micros for the derived
    index's corrected reading (inf where no row is over), or None when no row is over either."""
    rows = [r for r in rows if isinstance(r, dict)]
    limits = []
    for metric in ("cost", "conversions_value"):
        values = sorted(v for v in (number(r.get(metric)) for r in rows) if v and v > 0)
        median = values[len(values) // 2] if values else None  # the upper median
        over = median is not None and values[-1] > median * MICROS_OVER_MEDIAN
        limits.append(median * MICROS_OVER_MEDIAN if median is not None and over else math.inf)
    return (limits[0], limits[1]) if any(limit != math.inf for limit in limits) else None


def micros_suspects(costs: Sequence[float], clicks: Sequence[float], values: Sequence[float],
                    row_over_typical: float, max_cpc: float) -> tuple[list[int], float | None]:
    """The rows (positions in the three parallel lists, 0 for a missing value) whose money the
    reference auditor reads as still in micros, and the median positive cost they are read against
    (None when no row has a cost: then no row is read). A row is in micros when its cost is over
    ``row_over_typical`` times that median or its CPC over ``max_cpc``, or when its conversion
    value is over ``row_over_typical`` times the median positive value. Rows of the cost test come
    first, then those of the value test."""
    positive = [c for c in costs if c > 0]
    if not positive:
        return [], None
    typical = statistics.median(positive)
    limit = typical * row_over_typical
    found = [i for i, (cost, n) in enumerate(zip(costs, clicks))
             if cost > 0 and (cost > limit or (n > 0 and cost / n > max_cpc))]
    positive_values = [v for v in values if v > 0]
    if positive_values:
        value_limit = statistics.median(positive_values) * row_over_typical
        taken = set(found)
        found += [i for i, v in enumerate(values) if v > value_limit and i not in taken]
    return found, typical


# -- JSON Pointers (RFC 6901) --------------------------------------------------------------------


class PointerError(LookupError):
    """A JSON Pointer that does not resolve in the document."""


def escape_token(token: str) -> str:
    """One key or index as a pointer token: ``~`` as ``~0``, ``/`` as ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """The key a pointer token names (``escape_token`` undone)."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer_to(*keys: Any) -> str:
    """The pointer to the value reached by ``keys`` (section names, row numbers, field names)."""
    return "".join("/" + escape_token(str(key)) for key in keys)


def resolve_pointer(doc: Any, pointer: str) -> Any:
    """The value a JSON Pointer names; raise PointerError with the failing step."""
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        raise PointerError(f"pointer {pointer!r} must start with '/'")
    node = doc
    walked = ""
    for raw in pointer[1:].split("/"):
        token = unescape_token(raw)
        if isinstance(node, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
                raise PointerError(f"{walked or '/'} is a list; {token!r} is not an index")
            index = int(token)
            if index >= len(node):
                raise PointerError(f"{walked or '/'} has {len(node)} items; index {index} is past the end")
            node = node[index]
        elif isinstance(node, dict):
            if token not in node:
                raise PointerError(f"{walked or '/'} has no key {token!r}")
            node = node[token]
        else:
            raise PointerError(f"{walked or '/'} is a value, not a list or object")
        walked += "/" + raw
    return node
