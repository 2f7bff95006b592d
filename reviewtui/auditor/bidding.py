"""``bidding.*``: learning periods after bid changes, and strategies starved of conversions.

A bid strategy or target change in the last two weeks (change events) means
volatile CPA is expected: efficiency findings for that campaign are then
explained, not reported (``efficiency.py`` reads these assessments).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from . import text
from ..caseset.snapshot import as_array
from .findings import Context
from .series import parse_moment

LEARNING = "bidding.learning_period"
LIMITED = "bidding.learning_limited"
BID_FIELD_RE = re.compile(r"bid|target_cpa|target_roas|strategy|tcpa|troas", re.I)
SMART = ("TARGET_CPA", "TARGET_ROAS", "MAXIMIZE_CONVERSIONS", "MAXIMIZE_CONVERSION_VALUE", "COST_CAP", "BID_CAP", "MINIMUM_ROAS")


def detect(ctx: Context) -> None:
    learning_period(ctx)
    learning_limited(ctx)


def learning_period(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(LEARNING)
    reference = s.as_of or s.last_date
    if reference is None:
        ctx.unassessable(LEARNING, None, "learning periods (no as_of date)")
        return
    since = reference - timedelta(days=int(t.number("recent_days")))
    latest: dict[str | None, tuple[int, dict, date]] = {}
    for index, event in s.indexed("change_events"):
        field = str(event.get("changed_field") or "")
        moment = parse_moment(event.get("change_date_time"))
        if moment is None or not BID_FIELD_RE.search(field) or not (since <= moment.date() <= reference):
            continue
        scope = str(event["campaign_id"]) if event.get("campaign_id") is not None else None
        if scope not in latest or moment.date() > latest[scope][2]:
            latest[scope] = (index, event, moment.date())
    if not latest:
        ctx.rejected(LEARNING, None, "no bid strategy or target change in the last two weeks")
        return
    for scope, (index, event, day) in sorted(latest.items(), key=lambda item: str(item[0])):
        where = s.label(scope) if scope else "the account"
        change = f"{event.get('changed_field')} changed from {event.get('old')} to {event.get('new')} on {text.day(day)}"
        ctx.found(
            LEARNING,
            scope,
            f"The bid strategy of {where} changed recently, so it is in its learning period: CPA and volume "
            "swings since the change are expected and should not be acted on yet.",
            f"Change event: {change}; the snapshot runs to {text.day(reference)}.",
            severity="low",
            rows=[f"/change_events/{index}"],
        )


def learning_limited(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(LIMITED)
    days = len(s.complete_dates())
    found = False
    for cid, camp in sorted(s.campaigns.items()):
        strategy = camp.text("bidding_strategy_type")
        limited_status = _limited_status(camp.raw)
        if strategy not in SMART and not limited_status:
            continue
        tot = s.campaign_totals.get(cid)
        conversions = tot.conversions if tot else 0.0
        if conversions == 0 and not limited_status:
            ctx.rejected(LIMITED, cid, "no conversions at all: a waste or tracking question, not learning")
            continue
        per_30 = conversions * 30 / days if days else 0.0
        starved = days >= t.number("min_days") and per_30 < t.number("min_conversions_per_30_days")
        if not (starved or limited_status):
            ctx.rejected(LIMITED, cid, f"{text.count(conversions)} conversions over the period feed the strategy")
            continue
        found = True
        status = f"; {limited_status}" if limited_status else ""
        ctx.found(
            LIMITED,
            cid,
            f"{s.label(cid)} uses {strategy or 'smart bidding'} with too few conversions for the strategy to learn: "
            "consolidate campaigns, bid on a higher-volume action, or switch to a simpler strategy.",
            f"{text.count(conversions)} conversions over the period{status}.",
            severity="medium",
            rows=[camp.pointer] if camp.pointer else [],
        )
    if not found:
        ctx.rejected(LIMITED, None, "every smart-bidding campaign has the conversions it needs")


def _limited_status(raw: dict) -> str:
    """The platform's own word that learning is limited, quoted, or ""."""
    reasons = as_array(raw.get("primary_status_reasons"))
    primary = str(raw.get("primary_status") or "").upper()
    if "LIMITED" in primary and any(word in str(r).upper() for r in reasons for word in ("BIDDING", "LEARN", "CONVERSION")):
        return f"primary status {raw.get('primary_status')} ({', '.join(map(str, reasons))})"
    for key in ("delivery_status", "learning_stage_info", "learning_status"):
        value = str(raw.get(key) or "")
        if "LEARNING_LIMITED" in value.upper() or "LEARNING LIMITED" in value.upper():
            return f"{key} {value}"
    return ""
