"""List prices of the Claude models, and the cost estimate printed in the summary.

Prices are US dollars per million tokens at the time of writing (standard
API, not the Batch API, which halves them). Check Anthropic's price list
before trusting an estimate: the figures here only move when someone edits
this table. An unknown model has no estimate (``None``), and the summary
says so rather than printing a wrong figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PER_MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """Dollars per million input and output tokens."""

    input_per_million: float
    output_per_million: float


PRICES: dict[str, Price] = {
    "claude-haiku-5-5": Price(0.10, 0.50),
    "claude-sonnet-5-5": Price(2.00, 10.00),
    "claude-opus-5-5": Price(4.00, 20.00),
}

# A dated snapshot id ("claude-sonnet-5-5-20260301") costs what its alias costs.
_DATED_SUFFIX = re.compile(r"-\d{8}$")


def price_for(model: str | None) -> Price | None:
    """The list price of ``model`` (an alias or a dated id), or None when unknown."""
    if not model:
        return None
    return PRICES.get(model) or PRICES.get(_DATED_SUFFIX.sub("", model))


def estimate_cost(model: str | None, input_tokens: int, output_tokens: int) -> float | None:
    """Estimated dollars for the given token counts, or None for a model without a list price."""
    price = price_for(model)
    if price is None:
        return None
    return (input_tokens * price.input_per_million + output_tokens * price.output_per_million) / PER_MILLION
