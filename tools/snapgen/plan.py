"""Account and campaign plans: what the simulator draws daily rows from.

A plan holds the noise-free economics of each campaign (budget, cost per
click, conversion rate, value) and the schedule facts (budget changes,
flights, start and end dates). Scenarios edit the plan before simulation.
"""

from __future__ import annotations

import calendar
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from . import measure
from .profiles import Profile

GOOGLE_CHANNEL = {
    "brand": "SEARCH", "nb1": "SEARCH", "nb2": "SEARCH", "nb3": "SEARCH",
    "shopping": "SHOPPING", "pmax": "PERFORMANCE_MAX", "display": "DISPLAY",
    "video": "VIDEO", "remarketing": "DISPLAY",
}
META_ROLES = ("prospecting", "lookalike", "retargeting", "advantage", "catalog")

# Relative budget weight of each role in a typical account (normalised per account).
ROLE_WEIGHT = {
    "brand": 0.10, "nb1": 0.24, "nb2": 0.20, "nb3": 0.16, "shopping": 0.24, "pmax": 0.26,
    "display": 0.08, "remarketing": 0.07, "video": 0.07,
    "prospecting": 0.40, "lookalike": 0.25, "retargeting": 0.15, "advantage": 0.30, "catalog": 0.15,
}


@dataclass
class Campaign:
    role: str
    id: str
    name: str
    channel: str               # Google advertising_channel_type, or "META"
    budget: float              # daily budget in force on day 1
    cpc: float
    cvr: float                 # conversions per click, before lag
    ctr: float
    value_per_conversion: float
    bidding: str
    brand: bool = False
    utilisation: float = 0.86  # share of the daily budget spent on an average weekday
    weekend: float = 0.8
    impression_share: float | None = None   # search/shopping only
    lost_budget: float = 0.0   # search_budget_lost_impression_share baseline
    budget_changes: list[tuple[date, float, str]] = field(default_factory=list)  # (effective day, new amount, time)
    start: date | None = None  # first day it may serve (flights, new launches)
    end: date | None = None    # last day it may serve
    status: str = "ENABLED"
    primary_status: str = "ELIGIBLE"
    extra: dict[str, Any] = field(default_factory=dict)   # more campaign fields for the JSON
    row_extra: dict[str, Any] = field(default_factory=dict)  # fields added to each of its daily rows

    def budget_on(self, day: date) -> float:
        amount = self.budget
        for effective, new, _ in sorted(self.budget_changes):
            if day >= effective:
                amount = new
        return amount

    def serves_on(self, day: date) -> bool:
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)

    @property
    def is_search_like(self) -> bool:
        return self.channel in ("SEARCH", "SHOPPING")

    @property
    def smart_bidding(self) -> bool:
        return self.bidding not in ("MANUAL_CPC", "MAXIMIZE_CLICKS", "TARGET_IMPRESSION_SHARE", "LOWEST_COST_WITHOUT_CAP_REACH")


@dataclass
class ConversionAction:
    id: str
    name: str
    category: str
    primary_for_goal: bool = True
    counting_type: str = "ONE_PER_CLICK"
    lookback_days: int = 30
    attribution_model: str = "GOOGLE_ADS_INTEGRATED_DATA_DRIVEN"
    share: float = 1.0          # share of a campaign's conversions that this action records
    status: str = "ENABLED"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AccountPlan:
    case_id: str
    profile: Profile
    platform: str              # google_ads | meta_ads
    account_id: str
    account_name: str
    start: date
    end: date
    as_of: date
    campaigns: list[Campaign]
    conversion_actions: list[ConversionAction]
    target_cpa: float | None
    target_roas: float | None
    conversion_noise: tuple[float, float] = (0.6, 1.5)  # daily spread (x sqrt(mean)) and the carry clip; see simulate.draw_count
    lag_tau: float = 0.7       # conversion lag: share credited after k days is 1 - exp(-k / tau)
    pacing_target: float = 1.0  # month-to-date spend over the schedule, set after simulation
    monthly_budget: float = 0.0
    tolerance: float = 0.10
    flight_plan: list[dict[str, Any]] = field(default_factory=list)
    change_events: list[dict[str, Any]] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)  # scenario facts later read by expect()
    totals: bool = False       # write supplied totals (checked against the rows unless a scenario breaks them)
    partial_last_day: bool = False

    @property
    def last_complete(self) -> date:
        return self.as_of - timedelta(days=1)

    @property
    def days_in_month(self) -> int:
        return (self.end - self.start).days + 1

    def cap_multiple(self, day: date) -> float:
        return measure.cap_multiple(self.platform, day)

    @property
    def is_ecom(self) -> bool:
        return self.profile.model == "ecom"

    @property
    def cpa_equivalent(self) -> float:
        """The target expressed as a CPA (value per conversion / ROAS target for value accounts)."""
        if self.target_cpa:
            return self.target_cpa
        return self.profile.value_per_conversion / self.target_roas

    def by_role(self, role: str) -> Campaign:
        for camp in self.campaigns:
            if camp.role == role:
                return camp
        raise KeyError(f"{self.case_id}: no campaign with role {role!r} (roles: {[c.role for c in self.campaigns]})")

    def day(self, n: int) -> date:
        """Day ``n`` of the month (1-based); negative counts back from as_of (-1 = last complete day)."""
        return self.start + timedelta(days=n - 1) if n > 0 else self.as_of + timedelta(days=n)

    def days(self) -> list[date]:
        last = self.as_of if self.partial_last_day else self.last_complete
        return [self.start + timedelta(days=i) for i in range((last - self.start).days + 1)]


