"""The derived index (docs/scoring.md): figures an auditor computes from the rows.

``derived_index(snapshot_data)`` returns ``{name: value}`` with names a person
can read, e.g. ``"campaign 333: cost, last 7 complete days"`` or
``"pacing: projected month-end spend, straight line"``. Ratios are kept as
fractions (CTR 0.0125, share 0.62): grounding compares a printed percentage
with the fraction times 100.

Scopes: ``account`` and ``campaign <id>``. Windows: ``period`` (every row in
period.start..period.end), ``to last complete day`` (only when rows after the
last complete date exist), ``last 7 complete days``, ``previous 7 complete
days`` (the 7 before those) and ``last 14 complete days``. The last complete
date is ``period.last_complete_date``, else ``period.as_of`` minus one day,
else the last date with rows (``caseset.snapshot_reader.last_complete_day``).

The index is built from modules by concept: ``daily_totals`` (the rows summed
per day, and the corrected readings of broken data), ``domain.budgets``
(budgets over time), ``pacing_figures``, ``named_values`` (names and their
units) and ``row_provenance`` (the rows behind each name). The index is kept
on the snapshot (``caseset.snapshot_cache``).

The snapshot is untrusted input (broken-data cases are the point): missing
sections, nulls, strings where numbers belong and rows with bad dates are
skipped, never raised on.

Where each value comes from is recorded cheaply while the index is built:
one ``Rows`` description (section, campaigns, window, filter) per group of
names (``NamedValues.family``: every metric of one scope and window shares
one), never a list of rows. ``derived_rows(data, name)`` turns a name into
the JSON Pointers of the rows it was computed from, on demand, for the few
figures a finding actually cites (``row_provenance``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot import as_object as _dict
from ..caseset.snapshot_cache import SnapshotData, cache_of, snapshot_data
from ..caseset.snapshot_reader import number
from .daily_totals import (
    CLICKS, CONVERSIONS, COST, IMPRESSIONS, METRICS, SHARE_COUNT, SHARE_SUM, SHARES, VALUE, DailyTotals, DaySums,
    PeriodDates, calendar_days, corrected_readings, daily_totals,
)
from ..domain.budgets import span_days
from .named_values import NamedValues, find_provenance, ratio
from .pacing_figures import pacing_figures
from .row_provenance import NAMED, PERIOD_ROWS, TARGET_OF_METRIC, TRAILING_ZERO, RowList, Rows, rows_of


def derived_index(data: dict[str, Any]) -> dict[str, float]:
    """Every derived figure of one snapshot, by name. Never raises on bad data.

    The result is kept on the snapshot (``snapshot_cache``) and shared by its callers: read it, do
    not modify it.
    """
    if not isinstance(data, dict):
        return {}
    return derived_named(data).values


def derived_named(data: dict[str, Any]) -> NamedValues:
    """The derived index with where its values come from (``NamedValues.sources``), kept on the
    snapshot and shared by its callers: read it, do not modify it."""
    if not isinstance(data, dict):
        return NamedValues()
    reading = snapshot_data(data)  # a plain dict: one cache for the whole computation, then dropped
    return cache_of(reading).get("derived index", lambda: _compute(reading))


def compute_derived_index(data: dict[str, Any]) -> dict[str, float]:
    """``derived_index`` without the cache: always computed afresh."""
    if not isinstance(data, dict):
        return {}
    return _compute(SnapshotData(data)).values


def _compute(data: dict[str, Any]) -> NamedValues:
    index = NamedValues()
    totals = daily_totals(data)
    account_period = _reading_figures(index, data, totals, "")
    # Per-day account sums. A day's rates, and a campaign's day, are grounded when a finding
    # names the date (ranges.py): listing them all here would ground almost any percentage.
    for day in sorted(totals.account):
        sums = totals.account[day]
        for i, metric in enumerate(METRICS):
            index.put(f"account: {metric} on {day.isoformat()}", sums[i])
        index.family("account: ", f" on {day.isoformat()}", Rows("daily", first=day, last=day))
    _count_figures(index, data, totals.by_campaign, totals.account, totals.rows_per_day, totals.period)
    _search_term_figures(index, data, account_period, totals.by_campaign, totals.period)
    _ad_figures(index, data)
    # Broken data: the figures an auditor quotes once the breakage is undone.
    for reading, label in corrected_readings(data, totals):
        _reading_figures(index, data, reading, f" ({label})")
    return index


def _reading_figures(index: NamedValues, data: dict[str, Any], totals: DailyTotals, suffix: str) -> list[float] | None:
    """The windows of every scope and the pacing figures of one reading of the rows; returns the
    account's sums over the period. ``suffix`` names a corrected reading."""
    period = totals.period
    targets = _dict(data.get("targets"))
    target_cpa = number(targets.get("target_cpa"))
    target_roas = number(targets.get("target_roas"))
    account_period = None
    once = totals.once_per_day
    for window, (first, last) in totals.windows().items():
        total, active = totals.window("account", first, last)
        if window == "period":
            account_period = total
        calendar = calendar_days(first, last, totals.last_row)
        fmt = f"account: {{}}, {window}{suffix}"
        window_figures(index, fmt, total, active, calendar, target_cpa, target_roas)
        index.put(fmt.format("zero-conversion days"), _zero_days(totals.account, first, last))
        index.family("account: ", f", {window}{suffix}",
                     Rows("daily", first=first, last=last, once_per_day=once), TARGET_OF_METRIC)
        # Every campaign's figures over this window, in one entry: the id is read from the name.
        # A share of the account names the campaign's rows: the account's are every row.
        index.family("campaign ", f", {window}{suffix}",
                     Rows("daily", NAMED, first, last, once_per_day=once), TARGET_OF_METRIC)
        for cid, days in totals.by_campaign.items():
            sums, active = totals.window(cid, first, last)
            fmt = f"campaign {_literal(cid)}: {{}}, {window}{suffix}"
            window_figures(index, fmt, sums, active, calendar, target_cpa, target_roas, total)
            if active:
                index.put(fmt.format("zero-conversion days"), _zero_days(days, first, last))
    pacing_figures(index, data, period, totals.account, totals.by_campaign, targets, suffix, once_per_day=once)
    return account_period


