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
else the last date with rows.

The snapshot is untrusted input (broken-data cases are the point): missing
sections, nulls, strings where numbers belong and rows with bad dates are
skipped, never raised on.

Where each value comes from is recorded cheaply while the index is built:
one ``Rows`` description (section, campaigns, window, filter) per group of
names (``NamedValues.family``: every metric of one scope and window shares
one), never a list of rows. ``derived_rows(data, name)`` turns a name into
the JSON Pointers of the rows it was computed from, on demand, for the few
figures a finding actually cites (``RowList``: row numbers per section until
listed, so a 100,000-row window costs little).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from datetime import date, timedelta
from typing import Any, Iterable, NamedTuple

from ..caseset.snapshot import MAX_PERIOD_DAYS
from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot import as_object as _dict
from ..caseset.snapshot_cache import SnapshotData, cache_of, snapshot_data
from ..caseset.snapshot_reader import escape_token, last_complete_day, micros_limits, number, parse_day

METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions")
_IMPR, _CLICKS, _COST, _CONV, _VALUE, _ALL = range(len(METRICS))
# Shares are averaged, not summed: each day list keeps their sum and the number of rows that had one.
SHARES = ("search_impression_share", "search_budget_lost_impression_share", "search_rank_lost_impression_share")
_SHARE_SUM = len(METRICS)
_SHARE_COUNT = _SHARE_SUM + len(SHARES)
_WIDTH = _SHARE_COUNT + len(SHARES)
META_PLATFORMS = ("meta", "facebook", "instagram")


def daily_cap_multiple(platform: str, day: date | None) -> float:
    """The most a platform lets one day spend, as a multiple of the daily budget, on ``day``
    (taxonomy.yaml, pacing.daily_cap_exceeded: Meta's allowance changed on a date)."""
    from ..auditor.thresholds import DAILY_CAP, Thresholds, cap_multiple  # the auditor package imports this module

    is_meta = any(word in platform.lower() for word in META_PLATFORMS)
    return cap_multiple(Thresholds().of(DAILY_CAP), is_meta, day or date.today())


# Words in a derived name that make its value a ratio: a percentage (times 100) or a multiplier may match it.
RATIO_WORDS = ("CTR", "CVR", "ROAS", "share", " over ")


def is_ratio_name(name: str) -> bool:
    """Is the derived value of this name a ratio (CTR, a share, CPA over target...)?"""
    # "ROAS minus target" is a difference of ratios, not a ratio: a "2.9x" must not match it.
    return " minus " not in name and any(word in name for word in RATIO_WORDS)


VALUE_UNITS = ("money", "count", "ratio", "other")
_MONEY_NAME = re.compile(r"\b(?:cost|CPC|CPA|spend|budget|maximum|value)\b|conversions_value|planned spend")
_COUNT_NAME = re.compile(r"\b(?:impressions|clicks|conversions|all_conversions|count|days|rows)\b|^count: ")


@functools.lru_cache(maxsize=8192)
def _unit_of_metric(metric: str) -> str:
    if is_ratio_name(metric):
        return "ratio"
    if "ROAS" in metric or "multiple" in metric:
        # "ROAS minus target" is a difference of ratios; the platform's daily multiple is a
        # constant grounded only where a finding names the platform rule (grounding.py)
        return "other"
    if _MONEY_NAME.search(metric):
        return "money"
    if _COUNT_NAME.search(metric):
        return "count"
    return "other"


def value_unit(name: str) -> str:
    """What a derived value (or a range's metric) measures, by its name: ``money`` (cost, CPA, CPC,
    conversion value, budgets, spend), ``count`` (impressions, clicks, conversions, days, counts),
    ``ratio`` (shares, rates, ROAS, anything "over" something) or ``other``."""
    # The scope before ": " does not change the unit; leaving it out keeps the memo small.
    scope, sep, metric = name.partition(": ")
    if not sep or scope == "count":
        metric = name
    return _unit_of_metric(metric)


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


class NamedValues:
    """Named values being collected; the ones that could not be computed (None, inf, nan) are dropped.

    ``sources`` records where the values come from, per group of names: ``{prefix: [(tail, parts)]}``
    for the names ``prefix + anything + tail`` (``provenance`` finds the longest match).
    """

    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.sources: dict[str, list[tuple[str, tuple[Rows, ...]]]] = {}

    def put(self, name: str, value: float | None) -> None:
        if value is not None and math.isfinite(value):
            self.values[name] = value

    def family(self, prefix: str, tail: str, *parts: "Rows") -> None:
        """The names ``prefix + <metric> + tail`` come from the rows ``parts`` describe."""
        self.sources.setdefault(prefix, []).append((tail, parts))

    def exact(self, name: str, *parts: "Rows") -> None:
        """The value ``name`` comes from the rows ``parts`` describe."""
        self.sources.setdefault(name, []).append(("", parts))

    def provenance(self, name: str) -> tuple[tuple["Rows", ...], str] | None:
        """(parts, the part of the name between prefix and tail) for a name, or None."""
        return find_provenance(self.sources, name)


def find_provenance(
    sources: dict[str, list[tuple[str, tuple["Rows", ...]]]], name: str,
) -> tuple[tuple["Rows", ...], str] | None:
    """``NamedValues.provenance`` on a kept ``sources`` table."""
    for end in range(len(name), 0, -1):
        entries = sources.get(name[:end])
        if not entries:
            continue
        best = None
        for tail, parts in entries:
            if len(tail) <= len(name) - end and name.endswith(tail) and (best is None or len(tail) > len(best[0])):
                best = (tail, parts)
        if best is not None:
            return best[1], name[end:len(name) - len(best[0])]
    return None


def _span_days(first: date, last: date) -> int:
    return (last - first).days + 1