def _campaign_id(rng: random.Random, platform: str) -> str:
    if platform == "meta_ads":
        return "1202" + "".join(str(rng.randint(0, 9)) for _ in range(14))
    return str(rng.randint(10, 22)) + "".join(str(rng.randint(0, 9)) for _ in range(8))


def _name(profile: Profile, role: str, platform: str) -> str:
    c = profile.country
    if platform == "meta_ads":
        return {"prospecting": f"Prospecting | Broad | {c}", "lookalike": f"Prospecting | LAL 1% Purchasers | {c}",
                "retargeting": f"Retargeting | Site visitors 30d | {c}", "advantage": f"Advantage+ Shopping | {c}",
                "catalog": f"Catalogue | DPA | {c}"}[role]
    if role.startswith("nb"):
        return f"Search | NB | {profile.themes[int(role[2]) - 1]} | {c}"
    return {"brand": f"Search | Brand | {c}", "shopping": f"Shopping | All products | {c}",
            "pmax": f"PMax | Catalogue | {c}", "display": f"Display | Prospecting | {c}",
            "remarketing": f"Display | Remarketing | {c}", "video": f"Video | YouTube conversions | {c}"}[role]


def _bidding(role: str, ecom: bool, platform: str) -> str:
    if platform == "meta_ads":
        return "LOWEST_COST_WITHOUT_CAP"
    if role == "brand":
        return "TARGET_IMPRESSION_SHARE"
    if role in ("shopping",):
        return "TARGET_ROAS" if ecom else "MAXIMIZE_CONVERSIONS"
    if role == "pmax":
        return "MAXIMIZE_CONVERSION_VALUE" if ecom else "MAXIMIZE_CONVERSIONS"
    return ("MAXIMIZE_CONVERSION_VALUE" if ecom else "TARGET_CPA") if role.startswith("nb") else "MAXIMIZE_CONVERSIONS"


# (cpc range, ctr, CPA relative to the account target) per role
ROLE_ECONOMICS = {
    "brand": ((0.35, 0.70), 0.18, (0.20, 0.35)),
    "nb": ((1.10, 2.60), 0.045, (0.80, 1.08)),
    "shopping": ((0.45, 0.90), 0.012, (0.80, 1.05)),
    "pmax": ((0.55, 1.00), 0.010, (0.82, 1.05)),
    "display": ((0.30, 0.60), 0.005, (0.88, 1.05)),
    "remarketing": ((0.40, 0.70), 0.006, (0.55, 0.80)),
    "video": ((0.18, 0.35), 0.008, (0.90, 1.05)),
    "prospecting": ((0.70, 1.30), 0.012, (0.90, 1.10)),
    "lookalike": ((0.80, 1.40), 0.011, (0.85, 1.08)),
    "retargeting": ((0.60, 1.10), 0.018, (0.50, 0.75)),
    "advantage": ((0.60, 1.20), 0.013, (0.80, 1.02)),
    "catalog": ((0.50, 0.90), 0.015, (0.70, 0.95)),
}