def _ad_figures(index: NamedValues, data: dict[str, Any]) -> None:
    """Ad cost per campaign and account, and the part of it on disapproved ads."""
    ads = [a for a in _list(data.get("ads")) if isinstance(a, dict)]
    if not any(number(a.get("cost")) is not None for a in ads):
        return
    groups: dict[str, list[dict[str, Any]]] = {"account": ads}
    for ad in ads:
        groups.setdefault(f"campaign {ad.get('campaign_id')}", []).append(ad)
    for scope, rows in groups.items():
        bad = [a for a in rows if str(a.get("approval_status", "")).upper() == "DISAPPROVED"]
        cost, bad_cost = _total(rows, "cost"), _total(bad, "cost")
        index.put(f"{scope}: ads, cost", cost)
        index.put(f"{scope}: ads, count", float(len(rows)))
        campaigns = None if scope == "account" else (scope.removeprefix("campaign "),)
        every, disapproved = Rows("ads", campaigns), Rows("ads", campaigns, only="disapproved")
        index.family(f"{scope}: ads, ", "", every)
        if bad:
            index.put(f"{scope}: ads, disapproved cost", bad_cost)
            index.put(f"{scope}: ads, disapproved share of ad cost", ratio(bad_cost, cost))
            index.exact(f"{scope}: ads, disapproved cost", disapproved)
            index.exact(f"{scope}: ads, disapproved share of ad cost", disapproved, every)


def _literal(text: Any) -> str:
    """``text`` made safe inside a ``str.format`` template (campaign ids may hold braces)."""
    return str(text).replace("{", "{{").replace("}", "}}")


def _zero_days(days: dict[date, DaySums], first: date, last: date) -> float:
    return float(sum(1 for d, row in days.items() if first <= d <= last and row[CONVERSIONS] == 0))


def window_figures(
    index: NamedValues, fmt: str, sums: list[float], active: int, calendar: int,
    target_cpa: float | None = None, target_roas: float | None = None, account: list[float] | None = None,
) -> None:
    """Put ``window_numbers`` into ``index``, named by ``fmt`` (``"campaign 333: {}, last 7 complete days"``)."""
    for metric, value in window_numbers(sums, active, calendar, target_cpa, target_roas, account):
        index.put(fmt.format(metric), value)


