"""The names of the derived-index figures the auditor quotes, in one place.

The auditor prints figures from ``reviewtui.scoring.derived_index`` so that each one is
grounded by construction. The index is keyed by readable names; every name
the auditor uses is built here, and a test checks each still exists in the
index, so a rename there fails loudly instead of dropping figures silently.
"""

from __future__ import annotations

PERIOD = "period"
LAST_7 = "last 7 complete days"
PREVIOUS_7 = "previous 7 complete days"

# The pacing figures, by short name
MONTHLY_BUDGET_FROM_SCHEDULE = "pacing: monthly budget from the budget schedule"
SPEND_TO_DATE = "pacing: spend to date"
DAYS_ELAPSED = "pacing: days elapsed"
ON_SCHEDULE = "monthly budget spread on the budget schedule"
STRAIGHT_LINE = "straight line"
# The projection that follows the schedule: the last 7 days' spend relative to their scheduled budget,
# carried over the remaining schedule (a flight to come or a raised budget counts); the plain last-7-days
# rate is the fallback.
PROJECTIONS = ("last 7 days' share of the budget schedule", "last 7 days' rate")


def scope_name(scope: str | None) -> str:
    return f"campaign {scope}" if scope else "account"


def window(scope: str | None, metric: str, window_name: str) -> str:
    """``campaign 333: CPA, last 7 complete days``; metrics as the index spells them."""
    return f"{scope_name(scope)}: {metric}, {window_name}"


def search_terms(scope: str | None, what: str) -> str:
    """``campaign 333: search terms, zero-conversion cost``."""
    return f"{scope_name(scope)}: search terms, {what}"


def expected_spend(schedule: str) -> str:
    return f"pacing: expected spend to date, {schedule}"


def spend_over_expected(schedule: str) -> str:
    return f"pacing: spend to date over expected, {schedule}"


def projected_spend(projection: str) -> str:
    return f"pacing: projected month-end spend, {projection}"


def projected_gap(projection: str) -> str:
    return f"pacing: projected gap to budget, {projection}"
