"""Planted scenarios: the problems, traps and data breakages of the case set.

Each scenario edits the plan (``configure``), steers single rows (``adjust``),
edits the finished snapshot (``post``) and drafts its expected entries from
the final rows (``expect``), with evidence figures and JSON Pointers read
back through ``measure`` so that every figure can be recomputed from
snapshot.json.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from . import measure as m
from .entries import Entry
from .plan import AccountPlan, Campaign, ConversionAction, keep_bidding_sane
from .simulate import RowParams

OVERSPEND_SAYS = ["over-?spend", "over-?pac", "ahead of (the )?budget", "above (the )?budget"]
UNDERSPEND_SAYS = ["under-?spend", "under-?pac", "behind (the )?budget", "below (the )?budget"]


class Scenario:
    name = "scenario"

    def configure(self, plan: AccountPlan, rng: random.Random) -> None:
        pass

    def adjust(self, plan: AccountPlan, camp: Campaign, day: date, p: RowParams) -> None:
        pass

    def post(self, plan: AccountPlan, snap: dict[str, Any], rng: random.Random) -> None:
        pass

    def expect(self, plan: AccountPlan, snap: dict[str, Any]) -> list[Entry]:
        return []

    def entry(self, list_name: str, kind: str, scope: str | None, evidence: str, rows: list[str] | None = None,
              says: list[str] | None = None) -> Entry:
        return Entry(list_name, kind, scope, evidence, list(rows or []), list(says or []), self.name)

    def describe(self, plan: AccountPlan) -> str:
        return self.name


def _label(snap: dict[str, Any], cid: str) -> str:
    return f"{cid} ({m.campaign_name(snap, cid)})"


def _target_text(plan: AccountPlan, s: m.Stats) -> str:
    if plan.target_cpa:
        return f"CPA {m.money(s.cpa)} against the {m.money(plan.target_cpa)} target" if s.cpa else "no conversions"
    return f"ROAS {s.roas:.2f} against the {plan.target_roas:.2f} target"


def _pace_text(pace: m.Pace) -> str:
    return (f"spend to date {m.money(pace.spend_to_date)} over {pace.days_elapsed} days against "
            f"{m.money(pace.expected_to_date)} expected on the budget schedule ({pace.ratio - 1:+.1%}); "
            f"projected month end {m.money(pace.projection)} against the {m.money(pace.monthly_budget)} "
            f"monthly budget ({pace.projection_ratio - 1:+.1%})")


def measured_gap(plan: AccountPlan, s: m.Stats) -> float:
    """How far off target a campaign measures (1.0 on target, 2.0 twice the CPA or half the ROAS)."""
    if not s.conversions or not s.value and not plan.target_cpa:
        return float("inf")
    return s.cpa / plan.target_cpa if plan.target_cpa else plan.target_roas / s.roas


def off_target_side_effects(scenario: "Scenario", plan: AccountPlan, snap: dict[str, Any], cids: list[str], why: str) -> list[Entry]:
    """may_find off_target for the campaigns a planted problem pushes far off target as measured.

    ``why`` names the cause ("the stopped tracking"): a CPA is inflated by it, a ROAS depressed.
    """
    out = []
    moved = "inflated" if plan.target_cpa else "depressed"
    acct = m.total(snap, m.select(snap), "cost")
    for cid in cids:
        s = m.stats(snap, m.select(snap, cid))
        if s.cost > 0.04 * acct and measured_gap(plan, s) >= 1.4:
            out.append(scenario.entry("may_find", "efficiency.off_target", cid,
                                      f"campaign {_label(snap, cid)} measured {_target_text(plan, s)}, {moved} by {why}", m.pointers(m.select(snap, cid), 2)))
    return out


def _last_rows(snap: dict[str, Any], cid: str | None = None, n: int = 3) -> list[str]:
    return m.pointers(m.select(snap, cid)[-n:])


# ---------------------------------------------------------------- pacing


@dataclass
class Pacing(Scenario):
    """Month-to-date spend off the schedule by ``factor`` (budgets set above or below the plan)."""

    factor: float
    name: str = "pacing"

    def configure(self, plan, rng):
        plan.pacing_target = self.factor

    def expect(self, plan, snap):
        pace = m.pacing(snap)
        kind = "pacing.overspend" if self.factor > 1 else "pacing.underspend"
        rows = ["/targets/monthly_budget", *_last_rows(snap, n=2)]
        return [self.entry("must_find", kind, None, _pace_text(pace), rows)]

    def describe(self, plan):
        return f"{'overspend' if self.factor > 1 else 'underspend'}: spend to date at {self.factor:.2f}x the schedule"


def _cap_since(plan, day) -> str:
    """Names the date Meta's larger allowance starts, when it is the one in force."""
    if plan.platform != "google_ads" and day >= m.META_FLEXIBLE_FROM:
        return f" since {m.META_FLEXIBLE_FROM.isoformat()}"
    return ""


@dataclass
class DailyCap(Scenario):
    """One day's cost at ``multiple`` x the daily budget: above the platform limit, or (trap) just under it."""

    role: str
    day: int
    multiple: float
    name: str = "daily_cap"

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role and day == plan.day(self.day):
            p.cost_multiple = self.multiple

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        day = plan.day(self.day)
        i = m.index_of(snap, day, camp.id)
        cost = snap["daily"][i]["cost"]
        budget = camp.budget_on(day)
        b = next(n for n, x in enumerate(snap["budgets"]) if camp.id in x["campaign_ids"])
        platform = "Google" if plan.platform == "google_ads" else "Meta"
        text = (f"on {day} campaign {_label(snap, camp.id)} cost {m.money(cost)} against a daily budget of "
                f"{m.money(budget)} ({cost / budget:.2f}x); {platform} allows up to {plan.cap_multiple(day):g}x on one day{_cap_since(plan, day)}")
        rows = [f"/daily/{i}", f"/budgets/{b}"]
        if self.multiple > plan.cap_multiple(day):
            return [self.entry("must_find", "pacing.daily_cap_exceeded", camp.id, text, rows)]
        return [self.entry("must_not_say", "pacing.daily_cap_exceeded", None, text + ", so the day is within the limit", rows,
                           ["(exceed|above|over|breach)\\w* (the |its )?daily (budget )?(cap|limit)", "daily cap"])]

    def describe(self, plan):
        return f"{self.role}: day {self.day} cost at {self.multiple}x the daily budget"


