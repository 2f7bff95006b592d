"""How the auditor prints figures, so every one of them is grounded.

Money at two decimals with the account's currency code, counts with
thousands separators, ratios as percentages at one decimal, dates as
YYYY-MM-DD. Only values that are in the snapshot or in the scoring's derived
index (sums, CPA, shares, daily averages, pacing figures) are ever passed
here; the tests check every printed figure with the grounding module.
"""

from __future__ import annotations

from datetime import date
from typing import Iterable


def money(value: float, currency: str = "") -> str:
    text = f"{value:,.2f}"
    return f"{text} {currency}" if currency else text


def count(value: float) -> str:
    """Clicks, impressions, conversions: whole numbers plainly, fractions at two decimals at most."""
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def percent(ratio: float, digits: int = 1) -> str:
    return f"{ratio * 100:.{digits}f}%"


def share(value: float) -> str:
    """An impression-share value exactly as the platform reports it (0.0999 means below 10%)."""
    return f"{value:.4f}".rstrip("0").rstrip(".") if value else "0"


def multiple(value: float) -> str:
    return f"{value:.1f}x"


def day(value: date) -> str:
    return value.isoformat()


def day_list(values: Iterable[date], limit: int = 6) -> str:
    """``2025-03-11, 2025-03-12 and 2025-03-13``; long lists end with "and later dates"."""
    items = [d.isoformat() for d in sorted(values)]
    if len(items) > limit:
        return ", ".join(items[:limit]) + " and later dates"
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]