def window_numbers(
    sums: list[float], active: int, calendar: int,
    target_cpa: float | None = None, target_roas: float | None = None, account: list[float] | None = None,
) -> list[tuple[str, float | None]]:
    """(metric, value) of one scope over one window: sums, rates, daily averages, share averages,
    target ratios and shares of the account. ``active`` is the number of days with rows,
    ``calendar`` the window's calendar days; values that cannot be computed are None."""
    if not active:
        return [(metric, 0.0) for metric in METRICS]
    out: list[tuple[str, float | None]] = list(zip(METRICS, sums))
    cpa = ratio(sums[COST], sums[CONVERSIONS])
    roas = ratio(sums[VALUE], sums[COST])
    out += [("CTR", ratio(sums[CLICKS], sums[IMPRESSIONS])), ("CPC", ratio(sums[COST], sums[CLICKS])),
            ("CVR", ratio(sums[CONVERSIONS], sums[CLICKS])), ("CPA", cpa), ("ROAS", roas),
            ("value per conversion", ratio(sums[VALUE], sums[CONVERSIONS]))]
    if calendar > 1:  # a one-day window's averages are its sums
        out += [(_PER_DAY[i], ratio(sums[i], calendar)) for i in range(len(METRICS))]
        if active != calendar:
            out += [(_PER_DAY_WITH_DATA[i], ratio(sums[i], active)) for i in range(len(METRICS))]
        out.append(("days with data", float(active)))
    for i in range(len(SHARES)):
        if sums[SHARE_COUNT + i]:
            out.append((_AVERAGE[i], sums[SHARE_SUM + i] / sums[SHARE_COUNT + i]))
    if target_cpa:
        out += [("CPA over target", ratio(cpa, target_cpa)),
                ("CPA minus target", None if cpa is None else cpa - target_cpa)]
    if target_roas:
        out += [("ROAS over target", ratio(roas, target_roas)),
                ("ROAS minus target", None if roas is None else roas - target_roas),
                ("target ROAS over ROAS", ratio(target_roas, roas))]  # above 1 is worse, as CPA over target
    if account is not None:
        out += [("share of account cost", ratio(sums[COST], account[COST])),
                ("share of account conversions", ratio(sums[CONVERSIONS], account[CONVERSIONS])),
                ("share of account conversion value", ratio(sums[VALUE], account[VALUE])),
                # with no target, the account's own CPA is the reference a campaign is read against
                ("CPA over account CPA", ratio(cpa, ratio(account[COST], account[CONVERSIONS])))]
    return out


_PER_DAY = [f"{metric} per day" for metric in METRICS]
_PER_DAY_WITH_DATA = [f"{metric} per day with data" for metric in METRICS]
_AVERAGE = [f"average {share}" for share in SHARES]


def _count_figures(
    index: NamedValues, data: dict[str, Any], by_campaign_day: dict[str, dict[date, DaySums]],
    account_day: dict[date, DaySums], row_count: dict[tuple[str, date], int], period: PeriodDates,
) -> None:
    campaigns = [c for c in _list(data.get("campaigns")) if isinstance(c, dict)]
    index.put("count: campaigns", float(len(campaigns) or len(by_campaign_day)))
    index.put("count: enabled campaigns", float(sum(1 for c in campaigns if str(c.get("status", "")).upper() == "ENABLED")))
    index.put("count: campaigns with cost in the data",
              float(sum(1 for days in by_campaign_day.values() if any(s[COST] > 0 for s in days.values()))))
    index.exact("count: campaigns", Rows("campaigns"))
    index.exact("count: enabled campaigns", Rows("campaigns", only="enabled"))
    index.exact("count: campaigns with cost in the data", Rows("campaigns", only="with cost"))
    duplicated = [n for n in row_count.values() if n > 1]
    index.put("count: (date, campaign) pairs with more than one row", float(len(duplicated)))
    index.put("count: extra duplicate rows", float(sum(n - 1 for n in duplicated)))
    if duplicated:
        index.put("count: most rows of one (date, campaign)", float(max(duplicated)))
        index.exact("count: most rows of one (date, campaign)", Rows("daily", only="duplicated"))
    index.exact("count: (date, campaign) pairs with more than one row", Rows("daily", only="duplicated"))
    index.exact("count: extra duplicate rows", Rows("daily", only="duplicated"))
    if period.start and period.last_complete and period.last_complete >= period.start:
        span = span_days(period.start, period.last_complete)
        index.put("count: days to last complete day", float(span))
        present = sum(1 for d in account_day if period.start <= d <= period.last_complete)
        index.put("count: days with no rows up to last complete day", float(span - present))
        index.exact("count: days to last complete day", PERIOD_ROWS)
        index.exact("count: days with no rows up to last complete day", PERIOD_ROWS)
    # Trailing runs of zero-conversion days: "no conversions for the last 9 days".
    for scope, days in [("account", account_day), *((f"campaign {c}", d) for c, d in by_campaign_day.items())]:
        run = 0
        ordered = sorted(days, reverse=True)
        for day in ordered:
            if days[day][CONVERSIONS] != 0:
                break
            run += 1
        index.put(f"{scope}: zero-conversion days at the end of the data", float(run))
    index.exact("account: zero-conversion days at the end of the data", Rows("daily", only=TRAILING_ZERO))
    index.family("campaign ", ": zero-conversion days at the end of the data", Rows("daily", NAMED, only=TRAILING_ZERO))
    ads = [a for a in _list(data.get("ads")) if isinstance(a, dict)]
    disapproved: dict[str, int] = {}
    for ad in ads:
        if str(ad.get("approval_status", "")).upper() == "DISAPPROVED":
            cid = str(ad.get("campaign_id"))
            disapproved[cid] = disapproved.get(cid, 0) + 1
    if ads:
        index.put("count: disapproved ads", float(sum(disapproved.values())))
        index.exact("count: disapproved ads", Rows("ads", only="disapproved"))
        for cid, n in disapproved.items():
            index.put(f"campaign {cid}: disapproved ads", float(n))
        index.family("campaign ", ": disapproved ads", Rows("ads", NAMED, only="disapproved"))