@dataclass
class BudgetChange(Scenario):
    """Budgets changed by ``factor`` on ``day`` (trap: the straight line misreads the pace)."""

    roles: list[str]
    day: int
    factor: float
    at: str = "08:40"
    name: str = "budget_change"

    def configure(self, plan, rng):
        for role in self.roles:
            camp = plan.by_role(role)
            camp.budget_changes.append((plan.day(self.day), round(camp.budget * self.factor / 5) * 5.0, self.at))

    def expect(self, plan, snap):
        pace = m.pacing(snap)
        straight = pace.spend_to_date / pace.straight_line
        kind, says = ("pacing.underspend", UNDERSPEND_SAYS) if self.factor > 1 else ("pacing.overspend", OVERSPEND_SAYS)
        # The history entry of this change (a budget may carry older changes before it).
        changed = str(plan.day(self.day))
        rows = [f"/budgets/{n}/history/{k}" for n, b in enumerate(snap["budgets"])
                for k, h in enumerate(b["history"]) if h["changed_at"][:10] == changed]
        text = (f"spend to date {m.money(pace.spend_to_date)} is {straight:.1%} of the straight line "
                f"{m.money(pace.straight_line)} but {pace.ratio:.1%} of the {m.money(pace.expected_to_date)} expected "
                f"on the budget schedule, because budgets changed by {self.factor:g}x on {plan.day(self.day)}; "
                f"projected month end {m.money(pace.projection)} against {m.money(pace.monthly_budget)}")
        return [self.entry("must_not_say", kind, None, text, rows[:3] + ["/targets/monthly_budget"], says)]

    def describe(self, plan):
        return f"budgets of {', '.join(self.roles)} changed {self.factor}x on day {self.day}"


@dataclass
class Flight(Scenario):
    """A flighted campaign: planned outside the elapsed days (trap for pacing or serving)."""

    role: str
    first: int
    last: int
    share: float = 0.6   # flight daily budget relative to the rest of the account's
    name: str = "flight"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.start, camp.end = plan.day(self.first), plan.day(self.last)
        others = sum(c.budget for c in plan.campaigns if c is not camp)
        camp.budget = round(others * self.share / 5) * 5.0
        days = self.last - self.first + 1
        plan.flight_plan.append({"campaign_id": camp.id, "start": camp.start.isoformat(), "end": camp.end.isoformat(),
                                 "planned_spend": round(camp.budget * days * camp.utilisation, -1)})

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        flight = next(n for n, f in enumerate(snap["flight_plan"]) if f["campaign_id"] == camp.id)
        f = snap["flight_plan"][flight]
        pace = m.pacing(snap)
        if camp.start > plan.last_complete:
            straight = pace.spend_to_date / pace.straight_line
            text = (f"campaign {_label(snap, camp.id)} is flighted {f['start']} to {f['end']} with {m.money(f['planned_spend'])} "
                    f"planned; spend to date {m.money(pace.spend_to_date)} is {straight:.1%} of the straight line "
                    f"{m.money(pace.straight_line)} but {pace.ratio:.1%} of the {m.money(pace.expected_to_date)} expected on the schedule")
            return [self.entry("must_not_say", "pacing.underspend", None, text, [f"/flight_plan/{flight}", "/targets/monthly_budget"], UNDERSPEND_SAYS),
                    self.entry("must_not_say", "delivery.serving_stopped", camp.id,
                               f"campaign {_label(snap, camp.id)} has no rows because its flight starts on {f['start']}",
                               [f"/flight_plan/{flight}", f"/campaigns/{m.campaign_index(snap, camp.id)}"], ["not (serving|delivering)", "stopped (serving|delivering)"])]
        last = m.select(snap, camp.id)[-1]
        text = (f"campaign {_label(snap, camp.id)} ran its flight {f['start']} to {f['end']} (end_date {camp.end}); its last row "
                f"is {snap['daily'][last]['date']}, so no rows after it is the plan, not a delivery stop")
        return [self.entry("must_not_say", "delivery.serving_stopped", camp.id, text,
                           [f"/flight_plan/{flight}", f"/daily/{last}"], ["stopped (serving|delivering)", "no longer (serving|delivering)"])]

    def describe(self, plan):
        return f"{self.role}: flight from day {self.first} to day {self.last}"


# ---------------------------------------------------------------- budget


@dataclass
class LostIsBudget(Scenario):
    """An efficient campaign capped by its budget."""

    role: str
    lost: float = 0.3
    efficiency: float = 0.7   # CPA relative to target
    name: str = "lost_is_budget"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.cvr = camp.cpc / (plan.cpa_equivalent * self.efficiency)
        camp.utilisation = 1.02
        camp.lost_budget = self.lost
        if camp.impression_share and camp.impression_share + self.lost > 0.95:
            camp.impression_share = 0.92 - self.lost

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role:
            p.lost_budget = self.lost

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        lcd = plan.last_complete
        idx = m.select(snap, camp.id, start=lcd - timedelta(days=6))
        lost = sum(snap["daily"][i]["search_budget_lost_impression_share"] for i in idx) / len(idx)
        s = m.stats(snap, m.select(snap, camp.id))
        budget = camp.budget_on(lcd)
        cost7 = m.total(snap, idx, "cost") / len(idx)
        text = (f"campaign {_label(snap, camp.id)} lost {lost:.1%} of search impression share to budget over the last 7 complete "
                f"days (spending {m.money(cost7)} a day on a {m.money(budget)} budget) at {_target_text(plan, s)}")
        return [self.entry("must_find", "budget.lost_is_budget", camp.id, text, m.pointers(idx, 4))]

    def describe(self, plan):
        return f"{self.role}: budget-limited ({self.lost:.0%} IS lost to budget) at {self.efficiency}x target CPA"