class _Period:
    """The period's dates, tolerant of missing or malformed fields."""

    def __init__(self, data: dict[str, Any], dates_with_rows: Iterable[date]) -> None:
        period = _dict(data.get("period"))
        seen = sorted(dates_with_rows)
        self.start = parse_day(period.get("start")) or (seen[0] if seen else None)
        self.end = parse_day(period.get("end")) or (seen[-1] if seen else None)
        if self.start and self.end and not 0 < _span_days(self.start, self.end) <= MAX_PERIOD_DAYS:
            # `check` refuses such a period; here it must not build a table per day of it.
            self.start = self.end = None
        self.as_of = parse_day(period.get("as_of"))
        self.last_complete = last_complete_day(period, self.end, seen[-1] if seen else None)
        days = number(period.get("days_in_month"))
        if days is None and self.start and self.end:
            days = _span_days(self.start, self.end)
        self.days = int(days) if days and days > 0 else None

    def windows(self, last_row_date: date | None) -> dict[str, tuple[date, date]]:
        out: dict[str, tuple[date, date]] = {}
        if self.start and self.end:
            out["period"] = (self.start, self.end)
            if self.last_complete and last_row_date and last_row_date > self.last_complete:
                out["to last complete day"] = (self.start, self.last_complete)
        lc = self.last_complete
        if lc:
            out["last 7 complete days"] = (lc - timedelta(days=6), lc)
            out["previous 7 complete days"] = (lc - timedelta(days=13), lc - timedelta(days=7))
            out["last 14 complete days"] = (lc - timedelta(days=13), lc)
        return out


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


class DailyTotals:
    """The daily rows summed per day, for the account and for each campaign.

    ``window(scope, first, last)`` gives the sums over any date range in
    constant time (prefix sums, built per scope on first use): the derived
    index's fixed windows, and the date ranges a finding names itself.
    Day lists hold the ``METRICS`` sums, then the ``SHARES`` sums, then the
    number of rows that had each share.
    """

    def __init__(self, data: dict[str, Any], *, once_per_day: bool = False,
                 micros_over: tuple[float, float] | None = None) -> None:
        """``once_per_day``: count only the first row of each (date, campaign), the reading of a
        snapshot with duplicate rows once they are removed. ``micros_over``: (cost, value) above
        which a row's money is read as micros and divided by a million."""
        self.once_per_day = once_per_day
        self.by_campaign: dict[str, dict[date, list[float]]] = {}
        self.rows_per_day: dict[tuple[str, date], int] = {}
        for row in _list(data.get("daily")):
            if not isinstance(row, dict):
                continue
            day = parse_day(row.get("date"))
            if day is None:
                continue  # rows with no usable date are skipped
            cid = str(row.get("campaign_id")) if row.get("campaign_id") is not None else "(no campaign)"
            key = (cid, day)
            if once_per_day and key in self.rows_per_day:
                continue
            sums = self.by_campaign.setdefault(cid, {}).setdefault(day, [0.0] * _WIDTH)
            v: Any
            for i, metric in enumerate(METRICS):
                v = row.get(metric)
                kind = type(v)
                if not ((kind is float and v - v == 0) or (kind is int and -1e300 < v < 1e300)):
                    v = number(v)  # the slow way: strings, nulls, inf, bools
                    if v is None:
                        continue
                if micros_over is not None and (
                        (i == _COST and v > micros_over[0]) or (i == _VALUE and v > micros_over[1])):
                    v /= 1e6
                sums[i] += v
            for i, share in enumerate(SHARES):
                v = row.get(share)
                if v is not None:
                    v = number(v)
                    if v is not None:
                        sums[_SHARE_SUM + i] += v
                        sums[_SHARE_COUNT + i] += 1
            self.rows_per_day[key] = self.rows_per_day.get(key, 0) + 1
        self.account: dict[date, list[float]] = {}
        for days in self.by_campaign.values():
            for day, sums in days.items():
                acc = self.account.get(day)
                if acc is None:
                    self.account[day] = list(sums)
                else:
                    for i in range(_WIDTH):
                        acc[i] += sums[i]
        self.period = _Period(data, self.account)
        self.last_row = max(self.account) if self.account else None
        self._prefix: dict[str, tuple[list[date], list[list[float]]]] = {}

    def windows(self) -> dict[str, tuple[date, date]]:
        """The derived index's fixed windows, plus ``all rows`` when rows fall outside the period."""
        out = self.period.windows(self.last_row)
        if self.account and self.period.start and self.period.end:
            first, last = min(self.account), max(self.account)
            if first < self.period.start or last > self.period.end:
                out["all rows"] = (first, last)
        return out

    def days(self, scope: str) -> dict[date, list[float]]:
        """``"account"`` or a campaign id."""
        return self.account if scope == "account" else self.by_campaign.get(scope, {})

    def window(self, scope: str, first: date, last: date) -> tuple[list[float], int]:
        """(sums, days with rows) of ``scope`` from ``first`` to ``last`` inclusive."""
        prefix = self._prefix.get(scope)
        if prefix is None:
            days = self.days(scope)
            dates = sorted(days)
            running = [0.0] * _WIDTH
            cumulative = [list(running)]
            for day in dates:
                running = [a + b for a, b in zip(running, days[day])]
                cumulative.append(running)
            prefix = self._prefix[scope] = (dates, cumulative)
        dates, cumulative = prefix
        lo, hi = bisect.bisect_left(dates, first), bisect.bisect_right(dates, last)
        if hi <= lo:
            return [0.0] * _WIDTH, 0
        return [b - a for a, b in zip(cumulative[lo], cumulative[hi])], hi - lo


def daily_totals(data: dict[str, Any]) -> DailyTotals:
    """The ``DailyTotals`` of a snapshot, kept on the snapshot (``snapshot_cache``)."""
    return cache_of(data).get("daily totals", lambda: DailyTotals(data if isinstance(data, dict) else {}))


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


def corrected_readings(data: dict[str, Any], totals: DailyTotals) -> list[tuple[DailyTotals, str]]:
    """The snapshot read with duplicate rows counted once, or with money in micros converted,
    when it has such rows (kept on the snapshot)."""
    return cache_of(data).get("corrected readings", lambda: _corrected_readings(data, totals))


def _corrected_readings(data: dict[str, Any], totals: DailyTotals) -> list[tuple[DailyTotals, str]]:
    readings = []
    if any(n > 1 for n in totals.rows_per_day.values()):
        readings.append((DailyTotals(data, once_per_day=True), DUPLICATES_ONCE))
    limits = micros_limits(_list(data.get("daily")))
    if limits is not None:
        readings.append((DailyTotals(data, micros_over=limits), MICROS_CONVERTED))
    return readings


