"""``pacing.*``: month-to-date spend against the budget schedule in force, and daily caps.

Overspend or underspend needs both the spend to date off the schedule by
more than the tolerance and the month-end projection off the budget the same
way: a slow first week under a budget raised on the 10th, or a flight that
has not started, is on schedule. A daily cap is exceeded only above the
platform's allowed multiple of the budget in force that day (Google twice;
Meta a quarter above before 2025-05-29 and three quarters above from then).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Iterator, Mapping

from . import text
from .findings import Context
from ..scoring.daily_totals import DUPLICATES_ONCE, MICROS_CONVERTED
from ..scoring.derived_index import derived_index
from . import derived_names as names
from .schedule import changed_days, read_budgets
from .series import Series, number
from ..domain.budgets import exceeds_daily_cap
from ..domain.thresholds import cap_multiple

OVER = "pacing.overspend"
UNDER = "pacing.underspend"
CAP = "pacing.daily_cap_exceeded"


@dataclass
class Pace:
    """The pacing figures of the derived index (so every one the auditor prints is grounded)."""

    monthly_budget: float
    days_elapsed: int
    spend_to_date: float
    expected_to_date: float  # the monthly budget spread on the budget schedule in force (or the straight line)
    ratio: float  # spend to date over expected
    projection: float  # month-end spend at the last 7 days' pace (see derived_names.PROJECTIONS)
    projection_gap: float  # projection minus the monthly budget
    on_schedule: bool  # False: no daily budgets to shape the month, the straight line is the schedule
    projection_name: str  # which projection: it is named in the evidence


# Breakages pacing reads through: the derived index's corrected reading of the rows, by its label
CORRECTED_READINGS = {"data.duplicate_rows": DUPLICATES_ONCE, "data.micros_not_converted": MICROS_CONVERTED}


def pace(series: Series, index: Mapping[str, float] | None = None, reading: str = "") -> Pace | None:
    """The pacing figures, or None when there is no budget or no period to pace against;
    ``reading``: a corrected reading's label (``DUPLICATES_ONCE``, ``MICROS_CONVERTED``)."""
    if index is None:
        index = derived_index(series.data)
    if reading:  # the figures of that reading, under their own names
        index = _Reading(index, f" ({reading})")
    on_schedule = names.expected_spend(names.ON_SCHEDULE) in index
    schedule = names.ON_SCHEDULE if on_schedule else names.STRAIGHT_LINE
    projection = next((p for p in names.PROJECTIONS if names.projected_spend(p) in index), names.PROJECTIONS[-1])
    budget = series.target("monthly_budget") or index.get(names.MONTHLY_BUDGET_FROM_SCHEDULE)
    needed = {
        "spend": names.SPEND_TO_DATE,
        "days": names.DAYS_ELAPSED,
        "expected": names.expected_spend(schedule),
        "ratio": names.spend_over_expected(schedule),
        "projection": names.projected_spend(projection),
        "gap": names.projected_gap(projection),
    }
    if budget is None or any(key not in index for key in needed.values()) or not series.days:
        return None
    v = {short: index[key] for short, key in needed.items()}
    return Pace(budget, int(v["days"]), v["spend"], v["expected"], v["ratio"], v["projection"], v["gap"], on_schedule, projection)


class _Reading(Mapping[str, float]):
    """The figures of a corrected reading under their own names: ``name`` reads the index's
    ``name (label)``, so only the names asked for are looked up (not every name of the index)."""

    def __init__(self, index: Mapping[str, float], suffix: str) -> None:
        self._index, self._suffix = index, suffix

    def __getitem__(self, name: str) -> float:
        return self._index[name + self._suffix]

    def __iter__(self) -> Iterator[str]:
        return (name[: -len(self._suffix)] for name in self._index if name.endswith(self._suffix))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def detect(ctx: Context) -> None:
    _month_to_date(ctx)
    _daily_caps(ctx)


