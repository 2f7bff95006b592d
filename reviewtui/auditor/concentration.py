"""``concentration.*``: one campaign carrying the account's spend or its conversions.

Brand is detected first, by name and by economics (clicks far cheaper and a
conversion rate far higher than the rest of the account): a brand campaign
carrying conversions is normal, so only a non-brand carrier counts.
"""

from __future__ import annotations

from ..domain.terms import brand_by_economics
from ..domain.terms import needed_share as domain_needed_share
from . import text
from .findings import Context
from .series import Series, Totals

SPEND = "concentration.spend_single_campaign"
CONVERSIONS = "concentration.conversions_single_campaign"


def detect(ctx: Context) -> None:
    s = ctx.series
    spending = {cid: tot for cid, tot in s.campaign_totals.items() if tot.cost > 0}
    if len(spending) < 2:
        for kind in (SPEND, CONVERSIONS):
            ctx.unassessable(kind, None, "concentration (fewer than two campaigns spend)")
        return
    spend(ctx)
    conversions(ctx)


def _share_line(ctx: Context, cid: str, metric: str, share_name: str, fmt) -> str:
    """``25,657.07 of 37,164.31 cost over the period, 69.0%`` from the derived index (parts it lacks are left out)."""
    mine, account, share = ctx.period(cid, metric), ctx.period(None, metric), ctx.period(cid, share_name)
    parts = []
    if mine is not None and account is not None:
        unit = f" {ctx.series.currency}" if fmt is text.money and ctx.series.currency else ""
        parts.append(f"{fmt(mine)}{unit} of {fmt(account)}{unit} account {metric} over the period")
    if share is not None:
        parts.append(text.percent(share))
    return ", ".join(parts) or f"most of the account's {metric}"


def needed_share(ctx: Context, kind: str, campaigns: int) -> float:
    """"Most" of the account, and well above an even split: with two campaigns one always has half."""
    t = ctx.t(kind)
    return domain_needed_share(campaigns, t.number("min_share"), t.number("min_multiple_of_even_share"),
                               t.number("max_needed_share"))


def is_brand(s: Series, cid: str, brand_cpc_share: float, brand_cvr_multiple: float) -> bool:
    """Brand by name, or by brand economics against the rest of the account."""
    camp = s.campaigns.get(cid)
    if camp is not None and camp.is_brand:
        return True
    tot = s.campaign_totals.get(cid)
    rest = Totals()
    for other, other_tot in s.campaign_totals.items():
        if other != cid:
            rest.merge(other_tot)
    if tot is None:
        return False
    return brand_by_economics(tot.cpc, tot.cvr, rest.cpc, rest.cvr, brand_cpc_share, brand_cvr_multiple)


def spend(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(SPEND)
    if ctx.withheld(SPEND, None):
        return
    account = s.account
    top, tot = max(s.campaign_totals.items(), key=lambda item: item[1].cost)
    share = tot.cost / account.cost if account.cost > 0 else 0.0
    if share < needed_share(ctx, SPEND, sum(1 for c in s.campaign_totals.values() if c.cost > 0)):
        ctx.rejected(SPEND, None, f"the largest campaign takes {text.percent(share)} of spend")
        return
    brand = is_brand(s, top, ctx.t(CONVERSIONS).number("brand_cpc_share"), ctx.t(CONVERSIONS).number("brand_cvr_multiple"))
    ctx.found(
        SPEND,
        top,
        f"{s.label(top)}{' (a brand campaign)' if brand else ''} takes most of the account's spend: the account's "
        "results ride on one campaign, and any problem there hits everything.",
        _share_line(ctx, top, "cost", "share of account cost", text.money) + ".",
        high=share >= t.number("high_share"),
        rows=[r.pointer for r in s.rows_of([top])][:6],
    )


def conversions(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(CONVERSIONS)
    if ctx.withheld(CONVERSIONS, None):
        return
    account = s.account
    if account.conversions < t.number("min_account_conversions"):
        ctx.unassessable(CONVERSIONS, None, "conversion concentration (too few conversions in the account)")
        return
    top, tot = max(s.campaign_totals.items(), key=lambda item: item[1].conversions)
    share = tot.conversions / account.conversions
    if share < needed_share(ctx, CONVERSIONS, sum(1 for c in s.campaign_totals.values() if c.conversions > 0)):
        ctx.rejected(CONVERSIONS, None, f"the largest converter carries {text.percent(share)} of conversions")
        return
    if is_brand(s, top, t.number("brand_cpc_share"), t.number("brand_cvr_multiple")):
        ctx.rejected(CONVERSIONS, top, f"the carrier is a brand campaign ({text.percent(share)} of conversions): normal")
        return
    ctx.found(
        CONVERSIONS,
        top,
        f"{s.label(top)}, a non-brand campaign, carries most of the account's conversions: losing it (a policy "
        "problem, a competitor, a feed issue) would take the account's results with it.",
        _share_line(ctx, top, "conversions", "share of account conversions", text.count)
        + (f", at a CPA of {text.money(cpa, s.currency)}" if (cpa := ctx.period(top, "CPA")) is not None else "") + ".",
        rows=[r.pointer for r in s.rows_of([top])][:6],
    )