DUPLICATES_ONCE = "duplicate rows counted once"  # the corrected readings' labels
MICROS_CONVERTED = "micros converted"
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
                     Rows("daily", first=first, last=last, once_per_day=once), _TARGET_OF_METRIC)
        # Every campaign's figures over this window, in one entry: the id is read from the name.
        # A share of the account names the campaign's rows: the account's are every row.
        index.family("campaign ", f", {window}{suffix}",
                     Rows("daily", NAMED, first, last, once_per_day=once), _TARGET_OF_METRIC)
        for cid, days in totals.by_campaign.items():
            sums, active = totals.window(cid, first, last)
            fmt = f"campaign {_literal(cid)}: {{}}, {window}{suffix}"
            window_figures(index, fmt, sums, active, calendar, target_cpa, target_roas, total)
            if active:
                index.put(fmt.format("zero-conversion days"), _zero_days(days, first, last))
    _pacing_figures(index, data, period, totals.account, totals.by_campaign, targets, suffix, once_per_day=once)
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
            index.put(f"{scope}: ads, disapproved share of ad cost", _ratio(bad_cost, cost))
            index.exact(f"{scope}: ads, disapproved cost", disapproved)
            index.exact(f"{scope}: ads, disapproved share of ad cost", disapproved, every)


def _literal(text: Any) -> str:
    """``text`` made safe inside a ``str.format`` template (campaign ids may hold braces)."""
    return str(text).replace("{", "{{").replace("}", "}}")


def calendar_days(first: date, last: date, last_row: date | None) -> int:
    """Days in a window for daily averages: cut at the last date with any rows."""
    cut = min(last, last_row) if last_row else last
    return _span_days(first, cut) if cut >= first else 0


def _zero_days(days: dict[date, list[float]], first: date, last: date) -> float:
    return float(sum(1 for d, row in days.items() if first <= d <= last and row[_CONV] == 0))


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
    cpa = _ratio(sums[_COST], sums[_CONV])
    roas = _ratio(sums[_VALUE], sums[_COST])
    out += [("CTR", _ratio(sums[_CLICKS], sums[_IMPR])), ("CPC", _ratio(sums[_COST], sums[_CLICKS])),
            ("CVR", _ratio(sums[_CONV], sums[_CLICKS])), ("CPA", cpa), ("ROAS", roas),
            ("value per conversion", _ratio(sums[_VALUE], sums[_CONV]))]
    if calendar > 1:  # a one-day window's averages are its sums
        out += [(_PER_DAY[i], _ratio(sums[i], calendar)) for i in range(len(METRICS))]
        if active != calendar:
            out += [(_PER_DAY_WITH_DATA[i], _ratio(sums[i], active)) for i in range(len(METRICS))]
        out.append(("days with data", float(active)))
    for i in range(len(SHARES)):
        if sums[_SHARE_COUNT + i]:
            out.append((_AVERAGE[i], sums[_SHARE_SUM + i] / sums[_SHARE_COUNT + i]))
    if target_cpa:
        out += [("CPA over target", _ratio(cpa, target_cpa)),
                ("CPA minus target", None if cpa is None else cpa - target_cpa)]
    if target_roas:
        out += [("ROAS over target", _ratio(roas, target_roas)),
                ("ROAS minus target", None if roas is None else roas - target_roas),
                ("target ROAS over ROAS", _ratio(target_roas, roas))]  # above 1 is worse, as CPA over target
    if account is not None:
        out += [("share of account cost", _ratio(sums[_COST], account[_COST])),
                ("share of account conversions", _ratio(sums[_CONV], account[_CONV])),
                ("share of account conversion value", _ratio(sums[_VALUE], account[_VALUE])),
                # with no target, the account's own CPA is the reference a campaign is read against
                ("CPA over account CPA", _ratio(cpa, _ratio(account[_COST], account[_CONV])))]
    return out


_PER_DAY = [f"{metric} per day" for metric in METRICS]
_PER_DAY_WITH_DATA = [f"{metric} per day with data" for metric in METRICS]
_AVERAGE = [f"average {share}" for share in SHARES]


class _Suffixed(NamedValues):
    """Puts into another NamedValues with a suffix on every name."""

    def __init__(self, target: NamedValues, suffix: str) -> None:
        self.values = target.values
        self.sources = target.sources
        self._suffix = suffix

    def put(self, name: str, value: float | None) -> None:
        super().put(name + self._suffix, value)

    def family(self, prefix: str, tail: str, *parts: "Rows") -> None:
        super().family(prefix, tail + self._suffix, *parts)

    def exact(self, name: str, *parts: "Rows") -> None:
        super().exact(name + self._suffix, *parts)


def _count_figures(
    index: NamedValues, data: dict[str, Any], by_campaign_day: dict[str, dict[date, list[float]]],
    account_day: dict[date, list[float]], row_count: dict[tuple[str, date], int], period: _Period,
) -> None:
    campaigns = [c for c in _list(data.get("campaigns")) if isinstance(c, dict)]
    index.put("count: campaigns", float(len(campaigns) or len(by_campaign_day)))
    index.put("count: enabled campaigns", float(sum(1 for c in campaigns if str(c.get("status", "")).upper() == "ENABLED")))
    index.put("count: campaigns with cost in the data",
              float(sum(1 for days in by_campaign_day.values() if any(s[_COST] > 0 for s in days.values()))))
    index.exact("count: campaigns", Rows("campaigns"))
    index.exact("count: enabled campaigns", Rows("campaigns", only="enabled"))
    index.exact("count: campaigns with cost in the data", Rows("campaigns", only="with cost"))
    duplicated = [n for n in row_count.values() if n > 1]
    index.put("count: (date, campaign) pairs with more than one row", float(len(duplicated)))
    index.put("count: extra duplicate rows", float(sum(n - 1 for n in duplicated)))
    index.exact("count: (date, campaign) pairs with more than one row", Rows("daily", only="duplicated"))
    index.exact("count: extra duplicate rows", Rows("daily", only="duplicated"))
    if period.start and period.last_complete and period.last_complete >= period.start:
        span = _span_days(period.start, period.last_complete)
        index.put("count: days to last complete day", float(span))
        present = sum(1 for d in account_day if period.start <= d <= period.last_complete)
        index.put("count: days with no rows up to last complete day", float(span - present))
        index.exact("count: days to last complete day", _PERIOD)
        index.exact("count: days with no rows up to last complete day", _PERIOD)
    # Trailing runs of zero-conversion days: "no conversions for the last 9 days".
    for scope, days in [("account", account_day), *((f"campaign {c}", d) for c, d in by_campaign_day.items())]:
        run = 0
        ordered = sorted(days, reverse=True)
        for day in ordered:
            if days[day][_CONV] != 0:
                break
            run += 1
        index.put(f"{scope}: zero-conversion days at the end of the data", float(run))
    index.exact("account: zero-conversion days at the end of the data", Rows("daily", only=_TRAILING_ZERO))
    index.family("campaign ", ": zero-conversion days at the end of the data", Rows("daily", NAMED, only=_TRAILING_ZERO))
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