def _month_to_date(ctx: Context) -> None:
    s = ctx.series
    if ctx.withheld(OVER, None) | ctx.withheld(UNDER, None):
        return
    # Duplicates and micros are corrected: pacing reads the rows without them (both at once: not assessed)
    corrections = [reading for breakage, reading in CORRECTED_READINGS.items() if breakage in ctx.broken]
    if len(corrections) > 1:
        for kind in (OVER, UNDER):
            ctx.unassessable(kind, None, "budget pacing (duplicate rows and money in micros together)")
        return
    reading = corrections[0] if corrections else ""
    p = pace(s, ctx.derived, reading)
    if p is None:
        reason = "budget pacing (the snapshot has no monthly budget or no usable period)"
        ctx.unassessable(OVER, None, reason)
        ctx.unassessable(UNDER, None, reason)
        return
    given = number(s.targets().get("pacing_tolerance"))
    tolerance = given if given and given > 0 else ctx.t(OVER).number("tolerance")
    # Only a tolerance from the snapshot is quoted: a threshold's value is not a grounded figure.
    tolerance_words = f"the {text.percent(tolerance, 0)} tolerance" if given and given > 0 else "the pacing tolerance"
    confirm = ctx.t(OVER).number("projection_share_of_tolerance") * tolerance
    cur = s.currency
    against = "expected on the budget schedule in force" if p.on_schedule else "expected on a straight line through the month"
    corrected = {DUPLICATES_ONCE: "After removing the duplicate rows, s", MICROS_CONVERTED: "With money in micros converted to currency units, s"}
    figures = (
        f"{corrected.get(reading, 'S')}pend to date {text.money(p.spend_to_date, cur)} over {p.days_elapsed} days elapsed against "
        f"{text.money(p.expected_to_date, cur)} {against} ({text.percent(p.ratio)} of it); projected on the {p.projection_name} the month "
        f"ends at {text.money(p.projection, cur)} against the monthly budget of "
        f"{text.money(p.monthly_budget, cur)}"
    )
    changes = changed_days(s)
    schedule_note = f"; daily budgets changed on {text.day_list(changes)}" if changes else ""
    rows = ["/targets/monthly_budget"] + [b.pointer for b in read_budgets(s)][:8]
    over = p.ratio > 1 + tolerance and p.projection_gap > p.monthly_budget * confirm
    under = p.ratio < 1 - tolerance and p.projection_gap < -p.monthly_budget * confirm
    if over:
        ctx.rejected(UNDER, None, figures)
        ctx.found(
            OVER,
            None,
            f"Month-to-date spend is ahead of the budget schedule by more than {tolerance_words} "
            "and the projection overshoots the monthly budget: budgets need trimming now.",
            f"{figures}, {text.money(p.projection_gap, cur)} over{schedule_note}.",
            rows=rows,
        )
    elif under:
        ctx.rejected(OVER, None, figures)
        ctx.found(
            UNDER,
            None,
            f"Month-to-date spend is behind the budget schedule by more than {tolerance_words} "
            "and the projection falls short of the monthly budget: budget is going unspent.",
            f"{figures}, {text.money(-p.projection_gap, cur)} short{schedule_note}.",
            rows=rows,
        )
    else:
        ctx.rejected(OVER, None, figures + ": within tolerance on the schedule or the projection")
        ctx.rejected(UNDER, None, figures + ": within tolerance on the schedule or the projection")


def _under_every_cap(costs: list[float], amounts: list[float | None], multiples: list[float], margin: float) -> bool:
    """True when no day's cost can exceed its cap: the highest cost is within the cap of the lowest
    budget at the lowest multiple (``exceeds_daily_cap`` with the same operations, which can only give
    each day's own cap or a higher one: every factor is positive). Most budgets never come near."""
    known = [amount for amount in amounts if amount is not None]
    if not costs or len(known) < len(amounts) or (1 + margin) <= 0:
        return False
    lowest, multiple = min(known), min(multiples)
    return lowest > 0 and multiple > 0 and not exceeds_daily_cap(max(costs), lowest, multiple, margin)


def _allowed_words(t, is_meta: bool, day: date) -> str:
    if not is_meta:
        return "twice the daily budget on Google"
    if day >= t.date("meta_flexible_from"):
        return f"three quarters above the daily budget on Meta from {t.date('meta_flexible_from').isoformat()}"
    return "a quarter above the daily budget on Meta"


def _daily_caps(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(CAP)
    budgets = [b for b in read_budgets(s) if b.period == "DAILY"]
    if not budgets:
        ctx.unassessable(CAP, None, "daily caps (the snapshot has no daily budgets)")
        return
    flagged = False
    margin, is_meta = t.number("margin"), s.is_meta
    # the allowed multiple of each day, read once for every budget
    multiples = {day: cap_multiple(t, is_meta, day) for day in s.days}
    cells = s.cells
    for budget in budgets:
        over: list[tuple[date, float, float]] = []
        ids = budget.campaign_ids
        days = sorted({day for cid in ids for day in s.days_of(cid)})
        # the table looked up inline (``Series.cell``): this runs for every day of every budget
        if len(ids) == 1:
            key = ids[0]
            costs = [cell.cost if (cell := cells.get((day, key))) is not None else 0.0 for day in days]
        else:
            costs = [sum(cell.cost if (cell := cells.get((day, cid))) is not None else 0.0 for cid in ids)
                     for day in days]
        amounts = budget.cap_budgets(days)
        if not _under_every_cap(costs, amounts, [multiples[day] for day in days], margin):
            for day, cost, amount in zip(days, costs, amounts):
                if amount and exceeds_daily_cap(cost, amount, multiples[day], margin):
                    over.append((day, cost, amount))
        scope = budget.campaign_ids[0] if len(budget.campaign_ids) == 1 else None
        if any(ctx.withheld(CAP, cid) for cid in budget.campaign_ids):
            continue
        if not over:
            ctx.rejected(CAP, scope, f"no day above the allowed multiple of budget {budget.budget_id}")
            continue
        flagged = True
        day, cost, amount = max(over, key=lambda item: item[1] / item[2])
        days = [d for d, _, _ in over]
        allowed_words = _allowed_words(t, s.is_meta, day)
        who = s.label(scope) if scope else f"the campaigns sharing budget {budget.budget_id}"
        ctx.found(
            CAP,
            scope,
            f"{who[0].upper()}{who[1:]} spent more than the platform allows on one day ({allowed_words}) on "
            f"{text.day_list(days)}: the cap did not hold, so check for a billing or budget-setting fault.",
            f"On {text.day(day)} cost was {text.money(cost, s.currency)} against a daily budget of "
            f"{text.money(amount, s.currency)} in force that day ({text.multiple(cost / amount)} the budget).",
            rows=[r.pointer for r in s.rows_of(budget.campaign_ids) if r.day in set(days)][:8]
            + [budget.pointer],
        )
    if not flagged:
        ctx.rejected(CAP, None, "every day's cost is within the platform's allowed multiple of its daily budget")


