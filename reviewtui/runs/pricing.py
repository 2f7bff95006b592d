"""The cost estimate printed in the summary, from the price table in ``pricing.yaml``.

Each kind of token is priced at its own rate: plain input, prompt-cache
writes, prompt-cache reads and output (thinking included); a batched call
pays ``batch_discount`` of every rate. ``CaseOutput.input_tokens`` counts
every input token, so the plain input is what is left after the cache
writes and reads. An unknown model has no estimate (``None``), and the
summary says so rather than printing a wrong figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

PRICES_PATH = Path(__file__).with_name("pricing.yaml")
PER_MILLION = 1_000_000
RATES = ("input", "cache_write", "cache_read", "output")


class PriceTableError(ValueError):
    """pricing.yaml is not a price table; the message names the place and the fix."""


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens of each kind."""

    input_per_million: float
    output_per_million: float
    cache_write_per_million: float
    cache_read_per_million: float


@dataclass(frozen=True)
class PriceTable:
    models: dict[str, Price]
    batch_discount: float  # share of the standard rates a batched call pays


def _rate(entry: dict[str, Any], name: str, where: str) -> float:
    value = entry.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise PriceTableError(f"{where}: '{name}' must be a number of dollars per million tokens, 0 or more, not {value!r}")
    return float(value)


def parse_price_table(doc: Any, source: str = str(PRICES_PATH)) -> PriceTable:
    if not isinstance(doc, dict) or not isinstance(doc.get("models"), dict):
        raise PriceTableError(f"{source}: expected a mapping with 'models' (model -> rates) and 'batch_discount'")
    discount = doc.get("batch_discount")
    if isinstance(discount, bool) or not isinstance(discount, (int, float)) or not 0 < discount <= 1:
        raise PriceTableError(f"{source}: 'batch_discount' must be a share between 0 and 1 (0.5 halves the price), not {discount!r}")
    models = {}
    for model, entry in doc["models"].items():
        where = f"{source}: models.{model}"
        if not isinstance(entry, dict):
            raise PriceTableError(f"{where}: expected the rates {', '.join(RATES)}")
        unknown = sorted(set(entry) - set(RATES))
        if unknown:
            raise PriceTableError(f"{where}: unknown rate {unknown[0]!r}; the rates are {', '.join(RATES)}")
        input_, write, read, output = (_rate(entry, name, where) for name in RATES)
        models[str(model)] = Price(input_, output, write, read)
    return PriceTable(models, float(discount))


@lru_cache(maxsize=1)
def price_table() -> PriceTable:
    with PRICES_PATH.open(encoding="utf-8") as fh:
        return parse_price_table(yaml.safe_load(fh))


# A dated snapshot id ("claude-sonnet-5-5-20260301") costs what its alias costs.
_DATED_SUFFIX = re.compile(r"-\d{8}$")


def price_for(model: str | None, table: PriceTable | None = None) -> Price | None:
    """The list price of ``model`` (an alias or a dated id), or None when unknown."""
    if not model:
        return None
    prices = (table or price_table()).models
    return prices.get(model) or prices.get(_DATED_SUFFIX.sub("", model))


def estimate_cost(
    model: str | None,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_write_tokens: int = 0,
    cache_read_tokens: int = 0,
    batch: bool = False,
    table: PriceTable | None = None,
) -> float | None:
    """Estimated dollars for one call's tokens, or None for a model without a list price.

    ``input_tokens`` counts every input token; the cache writes and reads in it
    are priced at their own rates and the rest at the input rate.
    """
    table = table or price_table()
    price = price_for(model, table)
    if price is None:
        return None
    plain = max(0, input_tokens - cache_write_tokens - cache_read_tokens)
    dollars = (
        plain * price.input_per_million
        + cache_write_tokens * price.cache_write_per_million
        + cache_read_tokens * price.cache_read_per_million
        + output_tokens * price.output_per_million
    ) / PER_MILLION
    return dollars * table.batch_discount if batch else dollars


def cost_of_output(model: str | None, output: Any, *, batch: bool = False) -> float | None:
    """``estimate_cost`` of a ``CaseOutput``'s usage (the runner's and the summary's one way to price a call)."""
    return estimate_cost(
        model,
        output.input_tokens,
        output.output_tokens,
        cache_write_tokens=getattr(output, "cache_creation_input_tokens", 0) or 0,
        cache_read_tokens=getattr(output, "cache_read_input_tokens", 0) or 0,
        batch=batch or bool(getattr(output, "batch", False)),
    )
