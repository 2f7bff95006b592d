"""The limits on a parsed snapshot (``check_tree``): the quick reading of a tree within every limit agrees
with the walk that names the first place over one."""

from __future__ import annotations

import pytest
import random

from reviewtui.files import untrusted
from reviewtui.files.untrusted import Limits, check_tree

LIMITS = Limits("snapshot.json", max_bytes=1 << 20, max_depth=4, max_items=5, max_chars=8)


def random_tree(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        return rng.choice([1, 2.5, -0.0, None, True, "x" * rng.randint(0, 11), 10**30])
    if roll < 0.65:
        return [random_tree(rng, depth + 1) for _ in range(rng.randint(0, 7))]
    return {"k" * rng.randint(1, 11) + str(i): random_tree(rng, depth + 1) for i in range(rng.randint(0, 7))}


@pytest.mark.slow
def test_the_quick_reading_and_the_walk_agree_on_random_trees():
    rng = random.Random(26)
    over = 0
    for _ in range(3_000):
        tree = random_tree(rng)
        walked = untrusted._first_break(tree, LIMITS)
        assert check_tree(tree, LIMITS) == walked
        assert untrusted._within_limits(tree, LIMITS) is (walked is None)
        over += walked is not None
    assert 750 < over < 2_250  # both kinds of tree were tried


@pytest.mark.slow
def test_a_large_snapshot_within_the_limits_and_one_string_over_them_in_its_last_row():
    limits = Limits("snapshot.json", max_bytes=1 << 30, max_depth=32, max_items=200_000, max_chars=2_000)
    rows = [{"date": "2025-03-01", "campaign_id": str(i), "cost": 1.5, "clicks": 3} for i in range(100_000)]
    assert check_tree({"daily": rows}, limits) is None
    rows[-1]["campaign_id"] = "x" * 2_001
    assert check_tree({"daily": rows}, limits) == (
        "the string at /daily/99999/campaign_id is 2,001 characters; the limit is 2,000")


def test_keys_that_are_not_text_are_walked():
    assert check_tree({1: "a", "b": {2: "x" * 9}}, LIMITS) == "the string at /b/2 is 9 characters; the limit is 8"
    assert check_tree({1: "a"}, LIMITS) is None