@dataclass
class Misallocated(Scenario):
    """An efficient budget-limited campaign beside an inefficient one with budget to spare."""

    good: str
    bad: str
    name: str = "misallocated"

    def configure(self, plan, rng):
        LostIsBudget(self.good, 0.32, 0.65).configure(plan, rng)
        bad = plan.by_role(self.bad)
        bad.cvr = bad.cpc / (plan.cpa_equivalent * 2.0)
        bad.utilisation = 0.62
        bad.lost_budget = 0.0
        keep_bidding_sane(bad, plan.platform, plan.days_in_month)

    def adjust(self, plan, camp, day, p):
        LostIsBudget(self.good, 0.32).adjust(plan, camp, day, p)

    def expect(self, plan, snap):
        good, bad = plan.by_role(self.good), plan.by_role(self.bad)
        gs, bs = m.stats(snap, m.select(snap, good.id)), m.stats(snap, m.select(snap, bad.id))
        lcd = plan.last_complete
        gi = m.select(snap, good.id, start=lcd - timedelta(days=6))
        lost = sum(snap["daily"][i]["search_budget_lost_impression_share"] for i in gi) / len(gi)
        bad_days = len(m.select(snap, bad.id))
        bad_budget = bad.budget_on(lcd)
        text = (f"{_label(snap, good.id)} loses {lost:.1%} of impression share to budget at {_target_text(plan, gs)}, while "
                f"{_label(snap, bad.id)} runs at {_target_text(plan, bs)} and spends {m.money(bs.cost / bad_days)} a day "
                f"of its {m.money(bad_budget)} budget")
        inner = LostIsBudget(self.good, 0.32).expect(plan, snap)[0]
        inner.list_name, inner.scenario = "may_find", self.name
        return [self.entry("must_find", "budget.misallocated", None, text, m.pointers(gi, 2) + m.pointers(m.select(snap, bad.id)[-2:])),
                inner,
                self.entry("may_find", "efficiency.off_target", bad.id, f"campaign {_label(snap, bad.id)} {_target_text(plan, bs)} on {m.num(bs.conversions)} conversions",
                           m.pointers(m.select(snap, bad.id), 2))]

    def describe(self, plan):
        return f"{self.good} budget-limited and efficient beside {self.bad} at 2x target CPA with budget to spare"


# ---------------------------------------------------------------- tracking


def _roles_or_all(plan: AccountPlan, roles: list[str] | None) -> list[Campaign]:
    return [plan.by_role(r) for r in roles] if roles else list(plan.campaigns)


@dataclass
class ConversionsStopped(Scenario):
    """The primary action stops recording from a date; clicks carry on."""

    day: int
    roles: list[str] | None = None
    name: str = "conversions_stopped"

    def adjust(self, plan, camp, day, p):
        if day >= plan.day(self.day) and (self.roles is None or camp.role in self.roles):
            p.conversions_zero = True

    def post(self, plan, snap, rng):
        if self.roles is None:
            snap["conversion_actions"][0]["last_conversion_date"] = (plan.day(self.day) - timedelta(days=1)).isoformat()

    def expect(self, plan, snap):
        camps = [c.id for c in _roles_or_all(plan, self.roles)]
        stop = plan.day(self.day)
        before = m.stats(snap, m.select(snap, camps, end=stop - timedelta(days=1)))
        after_idx = m.select(snap, camps, start=stop)
        after = m.stats(snap, after_idx)
        days_before, days_after = (stop - plan.start).days, (plan.last_complete - stop).days + 1
        scope = camps[0] if self.roles and len(camps) == 1 else None
        who = f"campaign {_label(snap, camps[0])}" if scope else f"{snap['conversion_actions'][0]['name']} conversions in every campaign"
        text = (f"{who}: conversions are 0 on every day from {stop} ({days_after} days, {m.num(after.clicks)} clicks, "
                f"{m.money(after.cost)} cost) after {m.num(before.conversions)} conversions on {m.num(before.clicks)} clicks "
                f"in the {days_before} days before ({m.pct(before.cvr, 2)} conversion rate)")
        rows = m.pointers(after_idx, 4)
        if scope is None:
            rows.append("/conversion_actions/0/last_conversion_date")
        out = [self.entry("must_find", "tracking.conversions_stopped", scope, text, rows),
               self.entry("may_find", "tracking.conversion_rate_step_drop", scope, f"the conversion rate fell to 0 from {stop}", rows[:2]),
               self.entry("may_find", "efficiency.cpa_drift", scope, f"measured CPA rose after {stop} because conversions stopped recording", rows[:2])]
        return out + off_target_side_effects(self, plan, snap, camps, "the stopped tracking")

    def describe(self, plan):
        return f"conversions 0 from day {self.day} on {', '.join(self.roles) if self.roles else 'every campaign'}"


def _windows(plan: AccountPlan, day: date) -> tuple[tuple[date, date], tuple[date, date]]:
    """Before: the period start to the day before ``day``; after: ``day`` to the last lag-excluded day."""
    return (plan.start, day - timedelta(days=1)), (day, plan.last_complete - timedelta(days=3))