def serving_windows(data: dict[str, Any]) -> dict[str, tuple[date | None, date | None]]:
    """First and last day each campaign may serve: its start/end dates, narrowed by its flight plan."""
    windows: dict[str, tuple[date | None, date | None]] = {}
    for camp in _list(data.get("campaigns")):
        if isinstance(camp, dict) and camp.get("id") is not None:
            windows[str(camp["id"])] = (parse_day(camp.get("start_date")), parse_day(camp.get("end_date")))
    for flight in _list(data.get("flight_plan")):
        if isinstance(flight, dict) and flight.get("campaign_id") is not None:
            cid = str(flight["campaign_id"])
            first, last = windows.get(cid, (None, None))
            f_first, f_last = parse_day(flight.get("start")), parse_day(flight.get("end"))
            windows[cid] = (max((d for d in (first, f_first) if d), default=None),
                            min((d for d in (last, f_last) if d), default=None))
    return windows


def _budget_campaigns(budget: dict[str, Any], campaigns: list[Any]) -> list[str]:
    """The campaigns a budget pays for: its campaign_ids, else the campaigns naming its budget_id."""
    ids = [str(c) for c in _list(budget.get("campaign_ids"))]
    if ids:
        return ids
    bid = budget.get("budget_id")
    return [str(c.get("id")) for c in campaigns
            if isinstance(c, dict) and bid is not None and str(c.get("budget_id")) == str(bid)]


def _budget_schedule(
    data: dict[str, Any], period: _Period, *, flights_at_plan: bool = False,
) -> tuple[dict[date, float], dict[str, dict[date, float]]]:
    """Planned spend per day of the period (account) and per campaign: the budget schedule in force.

    A daily budget counts at the amount in force that day (its history applied
    from the change date on), on the days one of its campaigns serves (start
    and end dates, flight plans); a MONTHLY budget counts amount / days in
    month. A flighted campaign with no budget counts its planned spend spread
    evenly over the flight; with ``flights_at_plan`` every flighted campaign
    does, instead of its budget.
    """
    account: dict[date, float] = {}
    per_campaign: dict[str, dict[date, float]] = {}
    if not (period.start and period.end) or period.end < period.start:
        return account, per_campaign
    days = [period.start + timedelta(days=i) for i in range(_span_days(period.start, period.end))]
    windows = serving_windows(data)
    campaigns = _list(data.get("campaigns"))
    flights = {}
    for flight in _list(data.get("flight_plan")):
        if isinstance(flight, dict):
            first, last = parse_day(flight.get("start")), parse_day(flight.get("end"))
            planned = number(flight.get("planned_spend"))
            if first and last and planned is not None and first <= last:
                flights[str(flight.get("campaign_id"))] = (first, last, planned / _span_days(first, last))

    def serves(cid: str, day: date) -> bool:
        first, last = windows.get(cid, (None, None))
        return (first is None or first <= day) and (last is None or day <= last)

    def add(cid: str | None, day: date, amount: float) -> None:
        account[day] = account.get(day, 0.0) + amount
        if cid is not None:
            camp = per_campaign.setdefault(cid, {})
            camp[day] = camp.get(day, 0.0) + amount

    with_budget: set[str] = set()
    for budget in _list(data.get("budgets")):
        if not isinstance(budget, dict):
            continue
        kind = str(budget.get("period") or "DAILY").upper()
        if kind not in ("DAILY", "MONTHLY"):
            continue
        cids = _budget_campaigns(budget, campaigns)
        with_budget.update(cids)
        steps = budget_steps(budget)
        for day in days:
            amount = amount_on(steps, day)
            if amount is None:
                continue
            if kind == "MONTHLY":
                amount /= period.days or len(days)
            if not cids:  # a budget tied to no campaign we know: it may serve every day
                add(None, day, amount)
                continue
            serving = [c for c in cids if serves(c, day) and not (flights_at_plan and c in flights)]
            for cid in serving:  # a shared budget is split evenly for the per-campaign view
                add(cid, day, amount / len(serving))
    for cid, (first, last, per_day) in flights.items():
        if flights_at_plan or cid not in with_budget:
            for day in days:
                if first <= day <= last:
                    add(cid, day, per_day)
    return account, per_campaign


def budget_steps(budget: dict[str, Any]) -> list[tuple[date | None, float | None]]:
    """The budget's amounts over time: ``[(None, first amount), (change date, new amount), ...]``.

    Before the first recorded change the budget stood at that change's
    old_amount; each change applies from its date on.
    """
    changes = []
    for change in _list(budget.get("history")):
        if isinstance(change, dict):
            changed_on = parse_day(change.get("changed_at"))
            if changed_on is not None:
                changes.append((changed_on, change))
    changes.sort(key=lambda c: c[0])
    amount = number(budget.get("amount"))
    if not changes:
        return [(None, amount)]
    first_old = number(changes[0][1].get("old_amount"))
    steps: list[tuple[date | None, float | None]] = [(None, first_old if first_old is not None else amount)]
    for changed_on, change in changes:
        new = number(change.get("new_amount"))
        steps.append((changed_on, new if new is not None else steps[-1][1]))
    return steps


def amount_on(steps: list[tuple[date | None, float | None]], day: date) -> float | None:
    """The amount in force on ``day`` from ``budget_steps``."""
    current = steps[0][1]
    for changed_on, amount in steps[1:]:
        if changed_on is not None and changed_on <= day:
            current = amount
    return current


def budget_in_force(budget: dict[str, Any], day: date) -> float | None:
    """The budget's amount on ``day``: history changes apply from their date on."""
    return amount_on(budget_steps(budget), day)


