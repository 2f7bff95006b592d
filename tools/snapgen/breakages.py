"""Planted data breakages (the ``data.*`` kinds) and the healthy-account summary.

Breakages edit the finished snapshot in ``post``; their must_not_say entries
name the figures the breakage would corrupt if read as-is.
"""

from __future__ import annotations

import copy
import statistics
from dataclasses import dataclass
from datetime import timedelta

from . import measure as m
from .scenarios import OVERSPEND_SAYS, UNDERSPEND_SAYS, Scenario, _label


def _raw_vs_true(snap, fix) -> tuple[m.Pace, m.Pace]:
    """Pacing read from the rows as they are, and from a repaired copy."""
    fixed = copy.deepcopy(snap)
    fix(fixed)
    return m.pacing(snap), m.pacing(fixed)


@dataclass
class DuplicateRows(Scenario):
    """The export appended some days twice."""

    days: list[int]
    name: str = "duplicate_rows"

    def post(self, plan, snap, rng):
        dates = {plan.day(n).isoformat() for n in self.days}
        dupes = [dict(r) for r in snap["daily"] if r["date"] in dates]
        snap["daily"].extend(dupes)

    def expect(self, plan, snap):
        seen: dict[tuple[str, str], int] = {}
        pairs = []
        for i, r in enumerate(snap["daily"]):
            key = (r["date"], r["campaign_id"])
            if key in seen:
                pairs.append((seen[key], i))
            seen[key] = i
        dates = sorted({snap["daily"][a]["date"] for a, _ in pairs})

        def dedupe(s):
            keep, out = set(), []
            for r in s["daily"]:
                if (r["date"], r["campaign_id"]) not in keep:
                    keep.add((r["date"], r["campaign_id"]))
                    out.append(r)
            s["daily"] = out

        raw, true = _raw_vs_true(snap, dedupe)
        a, b = pairs[0]
        text = (f"{len(pairs)} (date, campaign) pairs appear twice, every campaign on {', '.join(dates)}: e.g. /daily/{a} and "
                f"/daily/{b} are the same row")
        rows = [f"/daily/{a}", f"/daily/{b}", f"/daily/{pairs[-1][0]}", f"/daily/{pairs[-1][1]}"]
        return [self.entry("must_find", "data.duplicate_rows", None, text, rows),
                self.entry("must_not_say", "pacing.overspend", None,
                           f"with the duplicates counted spend to date reads {m.money(raw.spend_to_date)} ({raw.ratio - 1:+.1%} on the "
                           f"schedule); deduplicated it is {m.money(true.spend_to_date)} ({true.ratio - 1:+.1%})", rows[:2], OVERSPEND_SAYS),
                self.entry("must_not_say", "tracking.double_counting", None,
                           f"conversions look doubled only on the duplicated dates {', '.join(dates)}", rows[:2],
                           ["conversions (doubled|double)", "double[- ]count"]),
                self.entry("must_not_say", "pacing.daily_cap_exceeded", None,
                           "a duplicated day counted twice is not a cost above the daily budget; each row is within its budget", rows[:2])]

    def describe(self, plan):
        return f"days {self.days} appended twice"