def keep_bidding_sane(camp: Campaign, platform: str, days: int) -> None:
    """Smart bidding needs volume: a Google campaign with few conversions a month is bid by hand."""
    monthly = camp.budget * camp.utilisation * days * camp.cvr / camp.cpc
    if camp.smart_bidding and monthly < 45 and platform == "google_ads":
        camp.bidding = "MANUAL_CPC" if camp.channel == "SEARCH" else "MAXIMIZE_CLICKS"


def build_plan(case_id: str, profile: Profile, *, platform: str, year: int, month: int, as_of_day: int,
               roles: list[str], rng: random.Random, size: float = 1.0) -> AccountPlan:
    """A healthy account: on pace, every campaign near target, nothing broken."""
    start = date(year, month, 1)
    end = date(year, month, calendar.monthrange(year, month)[1])
    ecom = profile.model == "ecom"
    target_cpa = None if ecom else profile.target
    target_roas = profile.target if ecom else None
    cpa_target = target_cpa or profile.value_per_conversion / target_roas
    daily_total = profile.monthly_budget * size / end.day / 0.86
    weights = {r: ROLE_WEIGHT[r] * rng.uniform(0.85, 1.15) for r in roles}
    if len(roles) > 2:  # keep a healthy account unconcentrated: no campaign above 42% of budget
        top = max(weights, key=weights.get)
        others = sum(weights.values()) - weights[top]
        weights[top] = min(weights[top], 0.42 / 0.58 * others)
    total_w = sum(weights.values())
    campaigns = []
    used_ids: set[str] = set()
    for role in roles:
        econ = ROLE_ECONOMICS["nb" if role.startswith("nb") else role]
        cpc = round(rng.uniform(*econ[0]) * (1.6 if not ecom and role.startswith("nb") else 1.0), 2)
        cpa = cpa_target * rng.uniform(*econ[2])
        budget = round(daily_total * weights[role] / total_w / 5) * 5.0
        cid = _campaign_id(rng, platform)
        while cid in used_ids:
            cid = _campaign_id(rng, platform)
        used_ids.add(cid)
        channel = "META" if platform == "meta_ads" else GOOGLE_CHANNEL[role]
        camp = Campaign(
            role=role, id=cid, name=_name(profile, role, platform), channel=channel, budget=max(budget, 20.0),
            cpc=cpc, cvr=cpc / cpa, ctr=econ[1] * rng.uniform(0.85, 1.15),
            value_per_conversion=profile.value_per_conversion * (rng.uniform(0.7, 0.9) if role == "brand" else rng.uniform(0.9, 1.1)),
            bidding=_bidding(role, ecom, platform), brand=(role == "brand"),
            utilisation=rng.uniform(0.82, 0.9), weekend=profile.weekend * rng.uniform(0.95, 1.05),
        )
        if camp.is_search_like:
            camp.impression_share = rng.uniform(0.86, 0.94) if camp.brand else rng.uniform(0.32, 0.6)
            camp.lost_budget = rng.uniform(0.0, 0.03)
        keep_bidding_sane(camp, platform, end.day)
        campaigns.append(camp)
    actions = [ConversionAction(id=str(rng.randint(100000, 999999)), name=profile.conversion_name,
                                category="PURCHASE" if ecom else "SUBMIT_LEAD_FORM",
                                counting_type="MANY_PER_CLICK" if ecom else "ONE_PER_CLICK",
                                lookback_days=30 if ecom else 60)]
    actions.append(ConversionAction(id=str(rng.randint(100000, 999999)), name="Add to cart" if ecom else "Phone click",
                                    category="ADD_TO_CART" if ecom else "CONTACT", primary_for_goal=False,
                                    counting_type="MANY_PER_CLICK" if ecom else "ONE_PER_CLICK", lookback_days=30, share=0.0))
    if platform == "meta_ads":
        for a in actions:
            a.attribution_model = "7D_CLICK_1D_VIEW"
            a.lookback_days = 7
    account_id = (f"act_{rng.randint(10**14, 10**15 - 1)}" if platform == "meta_ads"
                  else f"{rng.randint(100, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}")
    return AccountPlan(
        case_id=case_id, profile=profile, platform=platform, account_id=account_id,
        account_name=f"ACCT-{case_id[1:3]}", start=start, end=end, as_of=date(year, month, as_of_day),
        campaigns=campaigns, conversion_actions=actions, target_cpa=target_cpa,
        target_roas=target_roas, pacing_target=rng.uniform(0.97, 1.03),
    )