def _pacing_figures(
    index: NamedValues, data: dict[str, Any], period: _Period, account_day: dict[date, list[float]],
    by_campaign_day: dict[str, dict[date, list[float]]], targets: dict[str, Any], suffix: str = "",
    *, once_per_day: bool = False,
) -> None:
    """Pacing against the monthly budget and the budget schedule; ``suffix`` names a corrected
    reading of the rows (only the figures that depend on spend are repeated for it), whose
    daily rows are counted ``once_per_day`` when it is the reading without duplicates."""
    if suffix:
        index = _Suffixed(index, suffix)
    if not (period.start and period.last_complete and period.days):
        return
    start, lc, month_days = period.start, period.last_complete, period.days
    # Where the figures come from: the rows to date, the monthly budget, the budget schedule.
    spend_rows = (Rows("daily", first=start, last=lc, once_per_day=once_per_day),)
    schedule_rows = (Rows("budgets", history=True), Rows("flight_plan"))
    budget_rows: tuple[Rows, ...] = (Rows("targets", fields=("monthly_budget",)),)
    elapsed = max(0, min(month_days, _span_days(start, lc)))
    remaining = month_days - elapsed
    index.put("pacing: days in month", float(month_days))
    index.put("pacing: days elapsed", float(elapsed))
    index.put("pacing: days remaining", float(remaining))
    for name in ("days in month", "days elapsed", "days remaining", "share of month elapsed",
                 "days elapsed including as_of", "days remaining after as_of"):
        index.exact(f"pacing: {name}", _PERIOD)
    if period.as_of:
        to_as_of = max(0, min(month_days, _span_days(start, period.as_of)))
        index.put("pacing: days elapsed including as_of", float(to_as_of))
        index.put("pacing: days remaining after as_of", float(month_days - to_as_of))
    index.put("pacing: share of month elapsed", elapsed / month_days)
    spend = sum(s[_COST] for d, s in account_day.items() if start <= d <= lc)
    index.put("pacing: spend to date", spend)
    index.exact("pacing: spend to date", *spend_rows)
    last7 = sum(s[_COST] for d, s in account_day.items() if lc - timedelta(days=6) <= d <= lc)

    schedules = {"budget schedule": _budget_schedule(data, period)}
    if _list(data.get("flight_plan")):
        schedules["budget schedule with flights at planned spend"] = _budget_schedule(data, period, flights_at_plan=True)
    per_campaign = schedules["budget schedule"][1]
    budget = number(targets.get("monthly_budget"))
    scheduled: float = sum(schedules["budget schedule"][0].values())
    if budget is None and scheduled:
        budget = scheduled
        index.put("pacing: monthly budget from the budget schedule", budget)
        budget_rows = schedule_rows
        index.exact("pacing: monthly budget from the budget schedule", *schedule_rows, _PERIOD)

    projections: dict[str, float | None] = {
        "straight line": _ratio(spend * month_days, elapsed),
        "last 7 days' rate": spend + last7 / 7 * remaining,
    }
    projection_rows: dict[str, tuple[Rows, ...]] = {"straight line": (*spend_rows, _PERIOD),
                                                    "last 7 days' rate": (*spend_rows, _PERIOD)}
    expectations: dict[str, float | None] = {}
    expectation_rows: dict[str, tuple[Rows, ...]] = {}
    if budget is not None:
        expectations["straight line"] = budget * elapsed / month_days
        expectation_rows["straight line"] = (*budget_rows, _PERIOD)
        index.put("pacing: remaining budget", budget - spend)
        index.put("pacing: remaining budget per remaining day", _ratio(budget - spend, remaining))
        index.put("pacing: budget per day, straight line", budget / month_days)
        index.put("pacing: spend to date over monthly budget", _ratio(spend, budget))
        index.exact("pacing: remaining budget", *budget_rows, *spend_rows)
        index.exact("pacing: remaining budget per remaining day", *budget_rows, *spend_rows, _PERIOD)
        index.exact("pacing: budget per day, straight line", *budget_rows, _PERIOD)
        index.exact("pacing: spend to date over monthly budget", *spend_rows, *budget_rows)
    schedule = schedules["budget schedule"][0]
    for label, day in (("the last complete day", lc), ("as_of", period.as_of)):
        if day in schedule:
            index.put(f"pacing: budget schedule on {label}", schedule[day])
            index.exact(f"pacing: budget schedule on {label}", *schedule_rows)
    daily = [number(b.get("amount")) for b in _list(data.get("budgets"))
             if isinstance(b, dict) and str(b.get("period") or "DAILY").upper() == "DAILY"]
    if any(a is not None for a in daily):  # "the six daily budgets add up to 715.00 a day, 22,165.00 for March"
        total = sum(a for a in daily if a is not None)
        index.put("pacing: daily budgets, current amounts added up", total)
        index.put("pacing: daily budgets, current amounts added up, times days in month", total * month_days)
        index.exact("pacing: daily budgets, current amounts added up", Rows("budgets", only="daily"))
        index.exact("pacing: daily budgets, current amounts added up, times days in month",
                    Rows("budgets", only="daily"), _PERIOD)
    for day in sorted(schedule):  # "budgets changed by 1.9x on 2025-07-11"
        before = schedule.get(day - timedelta(days=1))
        if before and schedule[day] != before:
            index.put(f"pacing: budget schedule on {day.isoformat()} over the day before", schedule[day] / before)
            index.exact(f"pacing: budget schedule on {day.isoformat()} over the day before", *schedule_rows)
    for basis, (schedule, _) in schedules.items():
        if not schedule:
            continue
        to_date = sum(v for d, v in schedule.items() if d <= lc)
        whole = sum(schedule.values())
        last7_planned = sum(v for d, v in schedule.items() if lc - timedelta(days=6) <= d <= lc)
        expectations[basis] = to_date
        expectation_rows[basis] = schedule_rows
        index.put(f"pacing: {basis}, whole month", whole)
        index.exact(f"pacing: {basis}, whole month", *schedule_rows, _PERIOD)
        projections[basis] = spend + (whole - to_date)
        projection_rows[basis] = projection_rows[f"last 7 days' share of the {basis}"] = (*spend_rows, *schedule_rows)
        rate = _ratio(last7, last7_planned)  # the share of its schedule the account spent over the last 7 days
        if rate is not None:
            projections[f"last 7 days' share of the {basis}"] = spend + rate * (whole - to_date)
        if budget is not None and whole:
            expectations[f"monthly budget spread on the {basis}"] = budget * to_date / whole
            expectation_rows[f"monthly budget spread on the {basis}"] = (*budget_rows, *schedule_rows)
    for name, expected in expectations.items():
        index.put(f"pacing: expected spend to date, {name}", expected)
        index.put(f"pacing: spend to date over expected, {name}", _ratio(spend, expected))
        index.exact(f"pacing: expected spend to date, {name}", *expectation_rows[name])
        for what in ("spend to date over expected", "spend to date minus expected", "spend gap over expected"):
            index.exact(f"pacing: {what}, {name}", *spend_rows, *expectation_rows[name])
        if expected is not None:
            index.put(f"pacing: spend to date minus expected, {name}", spend - expected)
            index.put(f"pacing: spend gap over expected, {name}", _ratio(spend - expected, expected))
    for name, projected in projections.items():
        index.put(f"pacing: projected month-end spend, {name}", projected)
        index.exact(f"pacing: projected month-end spend, {name}", *projection_rows[name])
        if budget is not None and projected is not None:
            index.put(f"pacing: projected gap to budget, {name}", projected - budget)
            index.put(f"pacing: projected gap to budget as share, {name}", _ratio(projected - budget, budget))
            index.put(f"pacing: projected spend over budget, {name}", _ratio(projected, budget))
            for what in ("projected gap to budget", "projected gap to budget as share", "projected spend over budget"):
                index.exact(f"pacing: {what}, {name}", *projection_rows[name], *budget_rows)

    # Per campaign against its own schedule, and each day's cost against the daily budget in force.
    for cid, planned in per_campaign.items():
        days = by_campaign_day.get(cid, {})
        spent = sum(s[_COST] for d, s in days.items() if start <= d <= lc)
        expected = sum(v for d, v in planned.items() if d <= lc)
        index.put(f"campaign {cid}: expected spend to date on its schedule", expected)
        index.put(f"campaign {cid}: planned spend, whole month", sum(planned.values()))
        index.put(f"campaign {cid}: spend to date over its schedule", _ratio(spent, expected))
        index.put(f"campaign {cid}: spend to date minus its schedule", spent - expected)
    own_schedule = (Rows("budgets", NAMED, history=True), Rows("flight_plan", NAMED))
    own_spend = Rows("daily", NAMED, start, lc, once_per_day=once_per_day)
    index.family("campaign ", ": expected spend to date on its schedule", *own_schedule)
    index.family("campaign ", ": planned spend, whole month", *own_schedule)
    index.family("campaign ", ": spend to date over its schedule", own_spend, *own_schedule)
    index.family("campaign ", ": spend to date minus its schedule", own_spend, *own_schedule)
    cap = daily_cap_multiple(str(data.get("platform", "")), lc)
    if _list(data.get("budgets")):
        index.put("platform: most a day may spend, as a multiple of the daily budget", cap)
        index.exact("platform: most a day may spend, as a multiple of the daily budget", Rows("", fields=("platform",)))
        # "budget <id>: ..." names: the budget (read from the name), its history, and what each figure adds.
        index.family("budget ", "", Rows(_BUDGET_FIGURE, budget=NAMED_BUDGET, once_per_day=once_per_day))
    for budget_row in _list(data.get("budgets")):
        if not isinstance(budget_row, dict) or str(budget_row.get("period") or "DAILY").upper() != "DAILY":
            continue
        bid = budget_row.get("budget_id")
        cids = [str(c) for c in _list(budget_row.get("campaign_ids"))]
        steps = budget_steps(budget_row)
        for amount in {a for _, a in steps if a is not None}:
            index.put(f"budget {bid}: platform daily maximum ({cap:g}x) of {amount:g}", amount * cap)
        for (_, old), (changed_on, new) in zip(steps, steps[1:]):
            if old and new is not None and changed_on is not None:
                index.put(f"budget {bid}: new amount over old on {changed_on.isoformat()}", new / old)
        for day in account_day:
            in_force = amount_on(steps, day)
            day_cost = sum(by_campaign_day.get(c, {}).get(day, [0.0] * len(METRICS))[_COST] for c in cids)
            if in_force and day_cost:
                index.put(f"budget {bid}: cost over daily budget on {day.isoformat()}", day_cost / in_force)