@dataclass
class MissingDays(Scenario):
    days: list[int]
    name: str = "missing_days"

    def configure(self, plan, rng):
        plan.pacing_target = 1.0

    def post(self, plan, snap, rng):
        gone = {plan.day(n).isoformat() for n in self.days}
        snap["daily"] = [r for r in snap["daily"] if r["date"] not in gone]

    def expect(self, plan, snap):
        gone = [plan.day(n) for n in self.days]
        around = []
        for day in gone:
            for other in (day - timedelta(days=1), day + timedelta(days=1)):
                if other not in gone:
                    around.append(m.select(snap, None, other, other))
        spend_around = [m.total(snap, idx, "cost") for idx in around]
        raw = m.pacing(snap)
        per_day = raw.spend_to_date / (raw.days_elapsed - len(gone))
        true_ratio = (raw.spend_to_date + per_day * len(gone)) / raw.expected_to_date
        text = (f"no rows for any campaign on {', '.join(map(str, gone))}, with {m.money(min(spend_around))} to "
                f"{m.money(max(spend_around))} of spend on the days either side")
        rows = [f"/daily/{around[0][-1]}", f"/daily/{around[-1][0]}"]
        return [self.entry("must_find", "data.missing_days", None, text, rows),
                self.entry("must_not_say", "pacing.underspend", None,
                           f"spend to date reads {m.money(raw.spend_to_date)} ({raw.ratio - 1:+.1%} on the schedule) only because "
                           f"{len(gone)} days are missing; at the {m.money(per_day)} daily average of the days present the account is on "
                           f"pace ({true_ratio - 1:+.1%})", rows, UNDERSPEND_SAYS),
                self.entry("must_not_say", "delivery.serving_stopped", None,
                           f"every campaign has rows again after {gone[-1]}; the export lost whole days", rows,
                           ["stopped (serving|delivering)", "(did not|didn't) serve"])]

    def describe(self, plan):
        return f"no rows at all on days {self.days}"


@dataclass
class MicrosNotConverted(Scenario):
    role: str
    day: int
    name: str = "micros"

    def post(self, plan, snap, rng):
        camp = plan.by_role(self.role)
        for r in snap["daily"]:
            if r["campaign_id"] == camp.id and r["date"] >= plan.day(self.day).isoformat():
                r["cost"] = int(round(r["cost"] * 1_000_000))
                r["conversions_value"] = int(round(r["conversions_value"] * 1_000_000))

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        start = plan.day(self.day)
        bi, ai = m.select(snap, camp.id, end=start - timedelta(days=1)), m.select(snap, camp.id, start=start)
        first = snap["daily"][ai[0]]

        def fix(s):
            for i in ai:
                s["daily"][i]["cost"] = round(s["daily"][i]["cost"] / 1e6, 2)

        raw, true = _raw_vs_true(snap, fix)
        text = (f"campaign {_label(snap, camp.id)} rows from {start} carry cost and value in micros: {first['cost']:,} on {first['date']} "
                f"(= {m.money(first['cost'] / 1e6)}) against {m.money(m.total(snap, bi, 'cost') / len(bi))} a day before")
        rows = [f"/daily/{bi[-1]}", *m.pointers(ai[:3])]
        return [self.entry("must_find", "data.micros_not_converted", None, text, rows),
                self.entry("must_not_say", "pacing.overspend", None,
                           f"read as-is spend to date would be {m.money(raw.spend_to_date)}; converted it is {m.money(true.spend_to_date)} "
                           f"({true.ratio - 1:+.1%} on the schedule)", rows, OVERSPEND_SAYS),
                self.entry("must_not_say", "pacing.daily_cap_exceeded", camp.id, "the huge daily costs are micros, not real spend", rows),
                self.entry("must_not_say", "concentration.spend_single_campaign", camp.id,
                           "the campaign's share of cost is inflated a million-fold by the micros rows", rows),
                self.entry("must_not_say", "efficiency.cpa_drift", camp.id,
                           "the CPA jump from the micros rows on is a unit error, not a drift", rows),
                self.entry("must_not_say", "efficiency.off_target", camp.id,
                           "converted from micros the campaign's cost per conversion is in line with the rest of the month", rows)]

    def describe(self, plan):
        return f"{self.role}: cost and value in micros from day {self.day}"


