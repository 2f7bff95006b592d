"""``waste.*``: spend that bought no conversions, once chance is ruled out.

A term or campaign with no conversion is waste only when its clicks, at a
reference conversion rate, should have brought several (the expected count
makes zero implausible), and its cost is a material share of spend. A
handful of clicks without a conversion is noise.
"""

from __future__ import annotations

from ..domain.chance import poisson_zero
from ..domain.terms import is_conversion_objective, is_smart_bidding
from . import text
from . import derived_names as names
from .findings import Context
from .series import Series, Totals, number
from .tracking import lag_model

TERMS = "waste.zero_conv_search_terms"
CAMPAIGN = "waste.zero_conv_campaign"


def detect(ctx: Context) -> None:
    # Campaigns first: a campaign with no conversion at all is one finding, not also one per search term
    zero_conversion_campaigns(ctx)
    zero_conversion_terms(ctx)


def reference_rate(s: Series, excluding: str | None = None) -> float | None:
    """Conversions per click of the account's non-brand campaigns (brand converts far better).
    Kept on the series per campaign left out: asked for each campaign and each search term."""
    key = ("waste reference rate", excluding)
    if key not in s.memo:
        clicks = conversions = 0.0
        for cid, tot in _non_brand_totals(s):
            if cid != excluding:
                clicks += tot.clicks
                conversions += tot.conversions
        s.memo[key] = conversions / clicks if clicks > 0 and conversions > 0 else None
    return s.memo[key]


def _non_brand_totals(s: Series) -> list[tuple[str, Totals]]:
    """The non-brand campaigns' totals, in ``campaign_totals`` order (each name read once)."""
    found = s.memo.get("waste non-brand totals")
    if found is None:
        found = s.memo["waste non-brand totals"] = [
            (cid, tot) for cid, tot in s.campaign_totals.items()
            if (camp := s.campaigns.get(cid)) is None or not camp.is_brand]
    return found


