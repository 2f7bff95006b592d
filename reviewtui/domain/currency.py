"""The scale of a currency: how many of its units a click costs, against the bar a CPC in micros passes.

Money left in micros is a million times its value, so a CPC in micros is in the hundreds of thousands
whatever the currency. A CPC in currency units is not the same size in every currency: 1,500 yen
(about 10 US dollars) is an ordinary click, 1,500 dollars is not a click at all. The bar of
``data.micros_not_converted`` (``max_cpc``) is written for currencies near the dollar in size, and
multiplied by the currency's scale (``currency_scale`` in taxonomy.yaml: its units per US dollar,
rounded down to a power of ten; 1 for a currency the table does not list). The glossary's "CPC bar".
"""

from __future__ import annotations

from typing import Any, Mapping


def currency_scale(currency: str, scales: Mapping[str, Any]) -> float:
    """The currency's scale from the table (``scales``, code -> units per US dollar rounded down to a
    power of ten), 1 for a code the table does not list or an empty code."""
    value = scales.get(currency.strip().upper()) if currency else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 1.0


def cpc_bar(currency: str, max_cpc: float, scales: Mapping[str, Any]) -> float:
    """The CPC above which a row's money reads as still in micros: ``max_cpc`` times the currency's scale."""
    return max_cpc * currency_scale(currency, scales)
