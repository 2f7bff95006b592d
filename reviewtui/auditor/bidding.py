"""``bidding.*``: learning periods after bid changes, and strategies starved of conversions.

A bid strategy or target change in the last two weeks (change events) means
volatile CPA is expected: efficiency findings for that campaign are then
explained, not reported (``efficiency.py`` reads these assessments).
"""

from __future__ import annotations

from datetime import date, timedelta

from . import text
from ..domain.budgets import span_days
from ..domain.terms import is_bid_change, is_smart_bidding, learning_limited_status, limited_status_words, per_30_days
from .findings import Context
from .series import parse_moment

LEARNING = "bidding.learning_period"
LIMITED = "bidding.learning_limited"


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
        moment = parse_moment(event.get("change_date_time"))
        if moment is None or not is_bid_change(event) or not (since <= moment.date() <= reference):
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
            rows=[f"/change_events/{index}"],
        )


def learning_limited(ctx: Context) -> None:
    """Smart bidding with too few conversions per 30 days to learn, or Meta's own learning-limited status."""
    s = ctx.series
    t = ctx.t(LIMITED)
    end = s.last_complete or s.last_date
    found = False
    for cid, camp in sorted(s.campaigns.items()):
        if not is_smart_bidding(camp.raw) or ctx.withheld(LIMITED, cid):
            continue
        platform_word = learning_limited_status(camp.raw)
        # The campaign's complete days in the period: from its first row (a campaign launched mid-month
        # is read over the days it ran) to the last complete day
        days_read = sorted({r.day for r in s.rows_of([cid]) if s.in_period(r.day) and end is not None and r.day <= end})
        conversions = sum(s.cell(d, cid).conversions for d in days_read)
        days = span_days(days_read[0], end) if days_read and end is not None else 0
        if conversions == 0 and not platform_word:
            ctx.rejected(LIMITED, cid, "no conversions at all: a waste or tracking question, not learning")
            continue
        per_30 = per_30_days(conversions, days)
        starved = days >= t.number("min_days") and per_30 < t.number("min_conversions_per_30_days")
        if not (starved or platform_word):
            ctx.rejected(LIMITED, cid, f"{text.count(conversions)} conversions in {days} days feed the strategy")
            continue
        found = True
        status = "; ".join(w for w in (platform_word, limited_status_words(camp.raw)) if w)
        strategy = camp.text("bidding_strategy_type")
        window = f" from {text.day(days_read[0])} to {text.day(end)}" if days_read and end is not None else ""
        ctx.found(
            LIMITED,
            cid,
            f"{s.label(cid)} uses {strategy or 'smart bidding'} with too few conversions for the strategy to learn: "
            "consolidate campaigns, bid on a higher-volume action, or switch to a simpler strategy.",
            f"{text.count(conversions)} conversions{window}" + (f"; {status}" if status else "") + ".",
            rows=[camp.pointer] if camp.pointer else [],
        )
    if not found:
        ctx.rejected(LIMITED, None, "every smart-bidding campaign has the conversions it needs")