@dataclass
class CurrencyMismatch(Scenario):
    role: str
    currency: str = "SEK"
    rate: float = 11.4
    name: str = "currency_mismatch"

    def configure(self, plan, rng):
        camp = plan.by_role(self.role)
        camp.extra["currency_code"] = self.currency
        camp.row_extra["currency_code"] = self.currency
        camp.budget = round(camp.budget * self.rate / 10) * 10.0
        camp.cpc *= self.rate
        camp.value_per_conversion *= self.rate

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        idx = m.select(snap, camp.id)
        s = m.stats(snap, idx)
        acct = m.stats(snap, m.select(snap))
        ci = m.campaign_index(snap, camp.id)
        text = (f"campaign {_label(snap, camp.id)} and its rows carry currency_code {self.currency} while the account is "
                f"{snap['account']['currency_code']}; its {m.money(s.cost)} {self.currency} is {s.cost / acct.cost:.1%} of the summed cost as-is")
        rows = [f"/campaigns/{ci}/currency_code", *m.pointers(idx[:2])]
        out = [self.entry("must_find", "data.currency_mismatch", None, text, rows),
               self.entry("must_not_say", "concentration.spend_single_campaign", camp.id,
                          f"its share of cost is inflated by adding {self.currency} to {snap['account']['currency_code']}", rows)]
        raw = m.pacing(snap)
        if raw.ratio > 1 + plan.tolerance:
            out.append(self.entry("must_not_say", "pacing.overspend", None,
                                  f"summed as-is spend to date reads {m.money(raw.spend_to_date)} ({raw.ratio - 1:+.1%}); the {self.currency} "
                                  f"rows must be converted first", rows, OVERSPEND_SAYS))
        return out

    def describe(self, plan):
        return f"{self.role}: campaign and rows in {self.currency} inside a {plan.profile.currency} account"


@dataclass
class TimezoneShift(Scenario):
    """Every row dated one day early (the export converted dates to UTC)."""

    name: str = "timezone_shift"

    def post(self, plan, snap, rng):
        for r in snap["daily"]:
            r["date"] = (m.d(r["date"]) - timedelta(days=1)).isoformat()

    def expect(self, plan, snap):
        before = [i for i, r in enumerate(snap["daily"]) if r["date"] < snap["period"]["start"]]
        per_day: dict[str, float] = {}
        for r in snap["daily"]:
            per_day[r["date"]] = per_day.get(r["date"], 0) + r["clicks"]
        by_wd = {wd: statistics.mean(v for k, v in per_day.items() if m.d(k).weekday() == wd and k >= snap["period"]["start"]) for wd in range(7)}
        low = sorted(by_wd, key=by_wd.get)[:2]
        names = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays"]
        text = (f"{len(before)} rows are dated {snap['daily'][before[0]]['date']}, before the period start {snap['period']['start']}, "
                f"no row is dated the last complete date {snap['period']['last_complete_date']}, and the weekly trough in clicks falls on "
                f"{names[min(low)]} and {names[max(low)]} ({by_wd[low[0]]:,.0f} and {by_wd[low[1]]:,.0f} a day against "
                f"{by_wd[0]:,.0f} on Mondays) instead of the weekend")
        return [self.entry("must_find", "data.timezone_shift", None, text, m.pointers(before, 3)),
                self.entry("must_not_say", "data.missing_days", None,
                           "the last complete date has no rows because every row moved one day earlier, not because a day is missing",
                           m.pointers(before, 1), ["missing (day|date)", "no data (for|on) " + snap["period"]["last_complete_date"]])]

    def describe(self, plan):
        return "every row dated one day early (UTC export)"


@dataclass
class PartialLastDay(Scenario):
    name: str = "partial_last_day"

    def configure(self, plan, rng):
        plan.partial_last_day = True

    def expect(self, plan, snap):
        last = m.select(snap, None, plan.as_of, plan.as_of, complete_only=False)
        week = m.select(snap, None, plan.as_of - timedelta(days=7), plan.last_complete)
        s, w = m.stats(snap, last), m.stats(snap, week)
        text = (f"rows dated {plan.as_of} (the as_of date, after last_complete_date {plan.last_complete}) total {m.money(s.cost)} cost and "
                f"{m.num(s.clicks)} clicks against {m.money(w.cost / 7)} and {w.clicks / 7:,.0f} a day over the 7 days before")
        rows = m.pointers(last, 3) + ["/period/last_complete_date"]
        return [self.entry("must_find", "data.partial_last_day", None, text, rows),
                self.entry("must_not_say", "tracking.conversions_stopped", None,
                           f"{plan.as_of} has {m.num(s.conversions)} conversions because the day is incomplete", rows,
                           ["conversions (have )?(stopped|dropped to zero)"]),
                self.entry("must_not_say", "delivery.serving_stopped", None, f"spend on {plan.as_of} is low because the day is incomplete", rows,
                           ["stopped (serving|delivering)", "(delivery|spend) (collapsed|dropped sharply)"])]

    def describe(self, plan):
        return f"the as_of day {plan.as_of} exported partially (30% of a day)"


