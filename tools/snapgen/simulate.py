"""Draw a snapshot (DESIGN.md section 4) from an account plan and its scenarios.

Rows are drawn day by day and campaign by campaign with a weekday rhythm,
multiplicative noise and Poisson conversions; conversions of the last days
are thinned by the conversion lag, as the platform reports them on the
snapshot date. Scenarios steer the draw through ``RowParams`` and edit the
finished snapshot in their ``post`` step (the data breakages).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from . import measure
from .plan import AccountPlan, Campaign

WEEKDAY_FACTOR = (1.06, 1.05, 1.03, 1.0, 0.93)  # Monday..Friday; weekends come from the profile


@dataclass
class RowParams:
    """What scenarios may change about one (campaign, day) before it is drawn."""

    spend: float = 1.0          # multiplier on the usual spend
    cost_multiple: float | None = None  # force the day's cost to this multiple of the budget
    cpc: float = 1.0
    cvr: float = 1.0
    conversions_zero: bool = False      # the primary action recorded nothing (all_conversions keeps the secondary)
    value_zero: bool = False            # conversions recorded without value
    primary_share: float = 1.0          # share of conversions still counted as primary ("conversions")
    skip: bool = False                  # no row: the platform omits days with no metrics
    lost_budget: float | None = None
    impression_share: float | None = None


class Scenario(Protocol):
    name: str

    def configure(self, plan: AccountPlan, rng: random.Random) -> None: ...
    def adjust(self, plan: AccountPlan, camp: Campaign, day: date, p: RowParams) -> None: ...
    def post(self, plan: AccountPlan, snap: dict[str, Any], rng: random.Random) -> None: ...


def poisson(rng: random.Random, lam: float) -> int:
    if lam <= 0:
        return 0
    if lam > 40:
        return max(0, round(rng.gauss(lam, math.sqrt(lam))))
    threshold, k, prod = math.exp(-lam), 0, rng.random()
    while prod > threshold:
        k += 1
        prod *= rng.random()
    return k


def draw_count(rng: random.Random, mean: float, carry: dict[str, float], key: str,
               noise: tuple[float, float] = (0.6, 1.5)) -> int:
    """Conversions for one row: noisy by day, but tracking the campaign's running mean.

    Plain Poisson draws over a month can push a small campaign's CPA 50% off
    target by chance; the case set wants each planted problem to be the only
    material one. So each day's draw carries its rounding and noise over to
    the next day (error diffusion): days look noisy, month totals stay true.
    """
    if mean <= 0:
        return 0
    owed = carry.get(key, 0.0) + mean
    spread, clip = noise
    count = max(0, round(owed + spread * math.sqrt(mean) * rng.gauss(0, 1)))
    carry[key] = max(-clip, min(clip, owed - count))
    return count


def lag_completeness(plan: AccountPlan, day: date) -> float:
    """Share of a day's eventual conversions already reported on as_of."""
    k = (plan.as_of - day).days
    return 1.0 - math.exp(-max(k, 0.35) / plan.lag_tau)


def _draw_row(plan: AccountPlan, camp: Campaign, day: date, p: RowParams, rng: random.Random,
              carry: dict[str, float]) -> dict[str, Any] | None:
    budget = camp.budget_on(day)
    rhythm = camp.weekend if day.weekday() >= 5 else WEEKDAY_FACTOR[day.weekday()]
    if plan.partial_last_day and day == plan.as_of:
        rhythm *= 0.3  # the export ran at 07:10 local time
    cpc = camp.cpc * p.cpc * rng.lognormvariate(0, 0.05)
    if p.cost_multiple is not None:
        spend = budget * p.cost_multiple
    else:
        spend = budget * camp.utilisation * rhythm * p.spend * rng.lognormvariate(0, 0.07)
        spend = min(spend, budget * min(plan.cap_multiple(day), 1.2) * rng.uniform(0.97, 1.0))
    clicks = round(spend / cpc)
    if clicks <= 0:
        return None
    cost = round(spend if p.cost_multiple is not None else clicks * cpc, 2)
    impressions = max(clicks, round(clicks / (camp.ctr * rng.lognormvariate(0, 0.08))))
    completeness = lag_completeness(plan, day)
    mean = clicks * camp.cvr * p.cvr
    whole = draw_count(rng, mean * completeness, carry, camp.id, plan.conversion_noise)
    fractional = plan.platform == "google_ads" and plan.conversion_actions[0].attribution_model.endswith("DATA_DRIVEN")
    total = round(whole * rng.uniform(0.93, 1.07), 2) if fractional and whole else float(whole)
    secondary = float(poisson(rng, mean * 0.35 * completeness))
    if p.conversions_zero:
        conversions, all_conversions = 0.0, secondary
    else:
        conversions = round(total * p.primary_share, 2) if p.primary_share < 1 else total
        if p.primary_share < 1 and not fractional:
            conversions = float(round(conversions))
        all_conversions = round(total + secondary, 2)
    if p.value_zero or conversions == 0:
        value = 0.0
    elif plan.is_ecom:
        value = round(conversions * camp.value_per_conversion * rng.lognormvariate(0, 0.12), 2)
    else:
        value = round(conversions * camp.value_per_conversion, 2)
    row: dict[str, Any] = {"date": day.isoformat(), "campaign_id": camp.id, "impressions": impressions,
                           "clicks": clicks, "cost": cost, "conversions": conversions,
                           "conversions_value": value, "all_conversions": all_conversions}
    if plan.platform == "meta_ads":
        del row["all_conversions"]
        row["reach"] = round(impressions / rng.uniform(1.25, 1.9))
    if camp.is_search_like:
        share = p.impression_share if p.impression_share is not None else camp.impression_share * rng.lognormvariate(0, 0.04)
        share = min(share, 0.97)
        lost = p.lost_budget if p.lost_budget is not None else camp.lost_budget * rng.uniform(0.5, 1.5)
        lost = round(min(max(lost * rng.lognormvariate(0, 0.05) if p.lost_budget else lost, 0.0), 1 - share), 4)
        row["search_impression_share"] = 0.0999 if share < 0.1 else round(share, 4)
        row["search_budget_lost_impression_share"] = lost
        row["search_rank_lost_impression_share"] = round(max(0.0, 1 - share - lost), 4)
    row.update(camp.row_extra)
    return row


