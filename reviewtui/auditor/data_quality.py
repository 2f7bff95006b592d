"""``data.*``: breakage in the data itself. Runs first; the rest trust the data only if it passes.

A breakage that corrupts money figures (duplicates, micros, another
currency) is recorded in ``ctx.broken`` so that pacing, efficiency and the
other money detectors withhold figures the breakage would make wrong.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import partial
from operator import gt, is_not
from typing import Any, Sequence, cast

from ..caseset.snapshot_reader import micros_suspects
from ..domain.currency import cpc_bar
from ..domain.delivery import missing_row_means_no_delivery, off_weekdays
from ..domain.terms import is_attribution_change
from . import text
from . import derived_names as names
from .findings import Context
from .series import MONEY, SHARES, Row, Totals, number, parse_moment

# Which kinds each breakage leaves not assessed is data: each data.* kind's ``withholds`` in
# taxonomy.yaml (``Context.withheld`` reads it).
COUNTED_METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")


def detect(ctx: Context) -> None:
    duplicate_rows(ctx)
    micros_not_converted(ctx)
    currency_mismatch(ctx)
    missing_days(ctx)
    timezone_shift(ctx)
    partial_last_day(ctx)
    invalid_values(ctx)
    attribution_change(ctx)
    totals_mismatch(ctx)


def _row_label(s, row: Row) -> str:
    return f"{text.day(row.day)} {s.label(row.campaign_id)}"


def duplicate_rows(ctx: Context) -> None:
    kind = "data.duplicate_rows"
    s = ctx.series
    # Rows below campaign level (an ad_set_id or ad_id on the row) are parts of the
    # campaign's day, summed, not repeats; the same ids twice on a day are.
    # Only a (date, campaign) with more than one row can hold repeats: the rest are not looked at
    by_key: dict[tuple, list[Row]] = {}
    for (campaign_id, day), group in s.view.by_cell.items():
        if len(group) > 1:
            for row in s.rows_by_cell[(day, campaign_id)]:
                by_key.setdefault((row.day, row.campaign_id, str(row.raw.get("ad_set_id") or ""),
                                   str(row.raw.get("ad_id") or "")), []).append(row)
    dupes = {key: rows for key, rows in by_key.items() if len(rows) > 1}
    if not s.rows:
        ctx.unassessable(kind, None, "no daily rows to check")
        return
    if not dupes:
        ctx.rejected(kind, None, "every (date, campaign) pair appears once")
        return
    keys = sorted(dupes)
    pointers = [r.pointer for k in keys for r in dupes[k]]
    examples = []
    for key in keys[:4]:
        rows = dupes[key]
        costs = ", ".join(text.money(r.get("cost") or 0.0) for r in rows)
        examples.append(f"{text.day(key[0])} {s.label(key[1])} appears {_times(len(rows))} (cost {costs})")
    more = " and more pairs on later dates" if len(keys) > 4 else ""
    dates = sorted({k[0] for k in keys})
    ctx.breaks(kind, "duplicate (date, campaign) rows count spend and conversions more than once", {k[1] for k in keys})
    ctx.found(
        kind,
        None,
        f"The same (date, campaign) appears more than once from {text.day(dates[0])}, so spend, clicks and "
        "conversions summed over the rows are overstated; de-duplicate before reading pacing or CPA.",
        "; ".join(examples) + more + ".",
        rows=pointers,
    )


def _times(n: int) -> str:
    return {2: "twice", 3: "three times", 4: "four times"}.get(n, "more than four times")


def micros_not_converted(ctx: Context) -> None:
    kind = "data.micros_not_converted"
    s = ctx.series
    t = ctx.t(kind)
    factor = t.number("row_over_typical")
    # A CPC of 1,500 is an ordinary click in yen and no click at all in dollars: the bar is the currency's
    max_cpc = cpc_bar(s.currency, t.number("max_cpc"), t["currency_scale"])
    found, typical = micros_suspects(_metric_or_zero(s, "cost"), _metric_or_zero(s, "clicks"),
                                     _metric_or_zero(s, "conversions_value"), factor, max_cpc)
    if typical is None:
        ctx.unassessable(kind, None, "no row has a cost to check for micros")
        return
    suspects = [s.rows[i] for i in found]
    if not suspects:
        ctx.rejected(kind, None, f"row costs are in currency units (median row cost {text.money(typical)})")
        return
    all_rows = len(suspects) == len(s.rows)
    examples = []
    for row in suspects[:3]:
        row_clicks = row.get("clicks")
        example = f"{_row_label(s, row)}: cost {text.money(row.get('cost') or 0.0)}"
        if row_clicks:
            example += f" for {text.count(row_clicks)} clicks"
        if (row.get("conversions_value") or 0) > 0:
            example += f", conversion value {text.money(row.get('conversions_value') or 0.0)}"
        examples.append(example)
    normal = next((r for r in s.rows if r not in suspects and (r.get("cost") or 0) > 0), None)
    comparison = (
        f"; a normal row, {_row_label(s, normal)}, costs {text.money(normal.get('cost') or 0.0)}" if normal else ""
    )
    ctx.breaks(kind, "money still in micros inflates cost by a million times", {r.campaign_id for r in suspects})
    ctx.found(
        kind,
        None,
        ("Every row's" if all_rows else "Some rows'")
        + " money is still in micros (a million times the currency unit), so spend, CPC and CPA are inflated; "
        "divide those values by a million before any pacing or efficiency reading.",
        "; ".join(examples) + comparison + ".",
        rows=[r.pointer for r in suspects],
    )


def _metric_or_zero(s, name: str) -> list[float]:
    """Each row's ``name`` (0.0 for none), in row order: from the shared reading's column when every row
    is read (a date and a campaign) and each value as the column holds it (no value noted as bad)."""
    view = s.view
    if not s.bad_values and None not in view.days and None not in view.campaigns:
        return [v or 0.0 for v in view.columns[name]]
    return [r.get(name) or 0.0 for r in s.rows]


def currency_mismatch(ctx: Context) -> None:
    kind = "data.currency_mismatch"
    s = ctx.series
    account = s.currency.upper()
    if not account:
        ctx.unassessable(kind, None, "the account has no currency_code")
        return
    odd: list[tuple[str, str, str]] = []  # (pointer, where, currency)
    for camp in s.campaigns.values():
        code = _currency_of(camp.raw)
        if code and code != account and camp.pointer:
            odd.append((camp.pointer, s.label(camp.id), code))
    # Only a row with a currency field can have another currency: the rest are passed over
    if any("currency_code" in raw or "currency" in raw for raw in s.view.rows if isinstance(raw, dict)):
        for row in s.rows:
            code = _currency_of(row.raw)
            if code and code != account:
                odd.append((row.pointer, _row_label(s, row), code))
    for index, budget in s.indexed("budgets"):
        code = _currency_of(budget)
        if code and code != account:
            odd.append((f"/budgets/{index}", f"budget {budget.get('budget_id', '')}".strip(), code))
    if not odd:
        ctx.rejected(kind, None, f"every currency code given matches the account's {account}")
        return
    odd_pointers = {p for p, _, _ in odd}
    odd_campaigns = {cid for cid, c in s.campaigns.items() if c.pointer in odd_pointers}
    odd_campaigns |= {r.campaign_id for r in s.rows if r.pointer in odd_pointers}
    codes = sorted({code for _, _, code in odd})
    wheres = sorted({where for _, where, _ in odd if not where[:4].isdigit()}) or [where for _, where, _ in odd[:3]]
    ctx.breaks(kind, f"amounts in {', '.join(codes)} are summed with {account} amounts", odd_campaigns or None)
    ctx.found(
        kind,
        None,
        f"Some amounts are in {', '.join(codes)} while the account reports in {account}, so totals mix currencies; "
        "convert them before reading spend, pacing or CPA.",
        f"The account currency is {account}; {', '.join(wheres[:4])} {'is' if len(wheres) == 1 else 'are'} in "
        f"{', '.join(codes)}.",
        rows=[p for p, _, _ in odd],
    )


def _currency_of(item: dict[str, Any]) -> str:
    for key in ("currency_code", "currency"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().upper()
    return ""


def missing_days(ctx: Context) -> None:
    kind = "data.missing_days"
    s = ctx.series
    dates = s.dates
    if len(dates) < 3:
        ctx.unassessable(kind, None, "fewer than three dates with rows")
        return
    spend_dates = [d for d in dates if s.day_total(d).cost > 0]
    if not spend_dates:
        ctx.rejected(kind, None, "no spend on any day")
        return
    first, last = spend_dates[0], spend_dates[-1]
    gaps = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    gaps = [d for d in gaps if d not in s.days]
    if not gaps:
        ctx.rejected(kind, None, f"every date from {text.day(first)} to {text.day(last)} has rows")
        return
    if missing_row_means_no_delivery(s.data):
        ctx.rejected(kind, None, f"no row on {text.day_list(gaps)}, but the snapshot's source says a day without a row "
                     "is a day without delivery (source.missing_row_means no_delivery): nothing delivered on them")
        return
    # A day off the weekly rhythm of every campaign delivering around it is their schedule, not a lost day
    rhythm_weeks = int(ctx.t("delivery.serving_stopped").number("rhythm_weeks"))
    scheduled_off = [d for d in gaps if _off_for_all_around(s, spend_dates, d, rhythm_weeks)]
    gaps = [d for d in gaps if d not in scheduled_off]
    if not gaps:
        ctx.rejected(kind, None, f"no row on {text.day_list(scheduled_off)}: each is off the weekly rhythm of every "
                     "campaign delivering around it")
        return
    before = max(d for d in spend_dates if d < gaps[0])
    after = min(d for d in spend_dates if d > gaps[-1])
    # Meta writes no row for a day without delivery: a gap is a dropped export day
    # only when several campaigns delivered on both sides of it and all fell silent.
    around_campaigns = ({r.campaign_id for r in s.rows_by_day.get(before, [])}
                        & {r.campaign_id for r in s.rows_by_day.get(after, [])})
    if s.is_meta and len(around_campaigns) < 2:
        ctx.rejected(kind, None, f"no row on {text.day_list(gaps)}, but at most one campaign delivered around "
                     "them: Meta leaves out days without delivery")
        return
    spent_before, spent_after = ((ctx.day_values(d, None) or {}).get("cost") for d in (before, after))
    around = (
        f"The account spent {text.money(spent_before, s.currency)} on {text.day(before)} and "
        f"{text.money(spent_after, s.currency)} on {text.day(after)}; "
        if spent_before is not None and spent_after is not None
        else ""
    )
    ctx.breaks(kind, "dates without any row understate spend to date")
    ctx.found(
        kind,
        None,
        f"No row at all for {text.day_list(gaps)}, with spend on the days around them: the export dropped "
        "those days, so spend to date and any pacing read from it are understated.",
        f"{around}no campaign has a row on {text.day_list(gaps)}.",
        rows=[r.pointer for r in s.rows if r.day in (before, after)][:6],
    )


def _off_for_all_around(s, spend_dates: list[date], day: date, rhythm_weeks: int) -> bool:
    """True when every campaign with rows on the spend dates either side of ``day`` does not serve on its
    weekday by its weekly rhythm."""
    before = max(d for d in spend_dates if d < day)
    after = min(d for d in spend_dates if d > day)
    around = {r.campaign_id for r in s.rows_by_day.get(before, [])} & {r.campaign_id for r in s.rows_by_day.get(after, [])}
    return bool(around) and all(day.weekday() in off_weekdays(s.served_days(cid), rhythm_weeks) for cid in around)


def timezone_shift(ctx: Context) -> None:
    kind = "data.timezone_shift"
    s = ctx.series
    if s.period_start is None or s.period_end is None:
        ctx.unassessable(kind, None, "the period has no usable start and end dates")
        return
    latest = min(s.period_end, s.as_of) if s.as_of else s.period_end
    # the dates with rows first (``Series.days``): the rows themselves only when one falls outside
    inside = not s.days or (s.period_start <= min(s.days) and max(s.days) <= latest)
    outside = [] if inside else [r for r in s.rows if r.day < s.period_start or r.day > latest]
    if not outside:
        outside = _shifted_forward(ctx)
    if not outside:
        ctx.rejected(kind, None, "every row is dated inside the period, and the first day has rows")
        return
    dates = sorted({r.day for r in outside})
    if dates[0] >= s.period_start and dates[-1] <= s.period_end:  # moved a day later, inside the period
        where = (
            f"Rows dated {text.day_list(dates)} (the as_of date) hold a full day's spend while the period's first day, "
            f"{text.day(s.period_start)}, has no row"
        )
    else:
        where = f"Rows dated {text.day_list(dates)} fall outside the period"
    ctx.found(
        kind,
        None,
        f"The dates look shifted by a time-zone conversion (period {text.day(s.period_start)} to "
        f"{text.day(s.period_end)}" + (f", as of {text.day(s.as_of)}" if s.as_of else "") + "), so each day's "
        "figures belong to a neighbouring day.",
        f"{where}; the account's time zone is {(s.data.get('account') or {}).get('time_zone', 'not given')}.",
        rows=[r.pointer for r in outside],
    )


def _shifted_forward(ctx: Context) -> list[Row]:
    """Rows moved a day later: the first day of the period is empty while the as_of day holds a full day."""
    s = ctx.series
    if s.as_of is None or s.period_start in s.days or s.as_of not in s.days or len(s.dates) < 8:
        return []
    norm = s.window(s.dates[-8:-1]).cost / 7
    full = norm > 0 and s.day_total(s.as_of).cost >= norm * ctx.t("data.timezone_shift").number("full_day_share")
    return [r for r in s.rows if r.day == s.as_of] if full else []


def partial_last_day(ctx: Context) -> None:
    kind = "data.partial_last_day"
    s = ctx.series
    t = ctx.t(kind)
    last = s.last_date
    if last is None or len(s.dates) < 4:
        ctx.unassessable(kind, None, "too few dates to judge the last one")
        return
    after_complete = s.last_complete is not None and last > s.last_complete
    is_as_of = s.as_of is not None and last >= s.as_of
    if not (after_complete or is_as_of):
        ctx.rejected(kind, None, f"the last date {text.day(last)} is a complete day")
        return
    # The norm and the day as the derived index has them: the last 7 complete days' average, the day's total
    norm = ctx.quote(names.window(None, "cost per day", names.LAST_7)) or 0.0
    spent = (ctx.day_values(last, None) or {}).get("cost", 0.0)
    if norm <= 0 or spent >= norm * t.number("max_share_of_norm"):
        ctx.rejected(kind, None, f"{text.day(last)} spent {text.money(spent)} against a daily norm of {text.money(norm)}")
        return
    ctx.found(
        kind,
        None,
        f"The last date, {text.day(last)}, is incomplete (the snapshot was taken during it): its spend and "
        "conversions are a fraction of a normal day and must not be read as a drop.",
        f"The account spent {text.money(spent, s.currency)} on {text.day(last)} against a daily average of "
        f"{text.money(norm, s.currency)} over the last 7 complete days.",
        rows=[r.pointer for r in s.rows if r.day == last],
    )


def _many_per_click(s) -> bool:
    """True unless every conversion action counts one per click (conversions above clicks are then odd)."""
    actions = s.section("conversion_actions")
    if not actions:
        return True
    return any(str(a.get("counting_type", "")).upper() != "ONE_PER_CLICK" for a in actions)


def invalid_values(ctx: Context) -> None:
    kind = "data.invalid_values"
    s = ctx.series
    if not s.rows:
        ctx.unassessable(kind, None, "no daily rows to check")
        return
    problems: list[tuple[str, str]] = []  # (row pointer, description)
    for row, name, raw in s.bad_values:
        if raw is None:
            problems.append((row.pointer, f"{_row_label(s, row)}: {name} is null"))
        elif number(raw) is None:
            problems.append((row.pointer, f"{_row_label(s, row)}: {name} is the text {str(raw)[:20]!r}"))
        elif row.get(name) is None:
            problems.append((row.pointer, f"{_row_label(s, row)}: {name} is far beyond any real value"))
    one_per_click = not _many_per_click(s) and not s.is_meta
    for row in _rows_with_impossible_values(s, one_per_click):
        where = _row_label(s, row)
        for name in COUNTED_METRICS:
            value = row.get(name)
            if value is not None and value < 0:
                problems.append((row.pointer, f"{where}: {name} {text.count(value)}"))
        clicks, impressions = row.get("clicks"), row.get("impressions")
        if clicks is not None and impressions is not None and clicks > impressions:
            problems.append((row.pointer, f"{where}: {text.count(clicks)} clicks above {text.count(impressions)} impressions"))
        for name in SHARES:
            value = row.get(name)
            if value is not None and not 0 <= value <= 1:
                problems.append((row.pointer, f"{where}: {name} {text.share(value)}"))
        conversions = row.get("conversions")
        if one_per_click and clicks is not None and conversions is not None and conversions > clicks > 0:
            problems.append((row.pointer, f"{where}: {text.count(conversions)} conversions above {text.count(clicks)} clicks with one-per-click counting"))
    if not problems:
        ctx.rejected(kind, None, "no negative or null metrics, no clicks above impressions, shares within 0..1")
        return
    shown = "; ".join(desc for _, desc in problems[:4]) + ("; and more" if len(problems) > 4 else "")
    ctx.found(
        kind,
        None,
        "Some rows carry impossible values (negative or missing metrics, clicks above impressions or shares "
        "outside zero to one); totals over them are unreliable until the export is fixed.",
        shown + ".",
        rows=list(dict.fromkeys(p for p, _ in problems)),
    )


def _rows_with_impossible_values(s, one_per_click: bool) -> list[Row]:
    """The rows ``invalid_values`` must look at, in row order: those whose values (as the columns of the
    shared reading hold them) may be negative, above their clicks or impressions, or a share outside
    0..1. A superset of the rows it reports, found without a pass of its own over every row."""
    columns = s.view.columns
    suspects: set[int] = set()
    # Each test is first asked of the whole column at once (the lowest and highest value, any row above
    # another), and row by row only where it may hold
    for name in COUNTED_METRICS:
        present = _present(columns[name])
        if present and min(present) < 0:
            suspects.update(i for i, v in enumerate(columns[name]) if v is not None and v < 0)
    for name in SHARES:
        present = _present(columns[name])
        if present and not 0 <= min(present) <= max(present) <= 1:
            suspects.update(i for i, v in enumerate(columns[name]) if v is not None and not 0 <= v <= 1)
    clicks = columns["clicks"]
    if _any_above(clicks, columns["impressions"]):
        suspects.update(i for i, (c, m) in enumerate(zip(clicks, columns["impressions"]))
                        if c is not None and m is not None and c > m)
    if one_per_click and _any_above(columns["conversions"], clicks):
        suspects.update(i for i, (v, c) in enumerate(zip(columns["conversions"], clicks))
                        if v is not None and c is not None and v > c > 0)
    return [row for row in s.rows if row.index in suspects] if suspects else []


def _present(column: Sequence[float | None]) -> list[float]:
    """The values of a column that are there (not None)."""
    return cast(list[float], list(filter(partial(is_not, None), column)))


def _any_above(column: Sequence[float | None], other: Sequence[float | None]) -> bool:
    """Whether some row's value is above the other column's (False only when none is: a column with a
    missing value is read as maybe)."""
    if None in column or None in other:
        return True
    return any(map(gt, cast(Sequence[float], column), cast(Sequence[float], other)))


def attribution_change(ctx: Context) -> None:
    kind = "data.attribution_change"
    events = _events_in_period(ctx, is_attribution_change)
    if not events:
        ctx.rejected(kind, None, "no attribution, lookback or conversion-action change inside the period")
        return
    described = []
    for _, event, when in events[:3]:
        old, new = event.get("old"), event.get("new")
        change = f"{event.get('changed_field')}"
        if old is not None or new is not None:
            change += f" from {old} to {new}"
        described.append(f"{change} on {text.day(when)}")
    ctx.breaks(kind, "conversions before and after the attribution change are not comparable")
    first_day = events[0][2]
    ctx.found(
        kind,
        events[0][1].get("campaign_id") and str(events[0][1]["campaign_id"]) or None,
        f"Attribution changed inside the period (from {text.day(first_day)}): conversions before and after the "
        "change are counted differently, so a step in conversions or CPA around that date is not a performance change.",
        "Change events: " + "; ".join(described) + ".",
        rows=[p for p, _, _ in events],
    )


def _events_in_period(ctx: Context, wanted) -> list[tuple[str, dict[str, Any], date]]:
    """Change events that are ``wanted`` and fall in the period."""
    s = ctx.series
    found = []
    for index, event in s.indexed("change_events"):
        field = str(event.get("changed_field") or event.get("field") or "")
        moment = parse_moment(event.get("change_date_time") or event.get("date"))
        if not field or moment is None or not wanted(event):
            continue
        when = moment.date()
        if s.period_start and when < s.period_start:
            continue
        if s.period_end and when > s.period_end:
            continue
        found.append((f"/change_events/{index}", event, when))
    return sorted(found, key=lambda item: item[2])


def totals_mismatch(ctx: Context) -> None:
    kind = "data.totals_mismatch"
    s = ctx.series
    supplied = s.data.get("totals")
    if not isinstance(supplied, dict):
        ctx.rejected(kind, None, "the snapshot supplies no totals to compare")
        return
    t = ctx.t(kind)
    mismatches: list[tuple[str, str, float, float]] = []  # (pointer, what, rows sum, supplied)

    def compare(pointer: str, what: str, given: dict[str, Any], sums: Totals, scope: str | None) -> None:
        for name in COUNTED_METRICS:
            value = number(given.get(name))
            if value is None:
                continue
            quoted = ctx.period(scope, name)  # the rows' sum as the derived index has it, so it can be printed
            summed = quoted if quoted is not None else getattr(sums, name)
            tolerance = max(t.number("absolute_rounding"), abs(value) * t.number("relative"))
            if abs(summed - value) > tolerance:
                mismatches.append((f"{pointer}/{name}", f"{what} {name}", summed, value))

    account_totals: dict[str, Any] = own if isinstance(own := supplied.get("account"), dict) else supplied
    compare("/totals" + ("/account" if account_totals is not supplied else ""), "account", account_totals, s.account, None)
    per_campaign = supplied.get("campaigns")
    if isinstance(per_campaign, list):
        for index, item in enumerate(per_campaign):
            if isinstance(item, dict) and item.get("campaign_id") is not None:
                cid = str(item["campaign_id"])
                compare(f"/totals/campaigns/{index}", s.label(cid), item, s.campaign_totals.get(cid) or Totals(), cid)
    elif isinstance(per_campaign, dict):
        for cid, item in per_campaign.items():
            if isinstance(item, dict):
                compare(f"/totals/campaigns/{cid}", s.label(str(cid)), item, s.campaign_totals.get(str(cid)) or Totals(), str(cid))
    if not mismatches:
        ctx.rejected(kind, None, "the daily rows add up to the supplied totals")
        return
    ctx.breaks(kind, "the daily rows and the supplied totals disagree, so spend to date is uncertain")
    money_names = set(MONEY)
    parts = []
    for _, what, summed, value in mismatches[:3]:
        fmt = text.money if what.split()[-1] in money_names else text.count
        parts.append(f"{what}: rows add up to {fmt(summed)}, the supplied total is {fmt(value)}")
    ctx.found(
        kind,
        None,
        "The daily rows do not add up to the totals supplied with the snapshot: rows are missing or "
        "double-counted somewhere, so neither figure can be trusted for pacing until reconciled.",
        "; ".join(parts) + ".",
        rows=[p for p, _, _, _ in mismatches],
    )

