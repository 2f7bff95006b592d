"""What a day without a row means, and the weekly rhythm a campaign serves on.

Google and Meta write no row for a campaign's day without delivery: a paused day, a day out of its ad
schedule (weekends for a weekday campaign, weekdays for a weekend one, a public holiday it is
scheduled off), a day it won no auction. An imported snapshot says so in ``source.missing_row_means``
(``no_delivery``). A campaign's weekly rhythm is read from its own rows: the weekdays it never served
on, while each of them came round often enough between its first and last served day to have had the
chance. The glossary's "weekly rhythm" and "missing day" are these functions.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Iterable

NO_DELIVERY = "no_delivery"


def missing_row_means_no_delivery(data: Any) -> bool:
    """True when the snapshot's source says a campaign and day without a row did not deliver
    (``source.missing_row_means: no_delivery``, written by ``reviewtui import``)."""
    source = data.get("source") if isinstance(data, dict) else None
    return isinstance(source, dict) and str(source.get("missing_row_means") or "").strip().lower() == NO_DELIVERY


def off_weekdays(served: Iterable[date], min_weeks: int) -> tuple[int, ...]:
    """The weekdays (0 Monday to 6 Sunday) a campaign does not serve by its weekly rhythm: each came
    round at least ``min_weeks`` times from its first to its last served day, and it served on none."""
    days = set(served)
    if not days:
        return ()
    first, last = min(days), max(days)
    span = (last - first).days + 1
    seen = {d.weekday() for d in days}
    off = set()
    for weekday in range(7):
        offset = (weekday - first.weekday()) % 7  # days from the first served day to this weekday
        occurrences = (span - offset + 6) // 7 if offset < span else 0
        if weekday not in seen and occurrences >= min_weeks:
            off.add(weekday)
    return tuple(sorted(off))


def days_due(after: date, last: date, off: Iterable[int]) -> list[date]:
    """The days after ``after`` up to ``last`` that are not off weekdays: the days a campaign serves on
    by its weekly rhythm."""
    skip = set(off)
    return [d for d in (after + timedelta(days=i) for i in range(1, (last - after).days + 1)) if d.weekday() not in skip]
