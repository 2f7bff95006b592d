"""The budget functions now live in ``reviewtui.domain.budgets`` (below both the scoring and the
auditor); these names stay importable from here until every caller imports them from there."""

from __future__ import annotations

from ..domain.budgets import (
    META_PLATFORMS,
    amount_on,
    budget_campaigns,
    budget_in_force,
    budget_schedule,
    budget_steps,
    daily_cap_multiple,
    serving_windows,
)

__all__ = ["META_PLATFORMS", "amount_on", "budget_campaigns", "budget_in_force", "budget_schedule", "budget_steps",
           "daily_cap_multiple", "serving_windows"]
