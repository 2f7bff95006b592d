"""List prices and the cost estimate."""

from __future__ import annotations

import pytest

from reviewtui.pricing import estimate_cost, price_for


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


@pytest.mark.parametrize("model", ["claude-unknown-9", "gpt-4o", "", None, "replay:/tmp/x"])
def test_unknown_models_have_no_estimate(model):
    assert price_for(model) is None
    assert estimate_cost(model, 1000, 1000) is None