def _search_term_figures(
    index: NamedValues, data: dict[str, Any], account_period: list[float] | None,
    by_campaign_day: dict[str, dict[date, DaySums]], period: PeriodDates,
) -> None:
    terms = [t for t in _list(data.get("search_terms")) if isinstance(t, dict)]
    if not terms:
        return
    groups: dict[str, list[dict[str, Any]]] = {"account": terms}
    for term in terms:
        groups.setdefault(f"campaign {term.get('campaign_id')}", []).append(term)
    for scope, rows in groups.items():
        zero = [t for t in rows if number(t.get("conversions")) == 0]
        fmt = f"{_literal(scope)}: search terms, {{}}"
        campaigns = None if scope == "account" else (scope.removeprefix("campaign "),)
        every, zero_rows = Rows("search_terms", campaigns), Rows("search_terms", campaigns, only="zero conversions")
        index.family(f"{scope}: search terms, ", "", every)
        index.family(f"{scope}: search terms, zero-conversion ", "", zero_rows)
        index.exact(f"{scope}: search terms, zero-conversion share of search term cost", zero_rows, every)
        index.exact(f"{scope}: search terms, zero-conversion share of cost, period",
                    zero_rows, Rows("daily", campaigns, period.start, period.end))
        index.put(fmt.format("count"), float(len(rows)))
        index.put(fmt.format("zero-conversion count"), float(len(zero)))
        term_cost = _total(rows, "cost")
        zero_cost = _total(zero, "cost")
        index.put(fmt.format("cost"), term_cost)
        index.put(fmt.format("zero-conversion cost"), zero_cost)
        index.put(fmt.format("zero-conversion clicks"), _total(zero, "clicks"))
        index.put(fmt.format("zero-conversion impressions"), _total(zero, "impressions"))
        index.put(fmt.format("zero-conversion share of search term cost"), ratio(zero_cost, term_cost))
        if scope == "account":
            scope_cost = account_period[COST] if account_period else None
        else:
            days = by_campaign_day.get(scope.removeprefix("campaign "), {})
            scope_cost = sum(s[COST] for d, s in days.items() if period.start and period.end and period.start <= d <= period.end)
        index.put(fmt.format("zero-conversion share of cost, period"), ratio(zero_cost, scope_cost))


def _total(rows: list[dict[str, Any]], key: str) -> float:
    return float(sum(number(r.get(key)) or 0.0 for r in rows))


def derived_rows(data: dict[str, Any], name: str,
                 sources: dict[str, list[tuple[str, tuple[Rows, ...]]]] | None = None) -> RowList | None:
    """The rows the derived value ``name`` was computed from, or None for a name the index does
    not describe. ``sources``: ``NamedValues.sources`` kept from building the index (else the
    snapshot's cached index is used)."""
    if not isinstance(data, dict):
        return None
    data = snapshot_data(data)  # a plain dict: the index and the rows read from one cache
    found = find_provenance(derived_named(data).sources if sources is None else sources, name)
    if found is None:
        return None
    parts, name_part = found
    return rows_of(data, parts, name_part)