def _search_term_figures(
    index: NamedValues, data: dict[str, Any], account_period: list[float] | None,
    by_campaign_day: dict[str, dict[date, list[float]]], period: _Period,
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
        index.put(fmt.format("zero-conversion share of search term cost"), _ratio(zero_cost, term_cost))
        if scope == "account":
            scope_cost = account_period[_COST] if account_period else None
        else:
            days = by_campaign_day.get(scope.removeprefix("campaign "), {})
            scope_cost = sum(s[_COST] for d, s in days.items() if period.start and period.end and period.start <= d <= period.end)
        index.put(fmt.format("zero-conversion share of cost, period"), _ratio(zero_cost, scope_cost))


def _total(rows: list[dict[str, Any]], key: str) -> float:
    return float(sum(number(r.get(key)) or 0.0 for r in rows))


# -- where a derived value comes from ------------------------------------------------------------

ROWS_LIMIT = 500  # pointers kept per figure in a result file; the count says how many there are in all


class Rows(NamedTuple):
    """One part of the rows a derived value is computed from, described, not listed.

    ``section``: ``daily``, ``search_terms``, ``ads``, ``campaigns``, ``budgets``, ``flight_plan``,
    an object section (``period``, ``targets``), ``""`` for top-level fields, or ``budget
    figure`` (a ``budget <id>: ...`` value: the budget and its history, plus the daily rows of
    its campaigns on the day a ``cost over daily budget on <day>`` names, or only the history
    entries of the day a ``new amount over old on <day>`` names, or the platform for its daily
    maximum). ``campaigns``: the campaign ids whose rows count (None: every row; ``NAMED``: the
    one the derived name holds). ``first``/``last``: the daily window (None: open), or, with
    ``day_from_name``, the one day the derived name ends with. ``only`` filters rows: ``zero
    conversions`` (search terms), ``disapproved`` (ads), ``enabled`` and ``with cost``
    (campaigns), ``duplicated`` (daily rows of a (date, campaign) pair that has more than one),
    ``trailing zero-conversion days`` (the daily rows of the run of zero-conversion days at the
    end of the data), ``daily`` (DAILY budgets), ``by metric`` (the target a metric such as
    ``CPA over target`` is compared with). ``once_per_day``: the first daily row of each
    (date, campaign) only. ``weekday``: daily rows of that weekday (Monday 0). ``budget``: one
    budget id (``NAMED_BUDGET``: the one the name holds); ``history``: with the budget's history
    entries. ``fields``: the fields of an object section (all of them when empty).
    """

    section: str
    campaigns: tuple[str, ...] | None = None
    first: date | None = None
    last: date | None = None
    only: str | None = None
    once_per_day: bool = False
    weekday: int | None = None
    day_from_name: bool = False
    budget: str | None = None
    history: bool = False
    fields: tuple[str, ...] = ()


_PERIOD = Rows("period")
_TARGET_OF_METRIC = Rows("targets", only="by metric")
# Placeholders: the campaign (budget) id is the part of the derived name after the family's
# prefix, up to ": " (or all of it), resolved against the snapshot's ids when rows are asked for.
NAMED = ("\0campaign named in the name",)
NAMED_BUDGET = "\0budget named in the name"
_TRAILING_ZERO = "trailing zero-conversion days"
_BUDGET_FIGURE = "budget figure"


class RowList:
    """Snapshot rows as JSON Pointers, in the order added, without repeats.

    Rows of list sections are kept as row numbers until listed, so a window of
    100,000 rows costs a list of ints, and only the first ``limit`` pointers
    are ever formatted. ``len()`` is the number of distinct rows in all.
    """

    def __init__(self) -> None:
        self._parts: list[tuple[str, list[int]] | str] = []
        self._seen: dict[str, list[int] | set[int]] = {}  # a section's first list, a set once there are two
        self._pointers: set[str] = set()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, section: str, indices: list[int]) -> None:
        """Rows ``indices`` of the list section ``section`` (no repeats within ``indices``)."""
        if not indices:
            return
        seen = self._seen.get(section)
        if seen is None:
            self._seen[section] = indices
        else:
            if isinstance(seen, list):
                seen = self._seen[section] = set(seen)
            indices = [i for i in indices if i not in seen]
            seen.update(indices)
        if indices:
            self._parts.append((section, indices))
            self._count += len(indices)

    def add_pointer(self, pointer: str) -> None:
        if pointer not in self._pointers:
            self._pointers.add(pointer)
            self._parts.append(pointer)
            self._count += 1

    def extend(self, other: "RowList") -> None:
        for part in other._parts:
            if isinstance(part, str):
                self.add_pointer(part)
            else:
                self.add(*part)

    def pointers(self, limit: int | None = ROWS_LIMIT) -> list[str]:
        """The first ``limit`` pointers (all of them with None)."""
        out: list[str] = []
        for part in self._parts:
            if limit is not None and len(out) >= limit:
                break
            if isinstance(part, str):
                out.append(part)
                continue
            section, indices = part
            prefix = f"/{escape_token(section)}/"
            take = indices if limit is None else indices[:limit - len(out)]
            out.extend(f"{prefix}{i}" for i in take)
        return out


