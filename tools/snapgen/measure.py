"""Figures read back from a snapshot: sums, rates, shares, the pacing schedule.

Everything here works on the snapshot dict alone (never on the plan), so an
evidence line states only what a reader can recompute from snapshot.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Iterable

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")


# The platforms' daily allowance over the daily budget, as reviewtui/taxonomy.yaml states it
# (pacing.daily_cap_exceeded): Google twice; Meta a quarter above, three quarters from META_FLEXIBLE_FROM.
GOOGLE_CAP = 2.0
META_CAP = 1.25
META_FLEXIBLE_CAP = 1.75
META_FLEXIBLE_FROM = date(2025, 5, 29)


def cap_multiple(platform: str, day: date) -> float:
    if platform == "google_ads":
        return GOOGLE_CAP
    return META_FLEXIBLE_CAP if day >= META_FLEXIBLE_FROM else META_CAP


def d(text: str) -> date:
    return date.fromisoformat(text)


def money(x: float) -> str:
    return f"{x:,.2f}"


def pct(x: float, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%"


def num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"


def last_complete(snap: dict[str, Any]) -> date:
    period = snap["period"]
    return d(period.get("last_complete_date") or period["as_of"])


def select(snap: dict[str, Any], campaign: str | Iterable[str] | None = None, start: date | None = None,
           end: date | None = None, complete_only: bool = True) -> list[int]:
    """Indexes into ``daily`` of the rows matching the filters (``end`` inclusive)."""
    if isinstance(campaign, str):
        campaign = {campaign}
    elif campaign is not None:
        campaign = set(campaign)
    limit = last_complete(snap) if complete_only else None
    out = []
    for i, row in enumerate(snap["daily"]):
        day = d(row["date"])
        if campaign is not None and row["campaign_id"] not in campaign:
            continue
        if start and day < start or end and day > end or limit and day > limit:
            continue
        out.append(i)
    return out


def total(snap: dict[str, Any], idxs: Iterable[int], metric: str) -> float:
    return round(sum(float(snap["daily"][i].get(metric) or 0) for i in idxs), 2)


def pointers(idxs: Iterable[int], limit: int = 6) -> list[str]:
    idxs = list(idxs)
    if len(idxs) > limit:  # first and last few rows keep the pointer list readable
        idxs = idxs[: limit // 2] + idxs[-(limit - limit // 2):]
    return [f"/daily/{i}" for i in idxs]


def index_of(snap: dict[str, Any], day: date, campaign: str) -> int:
    for i, row in enumerate(snap["daily"]):
        if row["date"] == day.isoformat() and row["campaign_id"] == campaign:
            return i
    raise LookupError(f"no row for campaign {campaign} on {day}")


def campaign_index(snap: dict[str, Any], campaign: str) -> int:
    return next(i for i, c in enumerate(snap["campaigns"]) if c["id"] == campaign)


def campaign_name(snap: dict[str, Any], campaign: str) -> str:
    return snap["campaigns"][campaign_index(snap, campaign)]["name"]


@dataclass
class Stats:
    cost: float
    clicks: float
    conversions: float
    value: float
    impressions: float
    all_conversions: float

    @property
    def cpa(self) -> float | None:
        return self.cost / self.conversions if self.conversions else None

    @property
    def roas(self) -> float | None:
        return self.value / self.cost if self.cost else None

    @property
    def cvr(self) -> float:
        return self.conversions / self.clicks if self.clicks else 0.0


def stats(snap: dict[str, Any], idxs: Iterable[int]) -> Stats:
    idxs = list(idxs)
    return Stats(*(total(snap, idxs, m) for m in ("cost", "clicks", "conversions", "conversions_value", "impressions", "all_conversions")))


def campaign_stats(snap: dict[str, Any], **filters: Any) -> dict[str, Stats]:
    return {c["id"]: stats(snap, select(snap, c["id"], **filters)) for c in snap["campaigns"]}


def budget_on(budget: dict[str, Any], day: date) -> float:
    history = sorted(budget.get("history") or [], key=lambda h: h["changed_at"])
    amount = history[0]["old_amount"] if history else budget["amount"]
    for h in history:
        if day >= d(h["changed_at"][:10]):
            amount = h["new_amount"]
    return float(amount)


def schedule(snap: dict[str, Any]) -> dict[date, float]:
    """Daily budget in force for each day of the month, summed over serving campaigns."""
    budgets = {b["budget_id"]: b for b in snap.get("budgets") or []}
    start, end = d(snap["period"]["start"]), d(snap["period"]["end"])
    out = {}
    day = start
    while day <= end:
        amount = 0.0
        for camp in snap["campaigns"]:
            first = d(camp["start_date"]) if camp.get("start_date") else start
            last = d(camp["end_date"]) if camp.get("end_date") else end
            if first <= day <= last and camp.get("budget_id") in budgets:
                amount += budget_on(budgets[camp["budget_id"]], day)
        out[day] = amount
        day += timedelta(days=1)
    return out


@dataclass
class Pace:
    monthly_budget: float
    days_elapsed: int
    days_in_month: int
    spend_to_date: float
    expected_to_date: float     # on the budget schedule in force
    straight_line: float        # monthly budget * days elapsed / days in month
    projection: float           # spend to date + remaining schedule at the last 7 days' rate of spend

    @property
    def ratio(self) -> float:
        return self.spend_to_date / self.expected_to_date

    @property
    def projection_ratio(self) -> float:
        return self.projection / self.monthly_budget


def pacing(snap: dict[str, Any], monthly_budget: float | None = None, cost_fix: float = 1.0) -> Pace:
    budget = monthly_budget if monthly_budget is not None else snap["targets"]["monthly_budget"]
    sched = schedule(snap)
    lcd = last_complete(snap)
    start = d(snap["period"]["start"])
    elapsed = [day for day in sched if day <= lcd]
    remaining = [day for day in sched if day > lcd]
    month_total = sum(sched.values())
    spend = total(snap, select(snap, end=lcd), "cost") * cost_fix
    last7 = [day for day in elapsed if day > lcd - timedelta(days=7)]
    spend7 = total(snap, select(snap, start=lcd - timedelta(days=6), end=lcd), "cost") * cost_fix
    rate = spend7 / sum(sched[day] for day in last7) if last7 and sum(sched[day] for day in last7) else 0.0
    return Pace(
        monthly_budget=budget, days_elapsed=(lcd - start).days + 1, days_in_month=len(sched),
        spend_to_date=round(spend, 2),
        expected_to_date=round(budget * sum(sched[day] for day in elapsed) / month_total, 2),
        straight_line=round(budget * len(elapsed) / len(sched), 2),
        projection=round(spend + rate * sum(sched[day] for day in remaining), 2),
    )


def totals(snap: dict[str, Any]) -> dict[str, Any]:
    """Supplied totals as an export writes them: per campaign and for the account."""
    idxs = select(snap, complete_only=False)
    per = []
    for camp in snap["campaigns"]:
        s = stats(snap, select(snap, camp["id"], complete_only=False))
        per.append({"campaign_id": camp["id"], "cost": round(s.cost, 2), "clicks": int(s.clicks),
                    "conversions": round(s.conversions, 2)})
    s = stats(snap, idxs)
    return {"account": {"cost": round(s.cost, 2), "clicks": int(s.clicks), "conversions": round(s.conversions, 2)},
            "campaigns": per}