def _search_terms(plan: AccountPlan, rows: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    profile = plan.profile
    terms: list[dict[str, Any]] = []
    for camp in plan.campaigns:
        if not camp.is_search_like:
            continue
        mine = [r for r in rows if r["campaign_id"] == camp.id]
        clicks = sum(r["clicks"] for r in mine)
        cost = sum(r["cost"] for r in mine)
        if not clicks:
            continue
        cvr = sum(r["conversions"] for r in mine) / clicks
        if camp.brand:
            b = profile.brand.lower()
            words = [b, f"{b} shop", f"{b} online", f"{b} discount code", f"{b} contact", f"www {b}"]
        elif camp.channel == "SHOPPING":
            words = [t for ts in profile.terms.values() for t in ts]
        else:
            theme = profile.themes[int(camp.role[2]) - 1] if camp.role.startswith("nb") else profile.themes[0]
            base = list(profile.terms.get(theme, (theme.lower(),)))
            words = base + [f"{base[0]} online", f"best {base[1 % len(base)]}", f"{base[-1]} {profile.country.lower()}"]
        shares = [1 / (i + 1) ** 0.9 for i in range(len(words))]
        covered = rng.uniform(0.68, 0.8)  # the rest falls under the report's privacy threshold
        scale = covered / sum(shares)
        for word, share in zip(words, shares):
            t_clicks = max(1, round(clicks * share * scale))
            expect = t_clicks * cvr * rng.uniform(0.8, 1.2)
            conv = float(max(round(expect), 1 if expect >= 1.2 else 0))
            terms.append({"campaign_id": camp.id, "search_term": word, "impressions": round(t_clicks / camp.ctr),
                          "clicks": t_clicks, "cost": round(cost * share * scale * rng.uniform(0.93, 1.07), 2),
                          "conversions": conv})
    return terms


def _ads(plan: AccountPlan, rows: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    ad_type = {"SEARCH": "RESPONSIVE_SEARCH_AD", "SHOPPING": "SHOPPING_PRODUCT_AD", "PERFORMANCE_MAX": "ASSET_GROUP",
               "DISPLAY": "RESPONSIVE_DISPLAY_AD", "VIDEO": "VIDEO_RESPONSIVE_AD", "META": "IMAGE_AD"}
    ads = []
    for camp in plan.campaigns:
        cost = sum(r["cost"] for r in rows if r["campaign_id"] == camp.id)
        n = rng.randint(2, 3)
        shares = [rng.uniform(0.5, 1.5) for _ in range(n)]
        for share in shares:
            ads.append({"ad_id": str(rng.randint(10**11, 10**12 - 1)), "campaign_id": camp.id,
                        "type": ad_type[camp.channel], "status": "ENABLED", "approval_status": "APPROVED",
                        "cost": round(cost * share / sum(shares), 2)})
    return ads


def _local_time(plan: AccountPlan, day: date, at: str) -> str:
    hh, mm = (int(x) for x in at.split(":"))
    return datetime.combine(day, time(hh, mm), ZoneInfo(plan.profile.time_zone)).isoformat()


def build_snapshot(plan: AccountPlan, scenarios: list[Scenario], rng: random.Random) -> dict[str, Any]:
    for s in scenarios:
        s.configure(plan, rng)
    rows = []
    carry: dict[str, float] = {}
    for day in plan.days():
        for camp in plan.campaigns:
            if not camp.serves_on(day):
                continue
            p = RowParams()
            for s in scenarios:
                s.adjust(plan, camp, day, p)
            if p.skip:
                continue
            row = _draw_row(plan, camp, day, p, rng, carry)
            if row is not None:
                rows.append(row)
    google = plan.platform == "google_ads"
    budgets, campaigns = [], []
    for n, camp in enumerate(plan.campaigns, 1):
        history, old = [], camp.budget
        if rng.random() < 0.3:  # an older change, before the period: in force all month
            before = plan.start - timedelta(days=rng.randint(5, 40))
            history.append({"changed_at": _local_time(plan, before, "09:15"),
                            "old_amount": round(camp.budget * rng.uniform(0.7, 0.9) / 5) * 5.0, "new_amount": camp.budget})
        for effective, new, at in sorted(camp.budget_changes):
            history.append({"changed_at": _local_time(plan, effective, at), "old_amount": old, "new_amount": new})
            old = new
        budgets.append({"budget_id": f"b{n}", "campaign_ids": [camp.id], "period": "DAILY",
                        "amount": camp.budget_on(plan.as_of), "history": history})
        entry: dict[str, Any] = {"id": camp.id, "name": camp.name}
        if google:
            entry["advertising_channel_type"] = camp.channel
        else:
            entry["objective"] = "OUTCOME_SALES" if plan.is_ecom else "OUTCOME_LEADS"
        entry.update({"status": camp.status, "primary_status": camp.primary_status,
                      "bidding_strategy_type": camp.bidding, "budget_id": f"b{n}"})
        if camp.start and camp.start > plan.start:
            entry["start_date"] = camp.start.isoformat()
        if camp.end:
            entry["end_date"] = camp.end.isoformat()
        entry.update(camp.extra)
        campaigns.append(entry)
    actions = []
    for a in plan.conversion_actions:
        entry = {"id": a.id, "name": a.name, "category": a.category, "status": a.status,
                 "primary_for_goal": a.primary_for_goal, "counting_type": a.counting_type,
                 "click_through_lookback_window_days": a.lookback_days, "attribution_model": a.attribution_model}
        entry.update(a.extra)
        actions.append(entry)
    tz = ZoneInfo(plan.profile.time_zone)
    taken = datetime.combine(plan.as_of, time(7, 10), tz)
    snap: dict[str, Any] = {
        "schema_version": "1.0",
        "platform": plan.platform,
        "account": {"id": plan.account_id, "name": plan.account_name, "currency_code": plan.profile.currency,
                    "time_zone": plan.profile.time_zone, "snapshot_taken_at": taken.isoformat()},
        "period": {"start": plan.start.isoformat(), "end": plan.end.isoformat(), "as_of": plan.as_of.isoformat(),
                   "last_complete_date": plan.last_complete.isoformat(), "days_in_month": plan.days_in_month},
        "targets": {"monthly_budget": 0.0, "target_cpa": plan.target_cpa, "target_roas": plan.target_roas,
                    "pacing_tolerance": plan.tolerance},
        "budgets": budgets,
        "flight_plan": plan.flight_plan,
        "campaigns": campaigns,
        "change_events": [],
        "conversion_actions": actions,
        "daily": rows,
        "search_terms": _search_terms(plan, rows, rng) if google else [],
        "ads": _ads(plan, rows, rng),
    }
    # The monthly budget is the schedule's month total scaled so that spend to date lands at the planned pace.
    pace = measure.pacing(snap, monthly_budget=1.0)
    snap["targets"]["monthly_budget"] = round(pace.spend_to_date / (plan.pacing_target * pace.expected_to_date), -1)
    events = _budget_change_events(plan) + _routine_change_events(plan, rng) + plan.change_events
    snap["change_events"] = sorted(events, key=lambda e: e["change_date_time"])
    for entry in snap["conversion_actions"]:
        entry.setdefault("last_conversion_date", plan.last_complete.isoformat())
    for s in scenarios:
        s.post(plan, snap, rng)
    if plan.totals and "totals" not in snap:
        snap["totals"] = measure.totals(snap)
    return snap


def _routine_change_events(plan: AccountPlan, rng: random.Random) -> list[dict[str, Any]]:
    """Everyday edits (keywords, ads, audiences) that explain nothing material."""
    kinds = ([("AD_GROUP_CRITERION", "keyword", None, "added"), ("AD_GROUP_CRITERION", "negative_keyword", None, "added"),
              ("AD", "status", "ENABLED", "PAUSED"), ("AD", "final_url", "old", "new")]
             if plan.platform == "google_ads" else
             [("AD", "status", "ACTIVE", "PAUSED"), ("AD_SET", "targeting_age_max", 65, 55), ("AD", "creative", "old", "new")])
    events = []
    for _ in range(rng.randint(2, 4)):
        camp = rng.choice(plan.campaigns)
        resource, changed, old, new = rng.choice(kinds)
        day = plan.start + timedelta(days=rng.randint(0, (plan.last_complete - plan.start).days))
        events.append({"change_date_time": f"{day.isoformat()} {rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:00",
                       "campaign_id": camp.id, "resource_type": resource, "changed_field": changed, "old": old, "new": new})
    return events


def _budget_change_events(plan: AccountPlan) -> list[dict[str, Any]]:
    events = []
    for camp in plan.campaigns:
        old = camp.budget
        for effective, new, at in sorted(camp.budget_changes):
            events.append({"change_date_time": f"{effective.isoformat()} {at}:00", "campaign_id": camp.id,
                           "resource_type": "CAMPAIGN_BUDGET", "changed_field": "amount", "old": old, "new": new})
            old = new
    return events