@dataclass
class RateShift(Scenario):
    """Conversion rate multiplied by ``factor`` from a date: a step drop (0.4) or double counting (2.0)."""

    day: int
    factor: float
    roles: list[str] | None = None
    name: str = "rate_shift"

    def configure(self, plan, rng):
        if self.factor > 1.5:  # a second tag firing on the same purchase
            first = plan.conversion_actions[0]
            plan.conversion_actions.insert(1, ConversionAction(
                id=str(rng.randint(100000, 999999)), name=f"{first.name} (GA4)", category=first.category,
                counting_type=first.counting_type, lookback_days=first.lookback_days, attribution_model=first.attribution_model))

    def adjust(self, plan, camp, day, p):
        if day >= plan.day(self.day) and (self.roles is None or camp.role in self.roles):
            p.cvr *= self.factor

    def expect(self, plan, snap):
        camps = [c.id for c in _roles_or_all(plan, self.roles)]
        (b1, b2), (a1, a2) = _windows(plan, plan.day(self.day))
        bi, ai = m.select(snap, camps, b1, b2), m.select(snap, camps, a1, a2)
        b, a = m.stats(snap, bi), m.stats(snap, ai)
        nb, na = (b2 - b1).days + 1, (a2 - a1).days + 1
        text = (f"conversion rate {m.pct(b.cvr, 2)} ({m.num(b.conversions)} conversions / {m.num(b.clicks)} clicks, {b1} to {b2}) "
                f"against {m.pct(a.cvr, 2)} ({m.num(a.conversions)} / {m.num(a.clicks)}, {a1} to {a2}, before the lag days) "
                f"while clicks averaged {b.clicks / nb:,.0f} and {a.clicks / na:,.0f} a day")
        scope = camps[0] if self.roles and len(camps) == 1 else None
        if self.factor > 1:
            text += f"; actions {snap['conversion_actions'][0]['name']!r} and {snap['conversion_actions'][1]['name']!r} are both primary purchase actions"
            return [self.entry("must_find", "tracking.double_counting", scope, text, m.pointers(ai, 2) + ["/conversion_actions/1"])]
        out = [self.entry("must_find", "tracking.conversion_rate_step_drop", scope, text, m.pointers(bi[-2:]) + m.pointers(ai[:2]))]
        out.append(self.entry("may_find", "efficiency.cpa_drift", scope, f"CPA rose with the conversion-rate drop from {a1}", m.pointers(ai, 2)))
        return out + off_target_side_effects(self, plan, snap, camps, f"after the conversion-rate drop from {a1}")

    def describe(self, plan):
        what = "double counting (second primary action)" if self.factor > 1 else "conversion-rate step drop"
        return f"{what}: conversion rate x{self.factor} from day {self.day}"


@dataclass
class MissingValue(Scenario):
    """Conversions recorded with zero value on a value-bid campaign from a date."""

    role: str
    day: int
    name: str = "missing_value"

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role and day >= plan.day(self.day):
            p.value_zero = True

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        start = plan.day(self.day)
        bi, ai = m.select(snap, camp.id, end=start - timedelta(days=1)), m.select(snap, camp.id, start=start)
        b, a = m.stats(snap, bi), m.stats(snap, ai)
        text = (f"campaign {_label(snap, camp.id)} ({camp.bidding}) recorded {m.num(a.conversions)} conversions with "
                f"conversions_value 0 on every day from {start}, after {m.money(b.value / b.conversions)} per conversion before")
        return ([self.entry("must_find", "tracking.missing_conversion_value", camp.id, text, m.pointers(ai, 4))]
                + off_target_side_effects(self, plan, snap, [camp.id], "the missing values"))

    def describe(self, plan):
        return f"{self.role}: conversions_value 0 from day {self.day}"


@dataclass
class PrimaryDemoted(Scenario):
    """A primary conversion action demoted on a date: conversions fall, all_conversions hold."""

    day: int
    kept: float = 0.45
    trap: bool = False
    action_name: str = "Contact form"
    category: str = "SUBMIT_LEAD_FORM"
    name: str = "primary_demoted"

    def configure(self, plan, rng):
        first = plan.conversion_actions[0]
        self.action = ConversionAction(id=str(rng.randint(100000, 999999)), name=self.action_name,
                                       category=self.category, primary_for_goal=False,
                                       counting_type="ONE_PER_CLICK", lookback_days=first.lookback_days,
                                       attribution_model=first.attribution_model)
        plan.conversion_actions.insert(1, self.action)
        plan.change_events.append({"change_date_time": f"{plan.day(self.day).isoformat()} 10:12:00", "campaign_id": None,
                                   "resource_type": "CONVERSION_ACTION", "conversion_action_id": self.action.id,
                                   "changed_field": "primary_for_goal", "old": True, "new": False})

    def adjust(self, plan, camp, day, p):
        if day >= plan.day(self.day):
            p.primary_share = self.kept

    def expect(self, plan, snap):
        day = plan.day(self.day)
        (b1, b2), (a1, a2) = _windows(plan, day)
        bi, ai = m.select(snap, None, b1, b2), m.select(snap, None, a1, a2)
        b, a = m.stats(snap, bi), m.stats(snap, ai)
        nb, na = (b2 - b1).days + 1, (a2 - a1).days + 1
        ev = next(n for n, e in enumerate(snap["change_events"]) if e.get("changed_field") == "primary_for_goal")
        act = next(n for n, x in enumerate(snap["conversion_actions"]) if x["id"] == self.action.id)
        text = (f"conversions fell from {b.conversions / nb:.1f} to {a.conversions / na:.1f} a day from {day} while all_conversions "
                f"held at {b.all_conversions / nb:.1f} and {a.all_conversions / na:.1f} a day and clicks at {b.clicks / nb:,.0f} and "
                f"{a.clicks / na:,.0f}; the change event on {day} set {self.action.name!r} primary_for_goal true -> false")
        rows = [f"/change_events/{ev}", f"/conversion_actions/{act}"] + m.pointers(ai[:2])
        out = off_target_side_effects(self, plan, snap, [c.id for c in plan.campaigns], f"with fewer actions counted since {day}")
        out += [self.entry("must_find", "tracking.primary_action_changed", None, text, rows),
               self.entry("may_find", "data.attribution_change", None, f"the set of primary conversion actions changed on {day} ({self.action.name!r} demoted)",
                          [f"/change_events/{ev}"])]
        why = f"all_conversions held at {a.all_conversions / na:.1f} a day after {day}; the drop is the demotion of {self.action.name!r}, not a broken tag"
        out.append(self.entry("must_not_say", "tracking.conversions_stopped", None, why, rows[:1],
                              ["tag (is |was )?(broken|fail|not firing)", "tracking (is |has )?(broken|stopped)"]))
        out.append(self.entry("must_not_say", "efficiency.cpa_drift", None,
                              f"the CPA rise after {day} comes from fewer actions counted as conversions, not from worse buying", rows[:1],
                              ["(buying|bidding|auction) (got|became|is) (worse|less efficient)"]))
        if self.trap:
            out.append(self.entry("must_not_say", "tracking.conversion_rate_step_drop", None, why, rows[:1],
                                  ["tag (is |was )?(broken|fail|not firing)", "tracking (is |has )?(broken|failed)"]))
        else:
            out.append(self.entry("may_find", "tracking.conversion_rate_step_drop", None, "conversions per click halved from the demotion date", rows[2:]))
        return out

    def describe(self, plan):
        return f"secondary action demoted from primary on day {self.day}: conversions x{self.kept}, all_conversions steady"


