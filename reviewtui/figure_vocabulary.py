"""The declared figures' vocabulary: how a finding says how each of its numbers was computed.

From prompt audit-v4 on, every finding carries ``figures``: one item per number it writes, the
number as printed and how it was obtained, in a small closed vocabulary that the scorer
recomputes from the snapshot's rows (``scoring/declared.py``; docs/scoring.md, "Declared
figures"). This module is that vocabulary as data, the JSON-schema fragment of one finding's
``figures`` array (``figures_schema``, part of ``assistant.output_schema``) and the prompt
section that teaches it (``figures_prompt_section``). It imports nothing of the project: the
scorer, the schema and the prompt all read the same lists from here.

Every item has ``label`` (unique in the finding; ``calc`` refers to earlier items by it),
``printed`` (the number exactly as written in the claim or evidence) and ``how``, one of five
forms, each with all of its fields required (the structured-outputs subset: no recursion, no
numeric or length constraints; empty lists and ``as_is`` where a field does not apply).
"""

from __future__ import annotations

from typing import Any

# The five forms and their own fields, in the order the schema lists them.
VALUE, AGGREGATE, ROWS, BUDGET, CALC = "value", "aggregate", "rows", "budget", "calc"
FORMS: dict[str, tuple[str, ...]] = {
    VALUE: ("pointer",),
    AGGREGATE: ("stat", "metric", "campaigns", "except", "from", "to", "reading"),
    ROWS: ("pointers", "field", "stat"),
    BUDGET: ("what", "campaigns", "budgets", "from", "to"),
    CALC: ("op", "args"),
}
COMMON_FIELDS = ("label", "printed", "how")

