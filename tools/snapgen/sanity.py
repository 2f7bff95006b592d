"""Material conditions read from a generated snapshot, to catch unplanned problems.

Planting one problem can create another (a stopped campaign drags the pace, a
concentrated budget concentrates conversions). After each case is generated
its conditions are compared with the drafted lists: a condition no list
mentions is reported, and the case spec must either plant it knowingly or
waive it with a reason. Thresholds are this tool's own rough cut, not the
reference auditor's.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from . import measure as m

SMART = {"TARGET_CPA", "TARGET_ROAS", "MAXIMIZE_CONVERSIONS", "MAXIMIZE_CONVERSION_VALUE", "COST_CAP"}


def conditions(snap: dict[str, Any]) -> dict[str, str]:
    """``{finding id: why}`` for every condition the rows show."""
    out: dict[str, str] = {}
    targets = snap["targets"]
    tol = targets.get("pacing_tolerance") or 0.1
    cpa_target = targets.get("target_cpa")
    roas_target = targets.get("target_roas")
    pace = m.pacing(snap)
    if pace.ratio > 1 + tol and pace.projection_ratio > 1 + tol:
        out["pacing.overspend"] = f"pace {pace.ratio:.2f}, projection {pace.projection_ratio:.2f}"
    if pace.ratio < 1 - tol and pace.projection_ratio < 1 - tol:
        out["pacing.underspend"] = f"pace {pace.ratio:.2f}, projection {pace.projection_ratio:.2f}"
    straight = pace.spend_to_date / pace.straight_line
    if abs(straight - 1) > tol and "pacing.overspend" not in out and "pacing.underspend" not in out:
        out["pacing.underspend" if straight < 1 else "pacing.overspend"] = f"(tempting) straight-line pace {straight:.2f}"
    budgets = {b["budget_id"]: b for b in snap["budgets"]}
    camps = {c["id"]: c for c in snap["campaigns"]}
    for r in snap["daily"]:
        c = camps.get(r["campaign_id"])
        if c and c.get("budget_id") in budgets and isinstance(r["cost"], (int, float)):
            b = m.budget_on(budgets[c["budget_id"]], m.d(r["date"]))
            cap = m.cap_multiple(snap["platform"], m.d(r["date"]))
            if r["cost"] > cap * b:
                out[f"pacing.daily_cap_exceeded@{c['id']}"] = f"{r['date']} cost {r['cost']} > {cap}x {b}"
    per = m.campaign_stats(snap)
    acct = m.stats(snap, m.select(snap))
    brand = {c["id"] for c in snap["campaigns"] if "brand" in c["name"].lower()}
    days = (m.last_complete(snap) - m.d(snap["period"]["start"])).days + 1
    for cid, s in per.items():
        if acct.cost and s.cost / acct.cost > 0.5:
            out[f"concentration.spend_single_campaign@{cid}"] = f"{s.cost / acct.cost:.0%} of cost"
        if acct.conversions and s.conversions / acct.conversions > 0.5 and cid not in brand:
            out[f"concentration.conversions_single_campaign@{cid}"] = f"{s.conversions / acct.conversions:.0%} of conversions"
        share = s.cost / acct.cost if acct.cost else 0
        if s.conversions == 0 and share > 0.03:
            out[f"waste.zero_conv_campaign@{cid}"] = f"0 conversions on {s.cost:.0f} ({share:.0%})"
        elif s.conversions >= 8 and share > 0.04:
            gap = s.cpa / cpa_target if cpa_target else roas_target / s.roas if s.roas else 9
            if gap >= 1.45:
                out[f"efficiency.off_target@{cid}"] = f"{gap:.2f}x off target on {s.conversions:.0f} conversions"
        monthly = s.conversions / days * snap["period"]["days_in_month"] if days else 0
        if camps[cid].get("bidding_strategy_type") in SMART and monthly < 30 and s.cost > 0:
            out[f"bidding.learning_limited@{cid}"] = f"{monthly:.0f} conversions a month on smart bidding"
    lcd = m.last_complete(snap)
    start = m.d(snap["period"]["start"])
    w1 = (start, start + timedelta(days=6))
    w2 = (lcd - timedelta(days=9), lcd - timedelta(days=3))
    for cid in per:
        a = m.stats(snap, m.select(snap, cid, *w1))
        b = m.stats(snap, m.select(snap, cid, *w2))
        if a.conversions >= 10 and b.conversions >= 10 and b.cpa / a.cpa > 1.35:
            out[f"efficiency.cpa_drift@{cid}"] = f"CPA {a.cpa:.2f} -> {b.cpa:.2f}"
        idx7 = m.select(snap, cid, start=lcd - timedelta(days=6))
        lost = [snap["daily"][i].get("search_budget_lost_impression_share") for i in idx7]
        lost = [x for x in lost if isinstance(x, (int, float))]
        s = per[cid]
        good = s.cpa is not None and (s.cpa <= cpa_target if cpa_target else (s.roas or 0) >= roas_target)
        if lost and sum(lost) / len(lost) > 0.1 and good:
            out[f"budget.lost_is_budget@{cid}"] = f"{sum(lost) / len(lost):.0%} lost to budget at target"
        last_day = max((snap["daily"][i]["date"] for i in m.select(snap, cid, complete_only=False)), default=None)
        if last_day and not camps[cid].get("end_date") and m.d(last_day) < lcd - timedelta(days=1):
            out[f"delivery.serving_stopped@{cid}"] = f"last row {last_day}"
    a = m.stats(snap, m.select(snap, None, *w1))
    b = m.stats(snap, m.select(snap, None, *w2))
    if a.cvr and b.cvr / a.cvr <= 0.55:
        out["tracking.conversion_rate_step_drop"] = f"cvr {a.cvr:.4f} -> {b.cvr:.4f}"
    if a.cvr and b.cvr / a.cvr >= 1.7:
        out["tracking.double_counting"] = f"cvr {a.cvr:.4f} -> {b.cvr:.4f}"
    zero_run = 0
    day = lcd - timedelta(days=3)
    while day >= start and m.total(snap, m.select(snap, None, day, day), "conversions") == 0:
        zero_run += 1
        day -= timedelta(days=1)
    if zero_run >= 3:
        out["tracking.conversions_stopped"] = f"{zero_run} zero days before the lag window"
    rate = acct.conversions / acct.clicks if acct.clicks else 0
    waste = sum(t["cost"] for t in snap.get("search_terms") or [] if t["conversions"] == 0 and t["clicks"] * rate >= 1.5)
    if acct.cost and waste / acct.cost > 0.03:
        out["waste.zero_conv_search_terms"] = f"{waste:.0f} ({waste / acct.cost:.1%} of cost)"
    for ad in snap.get("ads") or []:
        if ad.get("approval_status") == "DISAPPROVED" and ad.get("cost", 0) > 0:
            out[f"status.disapproved_ads@{ad['campaign_id']}"] = f"ad {ad['ad_id']} cost {ad['cost']}"
    for e in snap.get("change_events") or []:
        if e.get("changed_field") in ("bidding_strategy_type", "target_cpa", "target_roas") and m.d(e["change_date_time"][:10]) > lcd - timedelta(days=14):
            out[f"bidding.learning_period@{e['campaign_id']}"] = e["change_date_time"]
        if e.get("resource_type") == "CONVERSION_ACTION":
            out["data.attribution_change"] = f"{e['changed_field']} on {e['change_date_time'][:10]}"
    out.update(data_conditions(snap))
    return out


def data_conditions(snap: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    keys = Counter((r["date"], r["campaign_id"]) for r in snap["daily"])
    if any(n > 1 for n in keys.values()):
        out["data.duplicate_rows"] = f"{sum(n > 1 for n in keys.values())} duplicated pairs"
    dates = sorted({r["date"] for r in snap["daily"]})
    start, lcd = snap["period"]["start"], snap["period"].get("last_complete_date") or snap["period"]["as_of"]
    day = m.d(dates[0])
    while day < m.d(dates[-1]):
        if day.isoformat() not in dates:
            out["data.missing_days"] = f"no rows on {day}"
        day += timedelta(days=1)
    if dates[0] < start:
        out["data.timezone_shift"] = f"rows dated {dates[0]}"
    if dates[-1] > lcd:
        out["data.partial_last_day"] = f"rows dated {dates[-1]}"
    costs = sorted(r["cost"] for r in snap["daily"] if isinstance(r["cost"], (int, float)))
    median = costs[len(costs) // 2]
    if costs and costs[-1] > 10_000 * max(median, 1):
        out["data.micros_not_converted"] = f"cost {costs[-1]}"
    for r in snap["daily"]:
        bad = [k for k, v in r.items() if v is None or (isinstance(v, (int, float)) and v < 0)]
        if r.get("clicks") is not None and r.get("impressions") is not None and r["clicks"] > r["impressions"]:
            bad.append("clicks>impressions")
        for k in ("search_impression_share", "search_budget_lost_impression_share", "search_rank_lost_impression_share"):
            if isinstance(r.get(k), (int, float)) and not 0 <= r[k] <= 1:
                bad.append(k)
        if bad:
            out["data.invalid_values"] = f"{r['date']} {r['campaign_id']} {bad}"
    cur = snap["account"]["currency_code"]
    if any(c.get("currency_code", cur) != cur for c in snap["campaigns"]) or any(r.get("currency_code", cur) != cur for r in snap["daily"]):
        out["data.currency_mismatch"] = "campaign or row currency differs"
    if "totals" in snap:
        rows = round(sum(r["cost"] for r in snap["daily"] if isinstance(r["cost"], (int, float))), 2)
        if abs(snap["totals"]["account"]["cost"] - rows) > 1:
            out["data.totals_mismatch"] = f"totals {snap['totals']['account']['cost']} vs rows {rows}"
    return out


def uncovered(found: dict[str, str], ids: set[str]) -> dict[str, str]:
    """Conditions whose id (or kind, for unscoped entries) no list mentions."""
    unscoped = {i for i in ids if "@" not in i}
    any_scope = {i.split("@")[0] for i in ids}

    def covered(cid: str) -> bool:
        kind = cid.split("@")[0]
        return cid in ids or kind in unscoped or ("@" not in cid and kind in any_scope)

    return {cid: why for cid, why in found.items() if not covered(cid)}