# ---------------------------------------------------------------- waste


@dataclass
class ZeroConvTerms(Scenario):
    """Irrelevant search terms with no conversions eating ``share`` of a campaign's cost."""

    role: str
    share: float = 0.24
    name: str = "zero_conv_terms"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.cvr = camp.cpc / (plan.cpa_equivalent * 1.12)

    def post(self, plan, snap, rng):
        camp = plan.by_role(self.role)
        cost = m.total(snap, m.select(snap, camp.id, complete_only=False), "cost")
        clicks = m.total(snap, m.select(snap, camp.id, complete_only=False), "clicks")
        cpc = cost / clicks
        mine = [t for t in snap["search_terms"] if t["campaign_id"] == camp.id]
        for t in mine:
            for k in ("clicks", "impressions"):
                t[k] = max(1, round(t[k] * (1 - self.share)))
            t["cost"] = round(t["cost"] * (1 - self.share), 2)
        junk = plan.profile.junk_terms
        weights = [rng.uniform(0.6, 1.4) for _ in junk]
        at = snap["search_terms"].index(mine[-1]) + 1
        for n, (term, w) in enumerate(zip(junk, weights)):
            t_cost = round(cost * self.share * w / sum(weights), 2)
            t_clicks = max(1, round(t_cost / (cpc * rng.uniform(0.9, 1.1))))
            snap["search_terms"].insert(at + n, {"campaign_id": camp.id, "search_term": term, "impressions": round(t_clicks / camp.ctr),
                                                 "clicks": t_clicks, "cost": t_cost, "conversions": 0.0})

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = [n for n, t in enumerate(snap["search_terms"]) if t["campaign_id"] == camp.id and t["conversions"] == 0 and t["clicks"] >= 10]
        terms = [snap["search_terms"][n] for n in idx]
        cost = sum(t["cost"] for t in terms)
        camp_cost = m.total(snap, m.select(snap, camp.id, complete_only=False), "cost")
        acct = m.total(snap, m.select(snap, complete_only=False), "cost")
        top = sorted(terms, key=lambda t: -t["cost"])[:2]
        text = (f"{len(terms)} search terms with no conversions in campaign {_label(snap, camp.id)} cost {m.money(cost)} on "
                f"{sum(t['clicks'] for t in terms):,} clicks ({cost / camp_cost:.1%} of the campaign's {m.money(camp_cost)}, "
                f"{cost / acct:.1%} of account cost), led by {top[0]['search_term']!r} {m.money(top[0]['cost'])} and "
                f"{top[1]['search_term']!r} {m.money(top[1]['cost'])}")
        return [self.entry("must_find", "waste.zero_conv_search_terms", camp.id, text, [f"/search_terms/{n}" for n in idx])]

    def describe(self, plan):
        return f"{self.role}: zero-conversion junk search terms at {self.share:.0%} of its cost"


@dataclass
class ZeroConvCampaign(Scenario):
    """A conversion-objective campaign with material spend and no conversions at all."""

    role: str
    name: str = "zero_conv_campaign"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.cvr = 0.0
        if camp.smart_bidding and plan.platform == "google_ads":
            camp.bidding = "MAXIMIZE_CLICKS"

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        acct = m.stats(snap, m.select(snap))
        rate = acct.conversions / acct.clicks
        text = (f"campaign {_label(snap, camp.id)} spent {m.money(s.cost)} ({s.cost / acct.cost:.1%} of account cost) on "
                f"{m.num(s.clicks)} clicks with 0 conversions; at the account's {m.pct(rate, 2)} conversion rate about "
                f"{s.clicks * rate:.0f} were expected")
        return [self.entry("must_find", "waste.zero_conv_campaign", camp.id, text, m.pointers(idx, 4)),
                self.entry("may_find", "efficiency.off_target", camp.id, f"campaign {_label(snap, camp.id)} has no conversions on {m.money(s.cost)}", m.pointers(idx, 2))]

    def describe(self, plan):
        return f"{self.role}: no conversions all month"


# ---------------------------------------------------------------- efficiency


@dataclass
class OffTarget(Scenario):
    role: str
    ratio: float = 2.1
    name: str = "off_target"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.cvr = camp.cpc / (plan.cpa_equivalent * self.ratio)
        keep_bidding_sane(camp, plan.platform, plan.days_in_month)

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        gap = (s.cpa / plan.target_cpa) if plan.target_cpa else (plan.target_roas / s.roas)
        text = (f"campaign {_label(snap, camp.id)} {_target_text(plan, s)} over {m.num(s.conversions)} conversions and "
                f"{m.money(s.cost)} cost ({gap:.1f}x off target)")
        return [self.entry("must_find", "efficiency.off_target", camp.id, text, m.pointers(idx, 4))]

    def describe(self, plan):
        return f"{self.role}: CPA at {self.ratio}x target"


def _drift_windows(plan: AccountPlan) -> tuple[tuple[date, date], tuple[date, date]]:
    end = plan.last_complete - timedelta(days=3)
    return (plan.start, plan.start + timedelta(days=6)), (end - timedelta(days=6), end)