# aggregate: what is computed over the daily rows of the scope and range
AGGREGATE_STATS: dict[str, str] = {
    "sum": "the metric summed",
    "per_day": "the sum divided by the calendar days of the range",
    "mean": "the mean of the metric over the rows that have it (impression shares)",
    "share": "the scope's sum over the account's sum, same metric, range and reading",
    "cpa": "cost / conversions",
    "roas": "conversions_value / cost",
    "ctr": "clicks / impressions",
    "cpc": "cost / clicks",
    "cvr": "conversions / clicks",
    "value_per_conversion": "conversions_value / conversions",
    "lag_adjusted": "the lag-adjusted sum: each day's metric times its recorded share, summed (lag-adjusted "
                    "clicks times a conversion rate are the expected conversions)",
    "days": "the calendar days from..to (metric empty)",
    "trend_z": "the trend score of the scope over the settled days from..to on which the account has rows "
               "(metric empty)",
    "projection": "the month-end projection of the scope's cost, with from the period's first day and to the "
                  "last complete day (metric cost)",
}
SUMMED_METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")
SHARE_METRICS = ("search_impression_share", "search_budget_lost_impression_share", "search_rank_lost_impression_share")
METRICS = (*SUMMED_METRICS, *SHARE_METRICS)
READINGS: dict[str, str] = {
    "as_is": "the rows as they are",
    "duplicates_removed": "the first row of each (date, campaign) kept",
    "micros_converted": "a cost or conversions_value far above the account's typical row (money left in micros) "
                        "divided by 1,000,000",
    "shifted_one_day_later": "every row's date moved one day later",
    "shifted_one_day_earlier": "every row's date moved one day earlier",
    "invalid_rows_left_out": "rows whose values of the metrics used are impossible (negative, a share above 1, "
                             "clicks above impressions) left out",
    "partial_day_left_out": "rows dated after the last complete day left out",
}
ROWS_STATS = ("sum", "count", "mean", "min", "max")
BUDGET_WHATS: dict[str, str] = {
    "daily_in_force": "the daily budget in force on from",
    "daily_sum": "the daily budget in force on each day from..to, added up (daily budget x days)",
    "scheduled": "the budget schedule's planned spend from..to (budgets in force on the days their campaigns "
                 "serve, flights at their planned spend)",
    "monthly_spread": "the monthly budget spread over from..to in proportion to the budget schedule",
    "monthly": "targets.monthly_budget (else the budget schedule's total for the month)",
    "cap": "the most the platform lets one day spend on from: the allowed multiple times the daily budget in force "
           "(on the day of a change, the higher of the old and new amount)",
}
OPS: dict[str, str] = {
    "add": "a + b (+ c ...)",
    "subtract": "a - b",
    "multiply": "a x b (x c ...)",
    "divide": "a / b",
    "percent_change": "(b - a) / a",
    "floor": "a rounded down to a whole number (7.9 conversions: \"7 or fewer\")",
    "min": "the smallest of a, b (, c ...)",
    "max": "the largest of a, b (, c ...)",
    "chance_at_most": "the chance of at most floor(a) conversions where b were due",
    "z_score": "the z of a conversions where b were due: (a - b) / sqrt(b)",
}
OP_ARITY: dict[str, tuple[int, int]] = {  # (fewest, most) arguments
    "add": (2, 10), "multiply": (2, 10), "subtract": (2, 2), "divide": (2, 2),
    "percent_change": (2, 2), "chance_at_most": (2, 2), "z_score": (2, 2), "floor": (1, 1),
    "min": (2, 10), "max": (2, 10),
}
# Named constants a calc may use; their values live where the rules live (declared.py reads the
# platforms' multiples from taxonomy.yaml's pacing.daily_cap_exceeded thresholds).
CONSTANTS: dict[str, str] = {
    "micros_factor": "1,000,000 (money in micros)",
    "google_daily_multiple": "the most Google lets one day spend, as a multiple of the daily budget",
    "meta_daily_multiple": "the same for Meta before its flexible allowance began",
    "meta_flexible_daily_multiple": "the same for Meta from its flexible allowance on",
}
# A calc literal: a whole number of days, campaigns or the like, written as a string ("7").
LITERAL_MAX = 366
# Items recomputed per finding; more are refused with one reason (a list that long is not an audit).
MAX_FIGURES_PER_FINDING = 100


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def _enum(values: Any, description: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


_DATE = "YYYY-MM-DD, inclusive"
_FIELD_SCHEMAS: dict[str, dict[str, Any]] = {
    "label": {"type": "string", "description": "A short name, unique in this finding (a, b, c...); calc refers to it."},
    "printed": {"type": "string", "description": "The number exactly as written in the claim or evidence, with its "
                "currency sign, %, x or k/M: 1,066.44 / 90% / 2.2x / 1.2k."},
    "pointer": {"type": "string", "description": "JSON Pointer to one snapshot value: /daily/12/cost, "
                "/targets/target_cpa, /budgets/3/amount."},
    "stat": {"type": "string", "description": "The statistic (aggregate: sum, per_day, mean, share, cpa, roas, ctr, "
             "cpc, cvr, value_per_conversion, lag_adjusted, days, trend_z, projection; rows: sum, count, mean, min, max)."},
    "metric": _enum((*METRICS, ""), "The daily rows' metric; empty for the rates (cpa, roas...), days and trend_z."),
    "campaigns": _strings("Campaign ids exactly as in the snapshot; empty for the whole account."),
    "except": _strings("With campaigns empty: campaign ids left out of the account (the rest of the account)."),
    "from": {"type": "string", "description": _DATE},
    "to": {"type": "string", "description": _DATE},
    "reading": _enum(READINGS, "The rows as they are, or corrected for broken data."),
    "pointers": _strings("JSON Pointers to the snapshot items summed or counted: /search_terms/24, /ads/3."),
    "field": {"type": "string", "description": "The items' field (cost, clicks...); empty to count them."},
    "what": _enum(BUDGET_WHATS, "Which budget figure."),
    "budgets": _strings("Budget ids (budget_id); with campaigns, the budgets paying for them; both empty: the account."),
    "op": _enum(OPS, "The arithmetic."),
    "args": _strings("Labels of figures declared earlier in this finding, whole numbers 0 to 366 as strings "
                     "(days, campaign counts), or constants: " + ", ".join(CONSTANTS) + "."),
}
_STAT_ENUMS = {AGGREGATE: tuple(AGGREGATE_STATS), ROWS: ROWS_STATS}


def _form_schema(how: str) -> dict[str, Any]:
    fields = (*COMMON_FIELDS, *FORMS[how])
    properties: dict[str, Any] = {}
    for name in fields:
        if name == "how":
            properties[name] = {"type": "string", "enum": [how]}
        elif name == "stat":
            properties[name] = {**_FIELD_SCHEMAS["stat"], "enum": list(_STAT_ENUMS[how])}
        else:
            properties[name] = dict(_FIELD_SCHEMAS[name])
    return {"type": "object", "additionalProperties": False, "required": list(fields), "properties": properties}


def figure_item_schema() -> dict[str, Any]:
    """The schema of one declared figure: one of the five forms."""
    return {"anyOf": [_form_schema(how) for how in FORMS]}


def figures_schema() -> dict[str, Any]:
    """The JSON-schema fragment of one finding's ``figures`` array."""
    return {
        "type": "array",
        "description": "One item per number written in the claim or evidence (dates, ids and names are not "
                       "numbers): the number as printed and how it was computed, for the reviewer to recompute.",
        "items": figure_item_schema(),
    }


# The examples' ids, dates and figures are made up (no case of the set is quoted), and agree
# with each other where one is computed from others.
_EXAMPLE_LOST_IS = """\
{"id": "budget.lost_is_budget", "scope": "3300112233",
 "claim": "Campaign 3300112233 spends about 91% of its daily budget and loses impression share to it.",
 "evidence": "Campaign 3300112233, 2025-06-03 to 2025-06-09: cost 1,052.80 against a 165.0 daily budget \
(1,155 over the 7 days, about 91% used).",
 "severity": "high",
 "figures": [
  {"label": "a", "printed": "1,052.80", "how": "aggregate", "stat": "sum", "metric": "cost", \
"campaigns": ["3300112233"], "except": [], "from": "2025-06-03", "to": "2025-06-09", "reading": "as_is"},
  {"label": "b", "printed": "165.0", "how": "budget", "what": "daily_in_force", "campaigns": ["3300112233"], \
"budgets": [], "from": "2025-06-09", "to": "2025-06-09"},
  {"label": "c", "printed": "1,155", "how": "budget", "what": "daily_sum", "campaigns": ["3300112233"], \
"budgets": [], "from": "2025-06-03", "to": "2025-06-09"},
  {"label": "d", "printed": "7", "how": "aggregate", "stat": "days", "metric": "", "campaigns": [], \
"except": [], "from": "2025-06-03", "to": "2025-06-09", "reading": "as_is"},
  {"label": "e", "printed": "91%", "how": "calc", "op": "divide", "args": ["a", "c"]}]}"""

_EXAMPLE_EXPECTED = """\
{"label": "r", "printed": "3.82%", "how": "aggregate", "stat": "cvr", "metric": "", "campaigns": [], \
"except": [], "from": "2025-06-01", "to": "2025-06-10", "reading": "as_is"},
{"label": "k", "printed": "9,874", "how": "aggregate", "stat": "lag_adjusted", "metric": "clicks", \
"campaigns": [], "except": [], "from": "2025-06-11", "to": "2025-06-18", "reading": "as_is"},
{"label": "e", "printed": "377", "how": "calc", "op": "multiply", "args": ["r", "k"]},
{"label": "c", "printed": "455.10", "how": "aggregate", "stat": "sum", "metric": "cost", "campaigns": ["4400556677"], \
"except": [], "from": "2025-06-01", "to": "2025-06-18", "reading": "as_is"},
{"label": "t", "printed": "37.00", "how": "value", "pointer": "/targets/target_cpa"},
{"label": "x", "printed": "12.3", "how": "calc", "op": "divide", "args": ["c", "t"]},
{"label": "o", "printed": "4.6", "how": "aggregate", "stat": "sum", "metric": "conversions", "campaigns": ["4400556677"], \
"except": [], "from": "2025-06-01", "to": "2025-06-18", "reading": "as_is"},
{"label": "f", "printed": "4", "how": "calc", "op": "floor", "args": ["o"]},
{"label": "p", "printed": "0.6%", "how": "calc", "op": "chance_at_most", "args": ["o", "x"]}"""

_EXAMPLE_REST = """\
{"label": "v", "printed": "41,206.35", "how": "aggregate", "stat": "sum", "metric": "conversions_value", \
"campaigns": [], "except": ["5500667788"], "from": "2025-06-01", "to": "2025-06-18", \
"reading": "duplicates_removed"},
{"label": "t", "printed": "412", "how": "rows", "pointers": ["/search_terms/3", "/search_terms/8"], \
"field": "clicks", "stat": "sum"},
{"label": "s", "printed": "20%", "how": "calc", "op": "divide", "args": ["1", "5"]}"""


def figures_prompt_section() -> str:
    """The prompt's "# Figures" section: how to declare each number so a reviewer can recompute it."""
    stats = "; ".join(f"{name} ({meaning})" for name, meaning in AGGREGATE_STATS.items())
    readings = "; ".join(f"{name} ({meaning})" for name, meaning in READINGS.items())
    whats = "; ".join(f"{name} ({meaning})" for name, meaning in BUDGET_WHATS.items())
    ops = "; ".join(f"{name} ({meaning})" for name, meaning in OPS.items())
    constants = "; ".join(f"{name} ({meaning})" for name, meaning in CONSTANTS.items())
    return f"""\
# Figures

Every number you write in a claim or evidence is computed from the snapshot and declared in the \
finding's figures list, so that a reviewer can recompute it from the rows. Dates (written \
YYYY-MM-DD), campaign, ad and budget ids and names are not numbers and are not declared. In the \
text, name the campaign (or "the account") and the date range of every aggregate, as the reader \
needs them: "campaign 1841040842, 2025-05-01 to 2025-05-14: cost 4,210.55".

Each item of figures has label (a short name, unique in the finding), printed (the number \
exactly as you wrote it, with its currency sign, %, x or k/M, without the words around it) and \
how, one of five forms; every field of the form is required (use [] or "as_is" where one does \
not apply):
- value: pointer, the JSON Pointer of one snapshot value (/daily/12/cost, /targets/target_cpa, \
/budgets/3/amount, /search_terms/24/clicks). A value is copied exactly as the row has it.
- aggregate: stat over the daily rows of campaigns (ids; [] for the whole account; with [] and \
except, the account without those campaigns: "the rest of the account") from..to (inclusive dates) \
in a reading. stat: {stats}. metric: {", ".join(METRICS)}, or "" for the rates, days and trend_z. \
reading: {readings}. When the data is broken, declare the reading you audited on, and say in the text \
how the figures were corrected ("after removing the 12 duplicate rows").
- rows: stat ({", ".join(ROWS_STATS)}) of field over the snapshot items listed in pointers \
(search terms, ads, a few daily rows); field "" with count. Search terms and ads carry no dates: \
their figures cover the whole period; name the terms or ads in the text, not a range.
- budget: what, for campaigns or budgets (both [] for the account), from..to: {whats}.
- calc: op on args, which are labels of figures declared earlier in the same finding, whole \
numbers 0 to {LITERAL_MAX} written as strings ("7" days, "5" campaigns), or constants: {constants}. \
op: {ops}.

The Glossary's statistics in this vocabulary: lag-adjusted cost = aggregate lag_adjusted of cost \
(lag-adjusted CPA: divide it by the conversions of the same days); expected conversions = multiply a \
conversion rate by lag-adjusted clicks; the chance and the z = chance_at_most and z_score of the \
conversions and the expected conversions; the trend score = trend_z; daily budget x days = \
daily_sum; the daily cap = cap; scheduled spend and expected spend to date = scheduled (or \
monthly_spread); the month-end projection = projection; a needed share = min and max of literals \
and a divide; conversions per 30 days = the conversions divided by the days, times "30"; budget use \
= per_day cost over the last 7 complete days divided by daily_in_force.

A percentage is the ratio times 100 (a divide of 1,066.44 by 1,190 is printed 90%; a chance is \
printed as a percentage, 0.3%); a multiplier (2.2x) is the ratio itself. The reviewer recomputes every item and compares it with printed at \
the precision you print: 1,066.44 must be the exact sum, 90% accepts 89.5% to 90.5%; a figure \
written with "about" in the text accepts 2% either way. A declared figure that does not recompute, \
and a number in the text that no item declares, count against the answer. If you cannot compute a \
figure in this vocabulary, describe the finding without it. Never estimate beyond the month-end \
projection or invent benchmarks. Quote amounts in the account's currency, rounded (1,234.38 may be \
written 1,234 or 1.2k) or hedged with "about".

A finding with its figures:
{_EXAMPLE_LOST_IS}

Expected conversions lag-adjusted, the conversions a cost buys at the target CPA, and the chance of 4 \
or fewer (the floor of 4.6) when 12.3 are due:
{_EXAMPLE_EXPECTED}

The rest of the account on corrected rows, a sum over listed search terms, an even share of five campaigns:
{_EXAMPLE_REST}
"""