class DailyPositions:
    """Where each daily row is, by campaign and date: built in one pass over the rows, on the
    first request for daily rows, so index building pays nothing for it."""

    def __init__(self, data: dict[str, Any]) -> None:
        entries: dict[str, list[tuple[date, int]]] = {}
        self.first_of_day: set[int] = set()  # the first row of each (date, campaign)
        self.duplicated: set[int] = set()  # every row of a (date, campaign) with more than one
        first_row: dict[tuple[str, date], int] = {}
        for i, row in enumerate(_list(data.get("daily"))):
            if not isinstance(row, dict):
                continue
            day = parse_day(row.get("date"))
            if day is None:
                continue
            cid = str(row.get("campaign_id")) if row.get("campaign_id") is not None else "(no campaign)"
            entries.setdefault(cid, []).append((day, i))
            key = (cid, day)
            first = first_row.get(key)
            if first is None:
                first_row[key] = i
                self.first_of_day.add(i)
            else:
                self.duplicated.update((first, i))
        everything = sorted(e for rows in entries.values() for e in rows)
        self._scopes: dict[str | None, tuple[list[date], list[int]]] = {None: _split(everything)}
        for cid, rows in entries.items():
            rows.sort()
            self._scopes[cid] = _split(rows)
        self.size = len(everything)

    def rows(self, campaigns: tuple[str, ...] | None, first: date | None, last: date | None, *,
             once_per_day: bool = False, weekday: int | None = None, duplicated: bool = False) -> list[int]:
        """Row numbers, in snapshot order, of the campaigns' rows (every row with None) from
        ``first`` to ``last`` inclusive (open ends with None)."""
        found: list[int] = []
        for scope in (None,) if campaigns is None else dict.fromkeys(campaigns):
            dates, indices = self._scopes.get(scope, ((), ()))
            lo = 0 if first is None else bisect.bisect_left(dates, first)
            hi = len(dates) if last is None else bisect.bisect_right(dates, last)
            if weekday is not None:
                found += [indices[k] for k in range(lo, hi) if dates[k].weekday() == weekday]
            else:
                found += indices[lo:hi]
        if once_per_day:
            found = [i for i in found if i in self.first_of_day]
        if duplicated:
            found = [i for i in found if i in self.duplicated]
        found.sort()
        return found


def _split(entries: list[tuple[date, int]]) -> tuple[list[date], list[int]]:
    return [d for d, _ in entries], [i for _, i in entries]


def daily_positions(data: dict[str, Any]) -> DailyPositions:
    """The ``DailyPositions`` of a snapshot, kept on the snapshot (``snapshot_cache``)."""
    return cache_of(data).get("daily positions", lambda: DailyPositions(data))


def rows_of(data: dict[str, Any], parts: Iterable[Rows], name_part: str = "") -> RowList:
    """The rows ``parts`` describe, in order. ``name_part``: the part of the derived name between
    its family's prefix and tail: a campaign or budget id first for ``NAMED`` parts, then a date
    for ``day_from_name`` or a metric for ``by metric``."""
    out = RowList()
    if not isinstance(data, dict):
        return out
    data = snapshot_data(data)
    for part in parts:
        rest = name_part
        if part.campaigns == NAMED:
            found = _split_id(name_part, _campaign_ids(data))
            if found is None:
                continue
            cid, rest = found
            part = part._replace(campaigns=(cid,))
        if part.budget == NAMED_BUDGET:
            found = _split_id(name_part, {str(b.get("budget_id")) for b in _list(data.get("budgets"))
                                          if isinstance(b, dict)})
            if found is None:
                continue
            bid, rest = found
            part = part._replace(budget=bid)
        _add_rows(out, data, part, rest)
    return out