@dataclass
class CpaDrift(Scenario):
    """CPA rising steadily through the month (conversion rate eroding, clicks dearer)."""

    role: str
    rise: float = 2.2   # CPA at the last day relative to the first
    name: str = "cpa_drift"

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role:
            t = (day - plan.start).days / max(1, (plan.last_complete - plan.start).days)
            p.cvr *= 1.15 / (1 + (self.rise - 1) * t) ** 0.8
            p.cpc *= (1 + (self.rise - 1) * t) ** 0.2

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        (w1a, w1b), (w2a, w2b) = _drift_windows(plan)
        i1, i2 = m.select(snap, camp.id, w1a, w1b), m.select(snap, camp.id, w2a, w2b)
        s1, s2 = m.stats(snap, i1), m.stats(snap, i2)
        text = (f"campaign {_label(snap, camp.id)} CPA {m.money(s1.cpa)} ({m.num(s1.conversions)} conversions, {w1a} to {w1b}) "
                f"against {m.money(s2.cpa)} ({m.num(s2.conversions)} conversions, {w2a} to {w2b}, before the lag days): "
                f"{s2.cpa / s1.cpa - 1:+.1%}")
        return ([self.entry("must_find", "efficiency.cpa_drift", camp.id, text, m.pointers(i1[:2]) + m.pointers(i2[-2:]))]
                + off_target_side_effects(self, plan, snap, [camp.id], "as its CPA drifted up"))

    def describe(self, plan):
        return f"{self.role}: CPA drifting up {self.rise}x through the month"


@dataclass
class SmallSample(Scenario):
    """Trap: a small campaign whose CPA looks terrible on two conversions."""

    role: str
    expected: float = 3.5   # conversions the spend would buy at target: 2 of them is within chance
    name: str = "small_sample"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        days = (plan.last_complete - plan.start).days + 1
        camp.budget = round(self.expected * plan.cpa_equivalent / days / camp.utilisation / 0.95, 2)
        self.budget = camp.budget
        camp.bidding = "MANUAL_CPC"
        camp.cvr = 0.0  # the two conversions are placed in post, so the sample is exactly small

    def post(self, plan, snap, rng):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id, end=plan.last_complete - timedelta(days=4))
        for i in rng.sample(idx, 2):
            row = snap["daily"][i]
            row["conversions"] = 1.0
            row["all_conversions"] = round(row.get("all_conversions", 0) + 1.0, 2)
            row["conversions_value"] = round(camp.value_per_conversion, 2) if row.get("conversions_value") is not None else 0
        self.placed = sorted(i for i in idx if snap["daily"][i]["conversions"])

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        acct = m.total(snap, m.select(snap), "cost")
        text = (f"campaign {_label(snap, camp.id)} shows {_target_text(plan, s)} on only {m.num(s.conversions)} conversions "
                f"from {m.num(s.clicks)} clicks ({m.money(s.cost)}, {s.cost / acct:.1%} of account cost); at target about "
                f"{s.cost / plan.cpa_equivalent:.1f} conversions were expected, so 2 is within chance")
        return [self.entry("must_not_say", "efficiency.off_target", camp.id, text, [f"/daily/{i}" for i in self.placed],
                           ["CPA (is )?(far|well|way) (above|over)", "(far|well) off target"]),
                self.entry("must_not_say", "waste.zero_conv_campaign", camp.id, f"campaign {camp.id} has {m.num(s.conversions)} conversions", [f"/daily/{i}" for i in self.placed])]

    def describe(self, plan):
        return f"{self.role}: small campaign ({self.budget}/day) with exactly 2 conversions"


# ---------------------------------------------------------------- concentration


@dataclass
class SpendConcentration(Scenario):
    role: str
    share: float = 0.7
    name: str = "spend_concentration"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        others = sum(c.budget for c in plan.campaigns if c is not camp)
        camp.budget = round(others * self.share / (1 - self.share) / 5) * 5.0
        if camp.smart_bidding is False and camp.channel != "SEARCH":
            camp.bidding = "MAXIMIZE_CONVERSION_VALUE" if plan.is_ecom else "MAXIMIZE_CONVERSIONS"

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        acct = m.stats(snap, m.select(snap))
        text = (f"campaign {_label(snap, camp.id)} took {s.cost / acct.cost:.1%} of account cost ({m.money(s.cost)} of "
                f"{m.money(acct.cost)}) across {len(snap['campaigns'])} campaigns")
        out = [self.entry("must_find", "concentration.spend_single_campaign", camp.id, text, m.pointers(idx, 2))]
        if not camp.brand and s.conversions / acct.conversions > 0.5:
            out.append(self.entry("may_find", "concentration.conversions_single_campaign", camp.id,
                                  f"campaign {camp.id} also recorded {s.conversions / acct.conversions:.1%} of conversions", m.pointers(idx, 2)))
        return out

    def describe(self, plan):
        return f"{self.role}: {self.share:.0%} of spend"


@dataclass
class ConversionConcentration(Scenario):
    """One non-brand campaign carrying most conversions (or, as a trap, the brand campaign)."""

    role: str
    share: float = 0.62
    name: str = "conversion_concentration"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        rest = sum(c.budget * c.utilisation * c.cvr / c.cpc for c in plan.campaigns if c is not camp)
        camp.cvr = camp.cpc * self.share / (1 - self.share) * rest / (camp.budget * camp.utilisation)

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        acct = m.stats(snap, m.select(snap))
        text = (f"campaign {_label(snap, camp.id)} recorded {s.conversions / acct.conversions:.1%} of account conversions "
                f"({m.num(s.conversions)} of {m.num(acct.conversions)}) on {s.cost / acct.cost:.1%} of cost")
        if camp.brand:
            return [self.entry("must_not_say", "concentration.conversions_single_campaign", None,
                               text + "; a brand campaign carrying conversions is normal", m.pointers(idx, 2),
                               ["(rel(y|ies)|dependen\\w*) (heavily |too much )?on (the )?brand", "brand .*concentrat"])]
        return [self.entry("must_find", "concentration.conversions_single_campaign", camp.id, text, m.pointers(idx, 2))]

    def describe(self, plan):
        return f"{self.role}: {self.share:.0%} of conversions"


# ---------------------------------------------------------------- delivery, status, bidding


