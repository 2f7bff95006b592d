"""What may stay in a redacted snapshot because it names no one: the words of platform values and
field names, generic words, and the campaign-type words the checks read in a name.

A value stays only when every word of it is here (``TARGET_CPA``, ``final_url``,
``Add to cart``); a word that is not (``BERGSTEIGER``, ``utm_campaign``, ``VW``) makes the
whole value a pseudonym. The lists are closed on purpose: a missing word costs a
readable value, an extra one could keep a brand.
"""

from __future__ import annotations

import re

# Campaign-type words kept in a pseudonymised name: the auditor tells brand from
# non-brand and prospecting from retargeting by them. None names an advertiser.
ROLE_WORDS = ("non-brand", "nonbrand", "nb", "brand", "generic", "competitor", "search", "shopping", "pmax",
              "performance max", "display", "video", "youtube", "discovery", "demand gen", "dsa", "prospecting",
              "retargeting", "remarketing", "lookalike", "broad", "advantage+", "conversions", "traffic",
              "awareness", "leads", "sales", "app")

# Enum values of Google Ads and Meta that snapshots carry (statuses, channel and bidding types,
# conversion categories, attribution models, resource and ad types, objectives, policy topics).
PLATFORM_VALUES = """
ENABLED PAUSED REMOVED ACTIVE INACTIVE ARCHIVED DELETED IN_PROCESS WITH_ISSUES CAMPAIGN_PAUSED ADSET_PAUSED
PENDING_REVIEW DISAPPROVED PREAPPROVED APPROVED APPROVED_LIMITED PENDING_BILLING_INFO NOT_DELIVERING LEARNING
LEARNING_LIMITED ELIGIBLE LIMITED NOT_ELIGIBLE PENDING MISCONFIGURED ENDED SERVING NOT_SERVING UNKNOWN UNSPECIFIED
BIDDING_STRATEGY_LIMITED BIDDING_STRATEGY_LEARNING BIDDING_STRATEGY_MISCONFIGURED BUDGET_CONSTRAINED
HAS_ADS_LIMITED_BY_POLICY HAS_ADS_DISAPPROVED MOST_ADS_UNDER_REVIEW MISSING_INVOICE
SEARCH DISPLAY SHOPPING VIDEO PERFORMANCE_MAX DEMAND_GEN DISCOVERY MULTI_CHANNEL LOCAL SMART HOTEL TRAVEL
LOCAL_SERVICES APP MANUAL_CPC MANUAL_CPM MANUAL_CPV MAXIMIZE_CLICKS MAXIMIZE_CONVERSIONS MAXIMIZE_CONVERSION_VALUE
TARGET_CPA TARGET_ROAS TARGET_IMPRESSION_SHARE TARGET_SPEND ENHANCED_CPC COST_CAP LOWEST_COST_WITHOUT_CAP
LOWEST_COST_WITH_BID_CAP BID_CAP LOWEST_COST_WITH_MIN_ROAS PURCHASE ADD_TO_CART CONTACT SUBMIT_LEAD_FORM
BEGIN_CHECKOUT SIGNUP PAGE_VIEW PHONE_CALL_LEAD DOWNLOAD BOOK_APPOINTMENT REQUEST_QUOTE GET_DIRECTIONS
OUTBOUND_CLICK STORE_VISIT STORE_SALE IMPORTED_LEAD QUALIFIED_LEAD CONVERTED_LEAD ENGAGEMENT DEFAULT
ONE_PER_CLICK MANY_PER_CLICK GOOGLE_ADS_INTEGRATED_DATA_DRIVEN GOOGLE_SEARCH_ATTRIBUTION_LAST_CLICK
GOOGLE_SEARCH_ATTRIBUTION_DATA_DRIVEN GOOGLE_SEARCH_ATTRIBUTION_FIRST_CLICK GOOGLE_SEARCH_ATTRIBUTION_LINEAR
GOOGLE_SEARCH_ATTRIBUTION_TIME_DECAY GOOGLE_SEARCH_ATTRIBUTION_POSITION_BASED EXTERNAL LAST_CLICK FIRST_CLICK
LINEAR TIME_DECAY POSITION_BASED DATA_DRIVEN 1D_CLICK 7D_CLICK 28D_CLICK 1D_VIEW 7D_CLICK_1D_VIEW
AD AD_GROUP AD_GROUP_AD AD_GROUP_CRITERION AD_GROUP_BID_MODIFIER CAMPAIGN CAMPAIGN_BUDGET CAMPAIGN_CRITERION
CONVERSION_ACTION ASSET ASSET_GROUP AD_SET FEED FEED_ITEM BIDDING_STRATEGY CUSTOMER_ASSET
RESPONSIVE_SEARCH_AD EXPANDED_TEXT_AD TEXT_AD IMAGE_AD RESPONSIVE_DISPLAY_AD SHOPPING_PRODUCT_AD
VIDEO_RESPONSIVE_AD VIDEO_AD APP_AD CALL_AD DYNAMIC_SEARCH_AD CAROUSEL SINGLE_IMAGE COLLECTION
OUTCOME_SALES OUTCOME_LEADS OUTCOME_TRAFFIC OUTCOME_AWARENESS OUTCOME_ENGAGEMENT OUTCOME_APP_PROMOTION
CONVERSIONS LINK_CLICKS REACH BRAND_AWARENESS LEAD_GENERATION PRODUCT_CATALOG_SALES
MISLEADING_CONTENT DESTINATION_NOT_WORKING DESTINATION_MISMATCH TRADEMARKS TRADEMARKS_IN_AD_TEXT ALCOHOL
GAMBLING HEALTHCARE_AND_MEDICINES ADULT_CONTENT COUNTERFEIT DANGEROUS_PRODUCTS UNRELIABLE_CLAIMS
EDITORIAL_AND_PROFESSIONAL_REQUIREMENTS FINANCIAL_SERVICES POLITICAL_CONTENT COPYRIGHTS
DAILY LIFETIME MONTHLY CUSTOM_PERIOD ACCELERATED STANDARD EXACT PHRASE BROAD
MOBILE DESKTOP TABLET CONNECTED_TV OTHER MALE FEMALE
"""