def zero_conversion_terms(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(TERMS)
    terms = s.indexed("search_terms")
    if not terms:
        ctx.unassessable(TERMS, None, "search terms (the snapshot has none)")
        return
    account_cost = s.account.cost
    # Per campaign: zero-conversion terms whose clicks should each have brought about one conversion
    counted: dict[str, list[tuple[int, dict, float]]] = {}
    for index, term in terms:
        cid = str(term.get("campaign_id"))
        rate = tracked_rate(ctx, cid) or reference_rate(s, excluding=cid)
        if number(term.get("conversions")) != 0 or not rate:
            continue
        expected = (number(term.get("clicks")) or 0.0) * rate
        if expected >= t.number("min_term_expected_conversions"):
            counted.setdefault(cid, []).append((index, term, expected))
    whole_campaign = {a.scope for a in ctx.assessments if a.kind == CAMPAIGN and a.supported}
    found = False
    for cid, wasted in sorted(counted.items()):
        # Search terms are their own report: only a unit breakage in this campaign corrupts them
        if ctx.withheld(TERMS, cid):
            continue
        if cid in whole_campaign:
            ctx.rejected(TERMS, cid, "the whole campaign converts nothing: reported as waste.zero_conv_campaign")
            continue
        cost = sum(number(term.get("cost")) or 0.0 for _, term, _ in wasted)
        expected = sum(e for _, _, e in wasted)
        if expected < t.number("min_expected_conversions"):
            ctx.rejected(TERMS, cid, f"zero-conversion terms, but no conversion was likely on their clicks (chance {text.percent(poisson_zero(expected))})")
            continue
        if account_cost <= 0 or cost < account_cost * t.number("min_share_of_account_cost"):
            ctx.rejected(TERMS, cid, "zero-conversion terms with enough clicks cost too little to matter")
            continue
        found = True
        wasted.sort(key=lambda item: -(number(item[1].get("cost")) or 0.0))
        listed = "; ".join(
            f"\"{term.get('search_term')}\" {text.count(number(term.get('clicks')) or 0)} clicks, "
            f"{text.money(number(term.get('cost')) or 0.0, s.currency)}"
            for _, term, _ in wasted[:5]
        )
        ctx.found(
            TERMS,
            cid,
            f"Search terms in {s.label(cid)} with enough clicks to expect conversions at the campaign's rate have none: "
            "review them and exclude the irrelevant ones as negatives.",
            f"{_zero_cost_line(ctx, cid)}; the largest with 0 conversions: {listed}"
            + (" and more" if len(wasted) > 5 else "") + ".",
            rows=[f"/search_terms/{i}" for i, _, _ in wasted][:10],
        )
    if not found:
        ctx.rejected(TERMS, None, "no zero-conversion search terms with enough clicks and material cost")


def _spend_line(ctx: Context, cid: str, dates: list) -> str:
    cost, clicks, share = (ctx.period(cid, m) for m in ("cost", "clicks", "share of account cost"))
    line = f"from {text.day(dates[0])} to {text.day(dates[-1])}"
    if cost is not None and clicks is not None:
        line = f"{text.money(cost, ctx.series.currency)} spent on {text.count(clicks)} clicks " + line
    if share is not None:
        line += f", {text.percent(share)} of account cost"
    return line[0].upper() + line[1:]


def tracked_rate(ctx: Context, cid: str) -> float | None:
    """The campaign's conversion rate on the days its conversions were tracked (before any stop)."""
    s = ctx.series
    stop = ctx.stop_of(cid)
    tot = s.campaign_totals.get(cid) if stop is None else s.window([d for d in s.dates if d < stop], cid)
    return tot.cvr if tot is not None and tot.cvr else None


def _zero_cost_line(ctx: Context, cid: str) -> str:
    """The campaign's zero-conversion term cost and its share, as the derived index has them."""
    s = ctx.series
    cost = ctx.derived.get(names.search_terms(cid, "zero-conversion cost"))
    share = ctx.derived.get(names.search_terms(cid, "zero-conversion share of cost, period"))
    rate = ctx.period(cid, "CVR")
    parts = []
    if cost is not None:
        parts.append(f"zero-conversion search terms cost {text.money(cost, s.currency)}")
        if share is not None:
            parts[-1] += f", {text.percent(share)} of the campaign's cost over the period"
    if rate:
        parts.append(f"the campaign converts {text.percent(rate, 2)} of clicks over the period")
    return "; ".join(parts) or "search terms with no conversion"


def _conversion_goal(s: Series, cid: str) -> bool:
    camp = s.campaigns.get(cid)
    return is_conversion_objective(camp.raw if camp is not None else None)


def _zero_conversions_words(s: Series, cid: str) -> str:
    """"<campaign> has recorded no conversions", saying of its bidding what the snapshot says and nothing
    more: that it bids for conversions only on smart bidding, its strategy when another is given."""
    camp = s.campaigns.get(cid)
    strategy = camp.text("bidding_strategy_type") if camp is not None else ""
    if camp is not None and strategy and is_smart_bidding(camp.raw):
        return f"{s.label(cid)} bids for conversions ({strategy}) and has recorded none"
    if strategy:
        return f"{s.label(cid)}, bidding {strategy}, has recorded no conversions"
    return f"{s.label(cid)} has recorded no conversions"


def zero_conversion_campaigns(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(CAMPAIGN)
    account = s.account
    if account.cost <= 0:
        ctx.unassessable(CAMPAIGN, None, "no spend to assess")
        return
    lag = lag_model(ctx)
    found = False
    for cid, tot in sorted(s.campaign_totals.items()):
        if tot.conversions > 0:
            ctx.rejected(CAMPAIGN, cid, f"{text.count(tot.conversions)} conversions over the period")
            continue
        if tot.cost <= 0 or ctx.withheld(CAMPAIGN, cid):
            continue
        if not _conversion_goal(s, cid):
            ctx.rejected(CAMPAIGN, cid, "its bid strategy or objective aims at something other than conversions")
            continue
        share = s.share_of_account_spend(cid)
        if share < t.number("min_share_of_account_cost"):
            ctx.rejected(CAMPAIGN, cid, f"no conversions but only {text.percent(share)} of account cost")
            continue
        rate = reference_rate(s, excluding=cid)
        dates = sorted({r.day for r in s.rows_of([cid])})
        expected = sum(s.cell(d, cid).clicks * (rate or 0.0) * lag.credited(d) for d in dates)
        if expected < t.number("min_expected_conversions"):
            ctx.rejected(
                CAMPAIGN,
                cid,
                f"no conversions, but its clicks make zero plausible (chance {text.percent(poisson_zero(expected))})",
            )
            continue
        found = True
        ctx.found(
            CAMPAIGN,
            cid,
            f"{_zero_conversions_words(s, cid)} over the period while taking a material share of spend: pause it or "
            "fix its conversion setup.",
            _spend_line(ctx, cid, dates) + ", with 0 conversions.",
            high=share >= t.number("high_share_of_account_cost"),
            rows=[r.pointer for r in s.rows_of([cid])][:10],
        )
    if not found:
        ctx.rejected(CAMPAIGN, None, "every campaign with material spend records conversions")