@dataclass
class InvalidValues(Scenario):
    roles: list[str]
    name: str = "invalid_values"

    def post(self, plan, snap, rng):
        a, b = plan.by_role(self.roles[0]), plan.by_role(self.roles[-1])
        ia = m.select(snap, a.id)
        ib = m.select(snap, b.id)
        neg, over, share = snap["daily"][ia[len(ia) // 3]], snap["daily"][ib[len(ib) // 2]], snap["daily"][ia[2 * len(ia) // 3]]
        neg["cost"] = -round(neg["cost"] * 0.41, 2)
        over["impressions"] = round(over["clicks"] * 0.6)
        share_key = "search_impression_share" if "search_impression_share" in share else None
        if share_key:
            share["search_impression_share"] = 1.37
        else:
            share["conversions"] = None
        self.rows = [snap["daily"].index(neg), snap["daily"].index(over), snap["daily"].index(share)]

    def expect(self, plan, snap):
        neg, over, third = (snap["daily"][i] for i in self.rows)
        what = ("search_impression_share 1.37" if third.get("search_impression_share") == 1.37 else "conversions null")
        text = (f"/daily/{self.rows[0]} has cost {m.money(neg['cost'])}, /daily/{self.rows[1]} has {over['clicks']} clicks on "
                f"{over['impressions']} impressions, /daily/{self.rows[2]} has {what}")
        return [self.entry("must_find", "data.invalid_values", None, text, [f"/daily/{i}" for i in self.rows])]

    def describe(self, plan):
        return "a negative cost, clicks above impressions, an impossible share"


@dataclass
class AttributionChange(Scenario):
    day: int
    lift: float = 1.25
    name: str = "attribution_change"

    def configure(self, plan, rng):
        action = plan.conversion_actions[0]
        action.attribution_model = "GOOGLE_SEARCH_ATTRIBUTION_LAST_CLICK"
        self.old_lookback = action.lookback_days
        action.lookback_days = 90
        when = plan.day(self.day).isoformat()
        plan.change_events += [
            {"change_date_time": f"{when} 11:20:00", "campaign_id": None, "resource_type": "CONVERSION_ACTION",
             "conversion_action_id": action.id, "changed_field": "attribution_model",
             "old": "GOOGLE_SEARCH_ATTRIBUTION_LAST_CLICK", "new": "GOOGLE_ADS_INTEGRATED_DATA_DRIVEN"},
            {"change_date_time": f"{when} 11:20:00", "campaign_id": None, "resource_type": "CONVERSION_ACTION",
             "conversion_action_id": action.id, "changed_field": "click_through_lookback_window_days",
             "old": self.old_lookback, "new": 90}]

    def post(self, plan, snap, rng):
        snap["conversion_actions"][0]["attribution_model"] = "GOOGLE_ADS_INTEGRATED_DATA_DRIVEN"

    def adjust(self, plan, camp, day, p):
        if day >= plan.day(self.day):
            p.cvr *= self.lift

    def expect(self, plan, snap):
        day = plan.day(self.day)
        evs = [n for n, e in enumerate(snap["change_events"]) if e.get("resource_type") == "CONVERSION_ACTION"]
        b = m.stats(snap, m.select(snap, None, end=day - timedelta(days=1)))
        a = m.stats(snap, m.select(snap, None, start=day, end=plan.last_complete - timedelta(days=3)))
        text = (f"change events on {day}: conversion action {snap['conversion_actions'][0]['name']!r} moved from last click to data-driven "
                f"attribution and its lookback from {self.old_lookback} to 90 days; conversion rate {m.pct(b.cvr, 2)} before against "
                f"{m.pct(a.cvr, 2)} after, so the two halves of the month are not comparable")
        rows = [f"/change_events/{n}" for n in evs]
        return [self.entry("must_find", "data.attribution_change", None, text, rows),
                self.entry("must_not_say", "tracking.double_counting", None,
                           f"the conversion rate rose {a.cvr / b.cvr - 1:+.0%} with the attribution change, not to about twice", rows,
                           ["double[- ]count", "conversions (doubled|counted twice)"])]

    def describe(self, plan):
        return f"attribution model and lookback changed on day {self.day} (conversions x{self.lift})"


@dataclass
class TotalsMismatch(Scenario):
    role: str
    extra: float = 0.18   # share of the campaign's cost added to the supplied totals
    name: str = "totals_mismatch"

    def configure(self, plan, rng):
        plan.totals = True

    def post(self, plan, snap, rng):
        totals = m.totals(snap)
        camp = plan.by_role(self.role)
        row = next(t for t in totals["campaigns"] if t["campaign_id"] == camp.id)
        add = round(row["cost"] * self.extra, 2)
        row["cost"] = round(row["cost"] + add, 2)
        totals["account"]["cost"] = round(totals["account"]["cost"] + add, 2)
        snap["totals"] = totals

    def expect(self, plan, snap):
        camp = plan.by_role(self.role)
        tn = next(n for n, t in enumerate(snap["totals"]["campaigns"]) if t["campaign_id"] == camp.id)
        rows_cost = m.total(snap, m.select(snap, camp.id, complete_only=False), "cost")
        acct_rows = m.total(snap, m.select(snap, complete_only=False), "cost")
        t = snap["totals"]
        text = (f"supplied totals give account cost {m.money(t['account']['cost'])} but the daily rows add up to {m.money(acct_rows)} "
                f"({m.money(t['account']['cost'] - acct_rows)} apart); campaign {_label(snap, camp.id)} totals "
                f"{m.money(t['campaigns'][tn]['cost'])} against {m.money(rows_cost)} in its rows")
        return [self.entry("must_find", "data.totals_mismatch", None, text, ["/totals/account/cost", f"/totals/campaigns/{tn}/cost"])]

    def describe(self, plan):
        return f"supplied totals overstate {self.role}'s cost by {self.extra:.0%}"


@dataclass
class Healthy(Scenario):
    """The summary of a clean account: the must_find of every clean case."""

    name: str = "healthy"

    def expect(self, plan, snap):
        pace = m.pacing(snap)
        per = m.campaign_stats(snap)
        acct = m.stats(snap, m.select(snap))
        ratios = []
        for s in per.values():
            if s.conversions >= 5:
                ratios.append(s.cpa / plan.target_cpa if plan.target_cpa else plan.target_roas / s.roas)
        top = max(s.cost for s in per.values()) / acct.cost
        text = (f"spend to date {m.money(pace.spend_to_date)} is {pace.ratio - 1:+.1%} on the budget schedule with the month-end "
                f"projection {m.money(pace.projection)} against {m.money(pace.monthly_budget)}; account {_acct_target(plan, acct)}; "
                f"campaigns between {min(ratios):.2f}x and {max(ratios):.2f}x of target efficiency; largest campaign {top:.1%} of cost")
        return [self.entry("must_find", "summary.no_material_issues", None, text, ["/targets", *m.pointers(m.select(snap)[-2:])])]


def _acct_target(plan, s: m.Stats) -> str:
    if plan.target_cpa:
        return f"CPA {m.money(s.cpa)} against the {m.money(plan.target_cpa)} target"
    return f"ROAS {s.roas:.2f} against the {plan.target_roas:.2f} target"
