"""A run's token usage and cost, for the manifest: this session's calls plus the answers a resume kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..backends.base import CaseOutput
from .runner import Progress

if TYPE_CHECKING:
    from .manifest_fields import Usage


def usage_of(progress: Progress | None) -> Usage:
    if progress is None:
        return {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "cached": 0}
    return {
        "input_tokens": progress.input_tokens,
        "output_tokens": progress.output_tokens,
        "cache_write_tokens": progress.cache_write_tokens,
        "cache_read_tokens": progress.cache_read_tokens,
        "cost_usd": progress.cost_usd,
        "cached": progress.cached,
    }


def add_kept_usage(usage: Usage, kept: list[CaseOutput]) -> Usage:
    """The usage of a resumed run: this session's calls plus the answers kept from the interrupted one.

    A kept answer that was a fresh call when it was made is counted at its price;
    one that came from the cache then cost nothing then either.
    """
    if not kept:
        return usage
    from .runner import default_cost_estimator

    estimate = default_cost_estimator()
    total: Usage = {**usage}
    total["input_tokens"] = usage.get("input_tokens", 0) + sum(o.input_tokens for o in kept)
    total["output_tokens"] = usage.get("output_tokens", 0) + sum(o.output_tokens for o in kept)
    cost = usage.get("cost_usd")
    for output in kept:
        if output.cached or not (output.input_tokens or output.output_tokens):
            continue
        total["cache_write_tokens"] = total.get("cache_write_tokens", 0) + output.cache_creation_input_tokens
        total["cache_read_tokens"] = total.get("cache_read_tokens", 0) + output.cache_read_input_tokens
        price = estimate(output.model, output)
        cost = None if cost is None or price is None else cost + price
    total["cost_usd"] = cost
    total["kept"] = len(kept)
    return total
