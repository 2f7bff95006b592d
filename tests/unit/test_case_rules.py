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


@pytest.mark.slow
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


# Causes, not symptoms (the glossary's rule; docs/cases.md): the kinds a cause makes symptoms of, in its
# scope. A symptom is in no must_find and no may_find: reporting it is a misreading of the cause.
CAUSES = ("tracking.conversions_stopped", "tracking.conversion_rate_step_drop", "tracking.double_counting",
          "tracking.primary_action_changed", "tracking.missing_conversion_value", "data.attribution_change")
EFFICIENCY = ("efficiency.off_target", "efficiency.cpa_drift")
SAME_EVENT = {
    "tracking.conversions_stopped": ("tracking.conversion_rate_step_drop",),
    "tracking.primary_action_changed": ("tracking.conversions_stopped", "tracking.conversion_rate_step_drop",
                                        "tracking.double_counting", "data.attribution_change"),
    "waste.zero_conv_campaign": ("efficiency.off_target",),
}


def symptoms_of(kind: str, scope: str | None) -> list[tuple[str, str | None]]:
    """(kind, scope) pairs the rule says are symptoms of a cause found at ``scope`` (None: every scope)."""
    pairs: list[tuple[str, str | None]] = []
    if kind in CAUSES or kind == "bidding.learning_period":
        pairs += [(k, scope) for k in EFFICIENCY]
        if kind in CAUSES and scope is not None:
            pairs += [(k, "account") for k in EFFICIENCY]  # the account-wide reading
    pairs += [(k, scope) for k in SAME_EVENT.get(kind, ())]
    return pairs


def _covered(entry_scope: str | None, symptom_scope: str | None) -> bool:
    if symptom_scope is None:
        return True  # an account-wide cause: every scope
    if symptom_scope == "account":
        return entry_scope is None
    return entry_scope in (symptom_scope, None)


@pytest.mark.slow
def test_no_symptom_of_a_cause_in_must_find_is_expected(case_set):
    for case in case_set.cases:
        for cause in case.must_find:
            for kind, scope in symptoms_of(cause.kind, cause.scope):
                for entry in (*case.must_find, *case.may_find):
                    assert not (entry.kind == kind and _covered(entry.scope, scope)), (
                        f"{case.case_id}: {entry.id} is a symptom of {cause.id}; put it in must_not_say")


def test_the_rule_is_exercised_by_the_case_set(case_set):
    """Symptoms named as such: c19's stop makes its step drop, CPA drift and off-target readings symptoms."""
    c19 = next(c for c in case_set.cases if c.case_id == "c19-dental-group")
    assert {e.id for e in c19.must_not_say} >= {"tracking.conversion_rate_step_drop", "efficiency.cpa_drift",
                                                "efficiency.off_target@1007600499"}
    moved = sum(1 for case in case_set.cases for e in case.must_not_say if e.id.startswith("efficiency."))
    assert moved >= 20