def _split_id(name_part: str, known: set[str]) -> tuple[str, str] | None:
    """(id, the rest) of ``"<id>: <rest>"`` or ``"<id>"``, the id being one of ``known`` (ids may
    hold ": " themselves: the longest known one wins)."""
    if name_part in known:
        return name_part, ""
    end = name_part.rfind(": ")
    while end > 0:
        if name_part[:end] in known:
            return name_part[:end], name_part[end + 2:]
        end = name_part.rfind(": ", 0, end)
    return None


def _campaign_ids(data: dict[str, Any]) -> set[str]:
    """Every campaign id a derived name may hold, as the index wrote it."""
    return cache_of(data).get("campaign ids", lambda: _all_campaign_ids(data))


def _all_campaign_ids(data: dict[str, Any]) -> set[str]:
    found = set(daily_totals(data).by_campaign)
    for section, key in (("campaigns", "id"), ("search_terms", "campaign_id"), ("ads", "campaign_id"),
                         ("flight_plan", "campaign_id")):
        found.update(str(r.get(key)) for r in _list(data.get(section)) if isinstance(r, dict))
    for budget in _list(data.get("budgets")):
        if isinstance(budget, dict):
            found.update(str(c) for c in _list(budget.get("campaign_ids")))
    return found


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


def _in_campaigns(row: dict[str, Any], campaigns: tuple[str, ...] | None, key: str = "campaign_id") -> bool:
    return campaigns is None or str(row.get(key)) in campaigns


def _add_rows(out: RowList, data: dict[str, Any], part: Rows, name_part: str) -> None:
    section, only = part.section, part.only
    first, last = part.first, part.last
    if part.day_from_name:
        first = last = parse_day(name_part.strip()[-10:])
        if first is None:
            return
    if section == _BUDGET_FIGURE:
        _add_budget_figure_rows(out, data, part, name_part)
        return
    if only == _TRAILING_ZERO:
        days = daily_totals(data).days("account" if part.campaigns is None else part.campaigns[0])
        ordered = sorted(days, reverse=True)
        run = next((n for n, day in enumerate(ordered) if days[day][_CONV] != 0), len(ordered))
        if not run:
            return
        part, first, last, only = part._replace(only=None), ordered[run - 1], ordered[0], None
    if section == "daily":
        out.add("daily", daily_positions(data).rows(
            part.campaigns, first, last, once_per_day=part.once_per_day, weekday=part.weekday,
            duplicated=only == "duplicated"))
        return
    if section in ("search_terms", "ads", "flight_plan", "campaigns"):
        rows = _list(data.get(section))
        with_cost: set[str] = set()
        if only == "with cost":
            with_cost = {cid for cid, days in daily_totals(data).by_campaign.items()
                         if any(s[_COST] > 0 for s in days.values())}
        keep = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            if not _in_campaigns(row, part.campaigns, "id" if section == "campaigns" else "campaign_id"):
                continue
            if only == "zero conversions" and number(row.get("conversions")) != 0:
                continue
            if only == "disapproved" and str(row.get("approval_status", "")).upper() != "DISAPPROVED":
                continue
            if only == "enabled" and str(row.get("status", "")).upper() != "ENABLED":
                continue
            if only == "with cost" and str(row.get("id")) not in with_cost:
                continue
            keep.append(i)
        out.add(section, keep)
        return
    if section == "budgets":
        campaigns = _list(data.get("campaigns"))
        for i, budget in enumerate(_list(data.get("budgets"))):
            if not isinstance(budget, dict):
                continue
            if part.budget is not None and str(budget.get("budget_id")) != part.budget:
                continue
            if only == "daily" and str(budget.get("period") or "DAILY").upper() != "DAILY":
                continue
            if part.campaigns is not None and not set(part.campaigns) & set(_budget_campaigns(budget, campaigns)):
                continue
            out.add("budgets", [i])
            if part.history:
                for j, change in enumerate(_list(budget.get("history"))):
                    if isinstance(change, dict) and (not part.day_from_name
                                                     or parse_day(change.get("changed_at")) == first):
                        out.add_pointer(f"/budgets/{i}/history/{j}")
        return
    # Fields of an object section, or of the top level.
    _add_fields(out, data, section, part.fields, only, name_part)


def _add_budget_figure_rows(out: RowList, data: dict[str, Any], part: Rows, rest: str) -> None:
    """A ``budget <id>: <rest>`` value: the budget and its history, and what ``rest`` adds."""
    if rest.startswith("new amount over old on "):
        _add_rows(out, data, Rows("budgets", budget=part.budget, history=True, day_from_name=True), rest)
        return
    _add_rows(out, data, Rows("budgets", budget=part.budget, history=True), rest)
    if rest.startswith("cost over daily budget on "):
        cids: list[str] = []
        for budget in _list(data.get("budgets")):
            if isinstance(budget, dict) and str(budget.get("budget_id")) == part.budget:
                cids += [str(c) for c in _list(budget.get("campaign_ids"))]
        if cids:
            _add_rows(out, data, Rows("daily", tuple(cids), day_from_name=True, once_per_day=part.once_per_day), rest)
    elif rest.startswith("platform daily maximum"):
        _add_fields(out, data, "", ("platform",), None, rest)


def _add_fields(out: RowList, data: dict[str, Any], section: str, fields: tuple[str, ...], only: str | None,
                name_part: str) -> None:
    node = data if section == "" else data.get(section)
    if not isinstance(node, dict):
        return
    if only == "by metric":
        fields = tuple(key for word, key in (("CPA", "target_cpa"), ("ROAS", "target_roas"))
                       if word in name_part and "target" in name_part)
    elif not fields:
        fields = tuple(node)
    prefix = "" if section == "" else f"/{escape_token(section)}"
    for key in fields:
        if key in node:
            out.add_pointer(f"{prefix}/{escape_token(str(key))}")
