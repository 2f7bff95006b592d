"""``delivery.serving_stopped`` and ``status.disapproved_ads``.

A campaign that stops getting impressions is a finding only when nothing in
the snapshot explains it: a paused or removed status, an end date, the end
of its flight, a status or budget change event around the date. Google
omits a campaign's row on a day without metrics, so rows that stop count as
impressions that stop. Only the days a campaign serves on by its weekly
rhythm count: a weekend-only campaign is not silent from Monday to Friday.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from ..domain.delivery import days_due, off_weekdays
from . import text
from .findings import Context
from .schedule import serving_window
from .series import number, parse_moment

STOPPED = "delivery.serving_stopped"
DISAPPROVED = "status.disapproved_ads"
STATUS_FIELD_RE = re.compile(r"status|budget|amount|paused|end_date|serving", re.I)


def detect(ctx: Context) -> None:
    serving_stopped(ctx)
    disapproved_ads(ctx)


def serving_stopped(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(STOPPED)
    end = s.last_complete or s.last_date
    if end is None or not s.rows:
        ctx.unassessable(STOPPED, None, "delivery (no daily rows)")
        return
    min_days = int(t.number("min_days"))
    rhythm_weeks = int(t.number("rhythm_weeks"))
    found = False
    for cid, camp in sorted(s.campaigns.items()):
        served = s.served_days(cid, end)
        if not served:
            continue
        last = served[-1]
        off = off_weekdays(served, rhythm_weeks)
        silent = days_due(last, end, off)  # the days it serves on by its weekly rhythm, after its last
        if len(silent) < min_days:
            if off and end > last:
                ctx.rejected(STOPPED, cid, f"no impressions after {text.day(last)}, on {len(silent)} of the days it "
                             f"serves on by its weekly rhythm (never on {_weekdays(off)})")
            continue
        stop = last + timedelta(days=1)
        reason = _explanation(ctx, cid, silent[0])
        if reason:
            ctx.rejected(STOPPED, cid, f"no impressions from {text.day(stop)}, explained: {reason}")
            continue
        found = True
        row = next(r for r in reversed(s.rows_of([cid])) if r.day == last)
        # An absent status is unknown: the claim then says neither enabled nor paused.
        claim = (f"{s.label(cid)} is enabled but has had no impressions since {text.day(stop)}, with no pause, "
                 "end date, flight end or budget change to explain it: check eligibility, billing and policy status."
                 if "status" in camp.raw else
                 f"{s.label(cid)} has had no impressions since {text.day(stop)}, with no end date, flight end or "
                 "budget change to explain it; the snapshot does not give its status: check whether it was turned "
                 "off, then eligibility, billing and policy status.")
        # A campaign with a weekly rhythm is silent on the days it serves on, not on the days it never does
        rhythm = f" (it never serves on {_weekdays(off)})" if off else ""
        ctx.found(
            STOPPED,
            cid,
            claim,
            f"Last served on {text.day(last)} ({text.count(row.get('impressions') or 0)} impressions, cost "
            f"{text.money(row.get('cost') or 0.0, s.currency)}); no impressions from {text.day(stop)} to "
            f"{text.day(end)}{rhythm}; status {camp.raw.get('status', 'not given')}.",
            rows=[row.pointer] + ([camp.pointer] if camp.pointer else []),
        )
    if not found:
        ctx.rejected(STOPPED, None, "every enabled campaign serves up to the last complete day, or its stop is explained")


WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


def _weekdays(off) -> str:
    names = [WEEKDAYS[w] for w in sorted(off)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _explanation(ctx: Context, cid: str, stop: date) -> str | None:
    s = ctx.series
    camp = s.campaigns[cid]
    if not camp.enabled:
        return f"status {camp.raw.get('status')}"
    primary = camp.text("primary_status")
    if primary in ("PAUSED", "REMOVED", "ENDED", "PENDING"):
        return f"primary status {primary}"
    first, last = serving_window(s, cid)
    if last is not None and last < stop + timedelta(days=1):
        return f"its end date or flight ends on {text.day(last)}"
    if first is not None and first > stop:
        return f"its start date or flight starts on {text.day(first)}"
    window = int(ctx.t(STOPPED).number("event_window_days"))
    for event in s.section("change_events"):
        if str(event.get("campaign_id")) != cid:
            continue
        moment = parse_moment(event.get("change_date_time"))
        field = str(event.get("changed_field") or "")
        if moment is None or not STATUS_FIELD_RE.search(field):
            continue
        if abs((moment.date() - stop).days) <= window:
            new = number(event.get("new"))
            if ("amount" in field or "budget" in field) and new is not None and new > 0:
                continue  # a budget change to a positive amount does not stop serving
            return f"{field} changed on {text.day(moment.date())}"
    return None


def disapproved_ads(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(DISAPPROVED)
    ads = s.indexed("ads")
    if not ads:
        ctx.unassessable(DISAPPROVED, None, "ad approval (the snapshot lists no ads)")
        return
    account_cost = s.account.cost
    by_campaign: dict[str, list[tuple[int, dict]]] = {}
    for index, ad in ads:
        if str(ad.get("approval_status", "")).upper() == "DISAPPROVED" and str(ad.get("status", "ENABLED")).upper() != "REMOVED":
            by_campaign.setdefault(str(ad.get("campaign_id")), []).append((index, ad))
    found = False
    for cid, bad in sorted(by_campaign.items()):
        ad_cost = sum(number(ad.get("cost")) or 0.0 for _, ad in bad)
        has_cost = any(number(ad.get("cost")) is not None for _, ad in bad)
        camp_cost = s.campaign_totals[cid].cost if cid in s.campaign_totals else 0.0
        material = (ad_cost if has_cost else camp_cost) >= account_cost * t.number("min_share_of_account_cost")
        if account_cost <= 0 or not material:
            ctx.rejected(DISAPPROVED, cid, "disapproved ads without material spend")
            continue
        found = True
        listed = "; ".join(
            f"ad {ad.get('ad_id')} DISAPPROVED"
            + (f" after costing {text.money(number(ad.get('cost')) or 0.0, s.currency)}" if number(ad.get("cost")) is not None else "")
            for _, ad in bad[:4]
        )
        ctx.found(
            DISAPPROVED,
            cid,
            f"Ads in {s.label(cid)} are disapproved after carrying material spend: the campaign is serving on "
            "fewer ads or not at all until they are fixed and re-reviewed.",
            f"{listed}; the campaign cost {text.money(camp_cost, s.currency)} over the period.",
            rows=[f"/ads/{i}" for i, _ in bad],
        )
    if not found:
        ctx.rejected(DISAPPROVED, None, "no disapproved ad carried material spend")