# Field names a snapshot uses (docs/cases.md, "The snapshot.json format"), and the import's own.
FIELD_NAMES = """
schema_version platform source format grain period_from missing_row_means metrics_missing no_delivery redacted
account id name currency_code time_zone snapshot_taken_at period start end as_of last_complete_date
days_in_month targets monthly_budget target_cpa target_roas pacing_tolerance budgets budget_id campaign_ids
amount history changed_at old_amount new_amount flight_plan campaign_id planned_spend campaigns status
primary_status primary_status_reasons delivery_status advertising_channel_type objective bidding_strategy_type
start_date end_date ad_schedule change_events change_date_time conversion_action_id resource_type
changed_field old new conversion_actions category primary_for_goal counting_type
click_through_lookback_window_days view_through_lookback_window_days attribution_model last_conversion_date
daily date impressions clicks cost conversions conversions_value all_conversions reach search_impression_share
search_budget_lost_impression_share search_rank_lost_impression_share search_top_impression_share
search_absolute_top_impression_share ad_daily ad_set_id ad_set_name ad_id ad_name search_terms search_term
ads type approval_status policy_topics totals final_url final_urls tracking_url_template url_suffix
keyword negative_keyword match_type targeting_age_min targeting_age_max targeting_location creative
headline headlines description descriptions bid cpc_bid cpm_bid daily_budget lifetime_budget ad_group ad_group_id
export_range reporting_dates flags month rows
"""

# Words that may stay in free text (conversion action names, change-event values).
GENERIC_WORDS = set(w for r in ROLE_WORDS for w in r.split()) | {
    "nb", "add", "to", "cart", "purchase", "purchases", "booking", "request", "contact", "form", "call", "phone",
    "click", "clicks", "quote", "reservation", "subscription", "trial", "demo", "consultation", "lesson",
    "prospectus", "lead", "sign", "up", "signup", "checkout", "download", "page", "view", "ga4", "added", "removed",
    "new", "old", "none", "null", "true", "false", "enabled", "paused", "active", "inactive", "deleted", "archived",
    "on", "off", "yes", "no", "all", "ad", "ads", "set", "group", "campaign", "account", "budget", "daily",
    "lifetime", "manual", "auto", "automatic", "default", "standard", "accelerated", "mobile", "desktop", "tablet",
    "male", "female", "unknown", "and", "or", "of", "the", "a", "in", "for", "with", "by", "per", "day", "days",
    "not", "delivering", "approved", "disapproved", "eligible", "limited", "learning", "pending", "review",
    "keyword", "status", "amount", "creative", "ok", "error", "completed", "scheduled", "ended", "from", "at",
    "changed", "moved", "renamed", "created", "copied", "increased", "decreased", "raised", "lowered", "updated", "resumed", "started",
    "stopped", "turned", "bid", "target", "cpa", "roas", "cpc", "cpm", "ctr", "cpv", "url", "api",
    "utc", "kpi", "ppc", "sem", "seo", "crm", "aov", "ltv", "rsa", "eta", "store", "visit", "visits", "website",
    "conversion", "action", "actions", "value", "values", "max", "min", "week", "weeks", "month", "months",
    "hour", "hours", "minute", "minutes", "percent", "share", "impression", "impressions", "strategy",
}
# ISO 4217 codes that may stand alone in text ("USD", "EUR").
CURRENCY_WORDS = {"usd", "eur", "gbp", "jpy", "aud", "cad", "chf", "sek", "nok", "dkk", "pln", "czk", "huf", "nzd",
                  "sgd", "hkd", "inr", "krw", "brl", "mxn", "cny", "zar", "try", "kwd", "aed", "sar"}

_WORD_SPLIT = re.compile(r"[_\s]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_SPLIT.split(text.strip()) if w}


VOCABULARY = (GENERIC_WORDS | CURRENCY_WORDS | {w for v in PLATFORM_VALUES.split() for w in _words(v)}
              | {w for f in FIELD_NAMES.split() for w in _words(f)})