@dataclass
class ServingStopped(Scenario):
    role: str
    day: int
    rebid: bool = True   # a campaign with too few served days for smart bidding is bid by hand
    name: str = "serving_stopped"

    def configure(self, plan, rng):
        if self.rebid:
            keep_bidding_sane(plan.by_role(self.role), plan.platform, self.day - 1)

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role and day >= plan.day(self.day):
            p.skip = True

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        last = snap["daily"][idx[-1]]
        ci = m.campaign_index(snap, camp.id)
        text = (f"campaign {_label(snap, camp.id)} is {camp.status} / {camp.primary_status} but has no rows after {last['date']} "
                f"(last day {m.num(last['impressions'])} impressions, {m.money(last['cost'])} cost; average "
                f"{m.total(snap, idx, 'cost') / len(idx):,.2f} a day before); no change event, end date or flight explains it")
        return [self.entry("must_find", "delivery.serving_stopped", camp.id, text, [f"/campaigns/{ci}", *m.pointers(idx[-2:])])]

    def describe(self, plan):
        return f"{self.role}: no rows from day {self.day} while ENABLED"


@dataclass
class DisapprovedAds(Scenario):
    role: str
    count: int = 2
    topic: str = "MISLEADING_CONTENT"
    material: bool = True
    name: str = "disapproved_ads"

    def post(self, plan, snap, rng):
        camp = plan.by_role(self.role)
        ads = [a for a in snap["ads"] if a["campaign_id"] == camp.id]
        for ad in ads[: min(self.count, len(ads) - 1)]:  # one approved ad keeps the campaign serving
            ad["approval_status"] = "DISAPPROVED"
            ad["policy_topics"] = [self.topic]
            if not self.material:
                ad["cost"] = 0.0
                ad["status"] = "PAUSED"

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = [n for n, a in enumerate(snap["ads"]) if a["campaign_id"] == camp.id and a["approval_status"] == "DISAPPROVED"]
        cost = sum(snap["ads"][n]["cost"] for n in idx)
        camp_cost = sum(a["cost"] for a in snap["ads"] if a["campaign_id"] == camp.id)
        total = len([a for a in snap["ads"] if a["campaign_id"] == camp.id])
        if not self.material:
            return [self.entry("must_not_say", "status.disapproved_ads", camp.id,
                               f"the {len(idx)} disapproved ads in campaign {camp.id} are PAUSED and carried 0.00 cost", [f"/ads/{n}" for n in idx])]
        text = (f"{len(idx)} of {total} ads in campaign {_label(snap, camp.id)} are DISAPPROVED ({self.topic}) and carried "
                f"{m.money(cost)} of the campaign's {m.money(camp_cost)} ad cost in the period")
        return [self.entry("must_find", "status.disapproved_ads", camp.id, text, [f"/ads/{n}" for n in idx])]

    def describe(self, plan):
        return f"{self.role}: {self.count} disapproved ads ({'with spend' if self.material else 'paused, no spend'})"


@dataclass
class LearningPeriod(Scenario):
    """A bid strategy or target changed ``days_ago`` days before as_of; CPA noisier since."""

    role: str
    days_ago: int = 5
    trap: bool = False
    name: str = "learning_period"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        self.when = plan.as_of - timedelta(days=self.days_ago)
        if plan.target_cpa:
            old, new = round(plan.target_cpa * 1.15), round(plan.target_cpa * 0.95)
            event = {"changed_field": "target_cpa", "old": float(old), "new": float(new)}
            camp.bidding = "TARGET_CPA"
        else:
            old, new = camp.bidding, "TARGET_ROAS"
            event = {"changed_field": "bidding_strategy_type", "old": old, "new": new}
            camp.bidding = new
        plan.change_events.append({"change_date_time": f"{self.when.isoformat()} 16:05:00", "campaign_id": camp.id,
                                   "resource_type": "CAMPAIGN", **event})

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role and day >= self.when:
            p.cvr *= 0.82
            p.spend *= 0.9

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        ev = next(n for n, e in enumerate(snap["change_events"]) if e.get("campaign_id") == camp.id and e.get("resource_type") == "CAMPAIGN")
        e = snap["change_events"][ev]
        bi, ai = m.select(snap, camp.id, end=self.when - timedelta(days=1)), m.select(snap, camp.id, start=self.when)
        b, a = m.stats(snap, bi), m.stats(snap, ai)
        cpa = (lambda s: f"CPA {m.money(s.cpa)}") if plan.target_cpa else (lambda s: f"ROAS {s.roas:.2f}")
        text = (f"change event {e['change_date_time']} on campaign {_label(snap, camp.id)}: {e['changed_field']} {e['old']} -> {e['new']}, "
                f"{self.days_ago} days before as_of; {cpa(a)} since on {m.num(a.conversions)} conversions against {cpa(b)} before")
        out = [self.entry("must_find", "bidding.learning_period", camp.id, text, [f"/change_events/{ev}", *m.pointers(ai[:2])])]
        why = f"the {len(ai)} days since the {e['changed_field']} change on {self.when} are the learning period ({m.num(a.conversions)} conversions)"
        out.append(self.entry("must_not_say", "efficiency.cpa_drift", camp.id, why, [f"/change_events/{ev}"],
                              ["CPA (has )?(risen|rising|increas\\w*|worsen\\w*) (steadily|consistently)"]))
        if self.trap:
            out.append(self.entry("must_not_say", "efficiency.off_target", camp.id, why, [f"/change_events/{ev}"]))
        return out

    def describe(self, plan):
        return f"{self.role}: bid target/strategy changed {self.days_ago} days before as_of"


@dataclass
class LearningLimited(Scenario):
    role: str
    budget: float = 30.0
    name: str = "learning_limited"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.budget = self.budget
        camp.cvr = camp.cpc / (plan.cpa_equivalent * 0.95)
        if plan.platform == "google_ads":
            camp.bidding = "TARGET_CPA" if plan.target_cpa else "TARGET_ROAS"
            camp.primary_status = "LIMITED"
            camp.extra["primary_status_reasons"] = ["BIDDING_STRATEGY_LIMITED"]
        else:
            camp.bidding = "COST_CAP"
            camp.extra["delivery_status"] = "LEARNING_LIMITED"

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        n = len({snap["daily"][i]["date"] for i in idx})
        ci = m.campaign_index(snap, camp.id)
        status = "primary_status LIMITED (BIDDING_STRATEGY_LIMITED)" if plan.platform == "google_ads" else "delivery_status LEARNING_LIMITED"
        text = (f"campaign {_label(snap, camp.id)} bids {camp.bidding} on {m.num(s.conversions)} conversions in {n} days "
                f"(about {s.conversions / n * plan.days_in_month:.0f} a month), well under ~30; {status}")
        return [self.entry("must_find", "bidding.learning_limited", camp.id, text, [f"/campaigns/{ci}", *m.pointers(idx[-2:])])]

    def describe(self, plan):
        return f"{self.role}: smart bidding on ~{self.budget}/day, too few conversions"


