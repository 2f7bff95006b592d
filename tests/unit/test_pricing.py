"""List prices (pricing.yaml) and the cost estimate: each kind of token at its own rate."""

from __future__ import annotations

import pytest
import yaml

from reviewtui.backends.base import CaseOutput
from reviewtui.runs.pricing import (
    PRICES_PATH,
    PriceTableError,
    cost_of_output,
    estimate_cost,
    parse_price_table,
    price_for,
    price_table,
)


@pytest.mark.parametrize(
    "model, expected",
    [
        ("claude-haiku-5-5", 0.10 + 0.50),
        ("claude-sonnet-5-5", 2.00 + 10.00),
        ("claude-opus-5-5", 4.00 + 20.00),
        ("claude-sonnet-5-5-20260301", 2.00 + 10.00),  # a dated id costs what its alias costs
    ],
)
def test_one_million_tokens_each_way(model, expected):
    assert estimate_cost(model, 1_000_000, 1_000_000) == pytest.approx(expected)


def test_a_typical_case_on_sonnet():
    # 30k tokens in, 2k out: 0.06 + 0.02 dollars
    assert estimate_cost("claude-sonnet-5-5", 30_000, 2_000) == pytest.approx(0.08)


def test_cache_writes_and_reads_are_priced_at_their_own_rates():
    # 30k input of which 20k written to the cache: 10k at 2.00, 20k at 2.50; 2k out at 10.00
    assert estimate_cost("claude-sonnet-5-5", 30_000, 2_000, cache_write_tokens=20_000) == pytest.approx(
        (10_000 * 2.00 + 20_000 * 2.50 + 2_000 * 10.00) / 1e6)
    # the repeat reads those 20k at 0.20 instead
    assert estimate_cost("claude-sonnet-5-5", 30_000, 2_000, cache_read_tokens=20_000) == pytest.approx(
        (10_000 * 2.00 + 20_000 * 0.20 + 2_000 * 10.00) / 1e6)


def test_folding_cache_tokens_into_input_would_misprice_them():
    full = estimate_cost("claude-sonnet-5-5", 30_000, 0)
    assert estimate_cost("claude-sonnet-5-5", 30_000, 0, cache_read_tokens=25_000) < full / 3
    assert estimate_cost("claude-sonnet-5-5", 30_000, 0, cache_write_tokens=25_000) > full


def test_the_batch_discount_applies_to_every_rate():
    plain = estimate_cost("claude-opus-5-5", 40_000, 3_000, cache_write_tokens=5_000, cache_read_tokens=20_000)
    batched = estimate_cost("claude-opus-5-5", 40_000, 3_000, cache_write_tokens=5_000, cache_read_tokens=20_000,
                            batch=True)
    assert batched == pytest.approx(plain * price_table().batch_discount) and price_table().batch_discount == 0.5


def test_cost_of_an_output_reads_its_cache_counts():
    output = CaseOutput("c01", "{}", input_tokens=30_000, output_tokens=2_000, model="claude-sonnet-5-5",
                        cache_creation_input_tokens=0, cache_read_input_tokens=20_000)
    assert cost_of_output("claude-sonnet-5-5", output) == estimate_cost(
        "claude-sonnet-5-5", 30_000, 2_000, cache_read_tokens=20_000)


@pytest.mark.parametrize("model", ["claude-unknown-9", "gpt-4o", "", None, "replay:/tmp/x"])
def test_unknown_models_have_no_estimate(model):
    assert price_for(model) is None
    assert estimate_cost(model, 1000, 1000) is None


def test_the_shipped_table_is_data_with_every_rate():
    doc = yaml.safe_load(PRICES_PATH.read_text(encoding="utf-8"))
    assert set(doc["models"]) == {"claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"}
    for rates in doc["models"].values():
        assert set(rates) == {"input", "cache_write", "cache_read", "output"}
        assert rates["cache_read"] < rates["input"] < rates["cache_write"]


@pytest.mark.parametrize(
    "doc, message",
    [
        ([], "expected a mapping with 'models'"),
        ({"models": {}, "batch_discount": 2}, "'batch_discount' must be a share between 0 and 1"),
        ({"models": {"m": {"input": 1, "output": 2, "cache_write": 1}}, "batch_discount": 0.5},
         "models.m: 'cache_read' must be a number"),
        ({"models": {"m": {"input": 1, "output": 2, "cache_write": 1, "cache_read": 0.1, "cached": 1}},
          "batch_discount": 0.5}, "unknown rate 'cached'"),
    ],
)
def test_a_broken_price_table_names_the_place(doc, message):
    with pytest.raises(PriceTableError, match=message) as err:
        parse_price_table(doc, "pricing.yaml")
    assert str(err.value).startswith("pricing.yaml:")
