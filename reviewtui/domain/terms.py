"""The terms of the thresholds that are about campaigns and shares: smart bidding, a
conversion-objective campaign, a brand campaign, value bidding, the share a campaign needs to
carry the account, conversions per 30 days, and the platform's learning-limited status.

Each is a function of snapshot values (a campaign's fields, sums over its rows), so the reference
auditor, the scoring and the prompt's glossary (``reviewtui/glossary.yaml``) read them the same way.
"""

from __future__ import annotations

import re
from typing import Any

from ..caseset.snapshot import as_array

# Strategies in which the platform sets every bid towards a conversion goal (Google's Smart Bidding;
# Meta's cost cap, bid cap and minimum ROAS). Meta's lowest cost (highest volume) counts on a
# conversion-objective campaign, where it optimises for conversions too. Clicks, impressions,
# manual and impression-share strategies are not smart bidding.
SMART_BIDDING = ("TARGET_CPA", "TARGET_ROAS", "MAXIMIZE_CONVERSIONS", "MAXIMIZE_CONVERSION_VALUE",
                 "COST_CAP", "BID_CAP", "MINIMUM_ROAS", "LOWEST_COST_WITH_BID_CAP", "LOWEST_COST_WITH_MIN_ROAS")
SMART_ON_CONVERSION_OBJECTIVE = ("LOWEST_COST_WITHOUT_CAP",)
VALUE_BIDDING = ("TARGET_ROAS", "MAXIMIZE_CONVERSION_VALUE", "MINIMUM_ROAS", "LOWEST_COST_WITH_MIN_ROAS")
# Words of a bid strategy or objective that aims at something other than conversions
NOT_CONVERSION_GOALS = ("TARGET_IMPRESSION_SHARE", "MANUAL_CPM", "TARGET_CPM", "CPM", "REACH", "AWARENESS",
                        "VIDEO_VIEWS", "TRAFFIC", "ENGAGEMENT")
BRAND_RE = re.compile(r"(?<![a-z])brand", re.IGNORECASE)
NOT_BRAND_RE = re.compile(r"non[\s_-]?brand|generic|competitor", re.IGNORECASE)


def _upper(campaign: dict[str, Any], key: str) -> str:
    value = campaign.get(key)
    return str(value).upper() if value is not None else ""


def is_conversion_objective(campaign: dict[str, Any] | None) -> bool:
    """A campaign that buys clicks or bids to convert: its bidding_strategy_type and objective name
    no awareness, reach, traffic, engagement, video-view, CPM or impression-share goal. Names are not
    read; a campaign the snapshot does not describe counts."""
    if campaign is None:
        return True
    goal = " ".join(_upper(campaign, k) for k in ("bidding_strategy_type", "objective"))
    return not any(word in goal for word in NOT_CONVERSION_GOALS)


def is_smart_bidding(campaign: dict[str, Any]) -> bool:
    """The platform sets each bid towards conversions (see ``SMART_BIDDING``)."""
    strategy = _upper(campaign, "bidding_strategy_type")
    if strategy in SMART_BIDDING:
        return True
    return strategy in SMART_ON_CONVERSION_OBJECTIVE and is_conversion_objective(campaign)


def is_value_bidding(campaign: dict[str, Any]) -> bool:
    """A strategy that bids on conversion value (target ROAS, maximise conversion value)."""
    return _upper(campaign, "bidding_strategy_type") in VALUE_BIDDING


def is_brand_name(name: str) -> bool:
    """Brand by name: "brand" at the start of a word, and not "non-brand", "generic" or "competitor"."""
    return bool(BRAND_RE.search(name)) and not NOT_BRAND_RE.search(name)


def brand_by_economics(cpc: float | None, cvr: float | None, rest_cpc: float | None, rest_cvr: float | None,
                       cpc_share: float, cvr_multiple: float) -> bool:
    """Brand by economics: clicks at most ``cpc_share`` of the rest of the account's CPC and a
    conversion rate at least ``cvr_multiple`` times the rest's (over the period)."""
    if not (cpc and cvr and rest_cpc and rest_cvr):
        return False
    return cpc <= rest_cpc * cpc_share and cvr >= rest_cvr * cvr_multiple


def needed_share(campaigns: int, min_share: float, multiple_of_even_share: float, max_needed_share: float) -> float:
    """The share one campaign must pass to carry the account: more than ``min_share`` and at least
    ``multiple_of_even_share`` times the even share (1 / the number of campaigns with spend, or with
    conversions), the multiple never asking for more than ``max_needed_share``."""
    even = 1 / max(campaigns, 1)
    return max(min_share, min(multiple_of_even_share * even, max_needed_share))


def per_30_days(conversions: float, days: int) -> float:
    """Conversions over ``days`` calendar days, scaled to 30 days."""
    return conversions * 30 / days if days > 0 else 0.0


def learning_limited_status(campaign: dict[str, Any]) -> str:
    """The platform's own word that the strategy cannot learn, quoted, or "": Meta's
    LEARNING_LIMITED delivery or learning status (Meta's own bar, about 50 optimisation events a
    week, is far above the thresholds', so its word stands alone)."""
    for key in ("delivery_status", "learning_stage_info", "learning_status"):
        value = str(campaign.get(key) or "")
        if "LEARNING_LIMITED" in value.upper() or "LEARNING LIMITED" in value.upper():
            return f"{key} {value}"
    return ""


def limited_status_words(campaign: dict[str, Any]) -> str:
    """Google's primary status LIMITED with a bidding or conversion reason, quoted, or "". Google
    gives it for a strategy limited by budget or bid limits too, so it is quoted as evidence beside
    too few conversions, never a finding by itself."""
    reasons = as_array(campaign.get("primary_status_reasons"))
    primary = _upper(campaign, "primary_status")
    if "LIMITED" in primary and any(word in str(r).upper() for r in reasons for word in ("BIDDING", "LEARN", "CONVERSION")):
        return f"primary status {campaign.get('primary_status')} ({', '.join(map(str, reasons))})"
    return ""


# Change events on conversion actions: a demotion takes an action out of the counted conversions
# (tracking.primary_action_changed); every other change to what is counted or how it is credited is
# an attribution change (data.attribution_change). One event is one of the two, never both.
COUNTED_FLAG_RE = re.compile(r"primary|include_in_conversions", re.I)
ATTRIBUTION_FIELD_RE = re.compile(r"attribution|lookback|window|counting|conversion_action|include_in_conversions|primary", re.I)


BID_FIELD_RE = re.compile(r"bid|target_cpa|target_roas|strategy|tcpa|troas", re.I)


def _event_field(event: dict[str, Any]) -> str:
    return str(event.get("changed_field") or event.get("field") or "")


def is_bid_change(event: dict[str, Any]) -> bool:
    """A change event on a bid strategy or a bid target (its field names bid, strategy, target CPA or ROAS)."""
    return bool(BID_FIELD_RE.search(_event_field(event)))


def is_demotion(event: dict[str, Any]) -> bool:
    """A change event that turns an action's primary (or include-in-conversions) flag off."""
    return bool(COUNTED_FLAG_RE.search(_event_field(event))) and str(event.get("new")).lower() in ("false", "0", "no")


def is_attribution_change(event: dict[str, Any]) -> bool:
    """A change event on the attribution model, a lookback window, the counting type, or which
    actions count (an action added, removed or made primary), that is not a demotion."""
    return bool(ATTRIBUTION_FIELD_RE.search(_event_field(event))) and not is_demotion(event)
