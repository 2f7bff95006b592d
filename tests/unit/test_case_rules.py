"""Rules that hold across the shipped cases, so that the same rows get the same list everywhere.

Conversion concentration (docs/cases.md): ``concentration.conversions_single_campaign@X``
is a must_find when it is its own problem, and a may_find when the same campaign's
spend concentration is already a must_find (the conversion share then follows from
the spend share).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.caseset.cases import load_case_set

REPO = Path(__file__).resolve().parents[2]
CONV = "concentration.conversions_single_campaign"
SPEND = "concentration.spend_single_campaign"


@pytest.fixture(scope="module")
def case_set():
    return load_case_set(REPO / "cases")


def _scopes(expectations, kind: str) -> set[str]:
    return {e.scope for e in expectations if e.kind == kind and e.scope}


def test_conversion_concentration_is_must_find_only_without_the_same_campaigns_spend_concentration(case_set):
    seen = {"must_find": 0, "may_find": 0}
    for case in case_set.cases:
        spend_must = _scopes(case.must_find, SPEND)
        for scope in _scopes(case.must_find, CONV):
            seen["must_find"] += 1
            assert scope not in spend_must, (f"{case.case_id}: {CONV}@{scope} is a must_find beside {SPEND}@{scope}; "
                                             "the conversion share follows from the spend share: make it may_find")
        for scope in _scopes(case.may_find, CONV):
            seen["may_find"] += 1
            assert scope in spend_must, (f"{case.case_id}: {CONV}@{scope} is a may_find without {SPEND}@{scope} in "
                                         "must_find: it is its own problem, make it must_find")
    assert seen["must_find"] >= 4 and seen["may_find"] >= 4  # the rule is exercised both ways
