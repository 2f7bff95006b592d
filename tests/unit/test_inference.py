"""inference.py against answers computed here, independently of the code under test."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from reviewtui.runs import inference


def test_bootstrap_interval_matches_a_direct_computation_with_the_same_seed():
    sample = [1.0, 0.5, 1.0, 0.0, 0.75, 1.0, 1.0, 0.6667, 0.9, 1.0, 0.25, 1.0]
    resamples, seed = 10_000, 2026
    # The documented procedure: random.Random(seed).choices(cases, k=n) per resample, mean of each,
    # and for 95% the 251st and the 9,750th smallest of 10,000 (1-based).
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(sample, k=len(sample))) / len(sample) for _ in range(resamples))
    expected_low, expected_high = means[250], means[9749]

    (interval,) = inference.bootstrap_means([sample], resamples=resamples, seed=seed)
    assert interval.mean == pytest.approx(sum(sample) / len(sample))
    assert interval.low == pytest.approx(expected_low)
    assert interval.high == pytest.approx(expected_high)
    assert inference.bootstrap_means([sample], resamples=resamples, seed=seed)[0] == interval  # seeded: repeatable


def _binomial_quantile(n: int, p: Fraction, q: Fraction) -> int:
    """Smallest k with P(X <= k) >= q for X ~ Binomial(n, p), exactly."""
    total = Fraction(0)
    for k in range(n + 1):
        total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if total >= q:
            return k
    return n


def test_bootstrap_of_a_zero_one_sample_follows_the_binomial_distribution():
    # Resampling 45 ones and 5 zeros: the resampled mean is Binomial(50, 0.9) / 50.
    sample = [1.0] * 45 + [0.0] * 5
    (interval,) = inference.bootstrap_means([sample], resamples=10_000, seed=5)
    low = _binomial_quantile(50, Fraction(9, 10), Fraction(25, 1000)) / 50
    high = _binomial_quantile(50, Fraction(9, 10), Fraction(975, 1000)) / 50
    assert (low, high) == (0.82, 0.98)  # the exact quantiles, for the reader
    assert abs(interval.low - low) <= 1 / 50 and abs(interval.high - high) <= 1 / 50


def test_columns_resampled_together_keep_their_pairing():
    a = [0.2, 0.9, 0.4, 1.0, 0.7]
    # b is a shifted by exactly 0.1: every paired resample has mean(b) - mean(a) = 0.1.
    first, second = inference.bootstrap_means([a, [x + 0.1 for x in a]], resamples=2000, seed=1)
    assert second.low - first.low == pytest.approx(0.1) and second.high - first.high == pytest.approx(0.1)


def test_a_constant_sample_has_a_point_interval_and_no_noise():
    (interval,) = inference.bootstrap_means([[0.9] * 7], resamples=100)
    assert (interval.low, interval.high) == pytest.approx((0.9, 0.9))
    assert inference.noise_verdict(interval, 0.9) == "a pass clear of the noise"


def test_noise_verdicts():
    assert inference.noise_verdict(inference.Interval(0.91, 0.86, 0.95), 0.9) == "a pass within noise"
    assert inference.noise_verdict(inference.Interval(0.88, 0.83, 0.93), 0.9) == "a fail within noise"
    assert inference.noise_verdict(inference.Interval(0.96, 0.92, 0.99), 0.9) == "a pass clear of the noise"
    assert inference.noise_verdict(inference.Interval(0.70, 0.60, 0.80), 0.9) == "a fail clear of the noise"


def test_bootstrap_refuses_empty_or_ragged_columns():
    with pytest.raises(ValueError):
        inference.bootstrap_means([[]])
    with pytest.raises(ValueError):
        inference.bootstrap_means([[1.0, 0.0], [1.0]])


def test_percentile_bounds_indexes():
    values = list(range(10_000))
    assert inference.percentile_bounds(values) == (250, 9749)
    assert inference.percentile_bounds([3.0]) == (3.0, 3.0)


@pytest.mark.parametrize("k, n, expected", [
    (2, 10, 2 * (1 + 10 + 45) / 1024),  # 0.109375
    (8, 10, 2 * (1 + 10 + 45) / 1024),  # symmetric
    (0, 5, 2 / 32),                     # 0.0625
    (5, 10, 1.0),                       # the centre: capped at 1
    (0, 0, 1.0),                        # nothing changed
    (0, 1, 1.0),
    (1, 12, 2 * (1 + 12) / 4096),       # 0.00634765625
])
def test_sign_test_against_hand_computed_binomials(k, n, expected):
    assert inference.sign_test(k, n - k) == pytest.approx(expected, abs=1e-15)


def test_mcnemar_uses_only_the_discordant_pairs():
    # b = 1 found then missed, c = 8 missed then found: n = 9, P = 2 * (C(9,0) + C(9,1)) / 2^9.
    assert inference.mcnemar_exact(1, 8) == pytest.approx(2 * (1 + 9) / 512)  # 0.0390625
    assert inference.mcnemar_exact(0, 0) == 1.0
    assert inference.mcnemar_exact(3, 3) == 1.0


def test_benjamini_hochberg_on_the_textbook_example():
    # Benjamini & Hochberg (1995), the fifteen p-values of their worked example.
    p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
         0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000]
    adjusted = inference.benjamini_hochberg(p)
    # At a false discovery rate of 0.05 the paper rejects the four smallest.
    assert [a <= 0.05 for a in adjusted] == [True] * 4 + [False] * 11
    assert adjusted[0] == pytest.approx(0.0001 * 15 / 1)
    assert adjusted[3] == pytest.approx(0.0095 * 15 / 4)       # 0.035625
    assert adjusted[4] == pytest.approx(0.0201 * 15 / 5)       # 0.0603, below every later p*m/i
    assert adjusted[5] == pytest.approx(0.0298 * 15 / 7)       # 0.0278*15/6 = 0.0695 is lowered to rank 7's value
    assert adjusted[14] == 1.0
    shuffled = [p[i] for i in (14, 3, 0, 7)]
    assert inference.benjamini_hochberg(shuffled) == pytest.approx([1.0, 0.0095 * 4 / 2, 0.0001 * 4, 0.0344 * 4 / 3])