# ---------------------------------------------------------------- traps on platform behaviour


@dataclass
class ConversionLag(Scenario):
    """Trap: a long conversion lag leaves the last days short of conversions."""

    tau: float = 3.2
    name: str = "conversion_lag"

    def configure(self, plan, rng):
        plan.lag_tau = self.tau
        plan.conversion_actions[0].lookback_days = 90

    def expect(self, plan, snap):
        lcd = plan.last_complete
        recent = m.select(snap, None, lcd - timedelta(days=2), lcd)
        base = m.select(snap, None, plan.start, lcd - timedelta(days=10))
        r, b = m.stats(snap, recent), m.stats(snap, base)
        text = (f"the last 3 complete days show {m.num(r.conversions)} conversions on {m.num(r.clicks)} clicks ({m.pct(r.cvr, 2)}) "
                f"against {m.pct(b.cvr, 2)} up to {lcd - timedelta(days=10)}; the {snap['conversion_actions'][0]['name']} action has a "
                f"{snap['conversion_actions'][0]['click_through_lookback_window_days']}-day lookback and conversions are credited to the "
                f"click date, so recent days fill in later")
        rows = m.pointers(recent, 3) + ["/conversion_actions/0/click_through_lookback_window_days"]
        says = ["tracking (is |has )?(broken|stopped)", "conversions (have )?(stopped|collapsed|dropped off)"]
        return [self.entry("must_not_say", "tracking.conversions_stopped", None, text, rows, says),
                self.entry("must_not_say", "tracking.conversion_rate_step_drop", None, text, rows, says),
                self.entry("must_not_say", "efficiency.cpa_drift", None,
                           "CPA measured over recent windows rises only because their conversions are still filling in", rows,
                           ["CPA (has )?(risen|rising|increas\\w*|worsen\\w*)"])]

    def describe(self, plan):
        return f"long conversion lag (tau {self.tau} days, 90-day lookback)"


@dataclass
class ManyPerClick(Scenario):
    """Trap: a remarketing campaign with more conversions than clicks on some days, counted many-per-click."""

    role: str
    name: str = "many_per_click"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.budget = 25.0   # few, dear clicks from past buyers who order again and again
        camp.cpc = max(camp.cpc, 2.6)
        camp.cvr = 1.1
        camp.value_per_conversion *= 0.45
        plan.conversion_actions[0].counting_type = "MANY_PER_CLICK"

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = [i for i in m.select(snap, camp.id) if snap["daily"][i]["conversions"] > snap["daily"][i]["clicks"]]
        if not idx:
            raise ValueError(f"{plan.case_id}: many_per_click planted no day with conversions above clicks; change the seed")
        row = snap["daily"][idx[0]]
        text = (f"campaign {_label(snap, camp.id)} has conversions above clicks on {len(idx)} days (e.g. {row['date']}: "
                f"{m.num(row['conversions'])} conversions on {row['clicks']} clicks); the {snap['conversion_actions'][0]['name']} "
                f"action counts MANY_PER_CLICK, so this is expected")
        return [self.entry("must_not_say", "data.invalid_values", None, text, m.pointers(idx, 3) + ["/conversion_actions/0/counting_type"],
                           ["conversions (exceed|above|higher than|greater than|more than) clicks", "more conversions than clicks"])]

    def describe(self, plan):
        return f"{self.role}: conversions above clicks with MANY_PER_CLICK counting"


@dataclass
class ShareFloor(Scenario):
    """Trap: impression share below 10% reported as 0.0999."""

    role: str
    name: str = "share_floor"

    def configure(self, plan, rng):
        plan.by_role(self.role).impression_share = 0.075

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = [i for i in m.select(snap, camp.id) if snap["daily"][i].get("search_impression_share") == 0.0999]
        text = (f"campaign {_label(snap, camp.id)} reports search_impression_share 0.0999 on {len(idx)} days; Google reports "
                f"impression share below 10% as 0.0999, so the value is valid")
        return [self.entry("must_not_say", "data.invalid_values", None, text, m.pointers(idx, 3),
                           ["0\\.0999 (is|looks) (invalid|wrong|suspicious)", "impression share .*(invalid|placeholder|corrupt)"])]

    def describe(self, plan):
        return f"{self.role}: impression share under 10% reported as 0.0999"


@dataclass
class WeekdaySchedule(Scenario):
    """Trap: a campaign scheduled Monday to Friday has no rows at weekends (days with no metrics)."""

    role: str
    name: str = "weekday_schedule"

    def configure(self, plan, rng):
        plan.by_role(self.role).extra["ad_schedule"] = "MON-FRI 07:00-19:00"

    def adjust(self, plan, camp, day, p):
        if camp.role == self.role and day.weekday() >= 5:
            p.skip = True

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        have = {snap["daily"][i]["date"] for i in m.select(snap, camp.id)}
        account_days = sorted({snap["daily"][i]["date"] for i in m.select(snap)})
        absent = [x for x in account_days if x not in have]
        ci = m.campaign_index(snap, camp.id)
        text = (f"campaign {_label(snap, camp.id)} has no rows on {len(absent)} weekend days ({absent[0]} to {absent[-1]}) while the "
                f"account has rows on every date; its ad_schedule is MON-FRI and Google omits days with no metrics")
        return [self.entry("must_not_say", "data.missing_days", None, text, [f"/campaigns/{ci}/ad_schedule"],
                           ["missing (days|dates|rows)", "gaps? in the data"]),
                self.entry("must_not_say", "delivery.serving_stopped", camp.id, text, [f"/campaigns/{ci}/ad_schedule"],
                           ["stopped (serving|delivering)"])]

    def describe(self, plan):
        return f"{self.role}: weekday-only ad schedule (no weekend rows)"
