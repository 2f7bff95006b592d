"""Declared figures, recomputed from the rows (docs/scoring.md, "Declared figures").

From prompt audit-v4 on, a finding lists each number it writes with how it was computed, in the
vocabulary of ``figure_vocabulary.py``. ``recompute(data, items)`` recomputes every item from
the snapshot, and ``check(figure, declared)`` compares a printed figure with its recomputed
value at the printed precision (the figure reader's bounds for a declared figure: ``figures.Figure.declared_bounds``).

Sums are exact: each row's value is read as the decimal it is written as, and money is added in
``Decimal``, so 45 rows of all_conversions add up to 186.85, not 186.84999999999994. Terms the
reference auditor also uses are computed by the functions it uses, in ``reviewtui.domain`` (the
glossary's definitions): the lag model's recorded share of a day and settled days (``lag``), the
chance, the z and the trend score (``chance``), the daily budget in force, the daily cap and the
budget schedule (``budgets``), the scheduled spend, the monthly budget spread on the schedule and
the month-end projection (``pacing``), and the platforms' multiples (``thresholds``).

A declaration that cannot be recomputed (an unknown campaign or pointer, a label used before it
is declared, a literal out of range, a division by zero, a range outside the data, an item that
is not of the vocabulary) gets a clear reason; the other items of the finding are still
recomputed, and nothing here raises on any input.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_FLOOR, Decimal
from typing import Any, Callable, Iterable

from .. import figure_vocabulary as vocab
from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot import as_object as _dict
from ..caseset.snapshot_cache import cache_of
from ..caseset.snapshot_reader import PointerError, micros_limits, number, parse_day, resolve_pointer
from ..domain import chance, pacing
from ..domain.budgets import budget_campaigns, budgets_paying_for, daily_amount, daily_amounts, daily_cap_multiple, schedule_of, span_days
from ..domain.lag import LagModel
from ..domain.thresholds import DAILY_CAP, Thresholds
from .daily_totals import PeriodDates
from .figures import Figure, find_figures
from .row_provenance import RowList

ZERO = Decimal(0)
ONE = Decimal(1)
_PERCENT_KEY = ("pct", "percent")
_STOPPED = "tracking.conversions_stopped"  # the kind whose thresholds hold the lag model's parameters


def dec(value: float) -> Decimal:
    """A float as the decimal it is written as (``0.1`` is 0.1, not 0.1000000000000000055...)."""
    return Decimal(repr(float(value)))


class DeclarationError(ValueError):
    """Why a declared figure cannot be recomputed."""


@dataclass
class Declared:
    """One declared figure and what the rows give for it."""

    index: int  # its place in the finding's figures list
    label: str
    printed: str
    item: Any  # the declaration as the answer wrote it
    value: Decimal | None = None  # None when it could not be recomputed
    error: str | None = None
    what: str = ""  # what was computed, for a reviewer: "sum of cost, campaign 2188279671, 2025-05-14 to 2025-05-20"
    note: str = ""  # how it was computed, for a client: "the cost of campaign ... from 2025-05-14 to 2025-05-20"
    in_percent: bool = False  # a snapshot value already in percent (a ..._pct field)
    rows: RowList = field(default_factory=RowList)

    @property
    def figure(self) -> Figure | None:
        """``printed`` read by the figure reader (None when it is not one number)."""
        return _printed_figure(self.printed) if isinstance(self.printed, str) else None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "printed": self.printed, "declaration": self.item,
                "recomputed": None if self.value is None else float(self.value), "error": self.error,
                "what": self.what, "note": self.note}


@functools.lru_cache(maxsize=4096)
def _printed_figure(printed: str) -> Figure | None:
    """A declaration's ``printed`` read by the figure reader, once (a Figure is immutable)."""
    found = find_figures(printed)
    return found[0] if len(found) == 1 else None


def figure_key(figure: Figure) -> tuple[float, int, float, str]:
    """What makes two printed figures the same number: magnitude, decimals, scale, and whether it
    is a percentage (``€1,066.44`` in the text is the declared ``1,066.44``; ``2.1 times`` or
    ``2.1x`` the declared ``2.1``: a multiplier is its number with a word, where 21% is not 0.21)."""
    kind = "percent" if figure.unit == "percent" else "number"
    return abs(figure.value), figure.decimals, figure.scale, kind


def compared_value(figure: Figure, declared: Declared) -> float:
    """The recomputed value in the figure's own unit: a percentage is the ratio times 100 (unless
    the value is a field already in percent); the sign is not compared."""
    assert declared.value is not None
    value = abs(float(declared.value))
    return value * 100.0 if figure.unit == "percent" and not declared.in_percent else value


def check(figure: Figure, declared: Declared) -> tuple[bool, str]:
    """(does the printed figure hold the recomputed value at its printed precision, the reason)."""
    if declared.error is not None or declared.value is None:
        return False, f"declared {declared.printed!r} ({declared.label}): {declared.error}"
    value = compared_value(figure, declared)
    low, high = figure.declared_bounds
    slack = 1e-9 * max(1.0, high)
    if low - slack <= value <= high + slack:
        return True, f"declared and recomputed: {declared.what} = {_shown(value, _decimals(figure) + 2)}"
    hedge = f"{figure.approximate} " if figure.approximate else ""
    return False, (f"declared {figure.text!r} as {declared.what}; the rows give {_shown(value, _decimals(figure) + 2)} "
                   f"({hedge}{figure.text} accepts {_shown(low, _decimals(figure) + 1)} to {_shown(high, _decimals(figure) + 1)})")


def _decimals(figure: Figure) -> int:
    """The digits after the point of the figure's last printed digit, in its own unit (1.2k: none)."""
    return max(0, figure.decimals - figure.rounded_to - round(math.log10(figure.scale)) if figure.scale > 0 else 0)


def _shown(value: float, decimals: int) -> str:
    """A value at ``decimals`` digits after the point, without the trailing zeros (1,101.105; 1,101.1)."""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:,.{min(decimals, 12)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# -- the snapshot, read once for every declaration -------------------------------------------------

Row = tuple[int, date, str, tuple[Decimal | None, ...]]  # (row number, date, campaign, values by METRICS)
_METRIC_AT = {metric: i for i, metric in enumerate(vocab.METRICS)}
_SHARE_AT = {_METRIC_AT[m] for m in vocab.SHARE_METRICS}


class SnapshotRows:
    """The daily rows of one snapshot in each reading, by campaign and date, and what else a
    declaration needs (campaigns, budgets, the period). Kept on the snapshot."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        daily = _list(data.get("daily"))
        self._rows: list[Row] = []
        for i, raw in enumerate(daily):
            if not isinstance(raw, dict):
                continue
            day = parse_day(raw.get("date"))
            if day is None:
                continue
            cid = str(raw.get("campaign_id")) if raw.get("campaign_id") is not None else "(no campaign)"
            values = tuple(_decimal_of(raw.get(metric)) for metric in vocab.METRICS)
            self._rows.append((i, day, cid, values))
        self.campaigns: dict[str, str] = {}  # id -> name
        for camp in _list(data.get("campaigns")):
            if isinstance(camp, dict) and camp.get("id") is not None:
                self.campaigns[str(camp["id"])] = str(camp.get("name") or "")
        for _, _, cid, _ in self._rows:
            self.campaigns.setdefault(cid, "")
        self.period = PeriodDates(data, [day for _, day, _, _ in self._rows])
        self._micros = micros_limits(daily)
        self._readings: dict[str, dict[str, tuple[list[date], list[Row]]]] = {}
        self._credited: dict[date, Decimal] | None = None
        self._extents: dict[str, tuple[date, date] | None] = {}

    def reading(self, name: str) -> dict[str, tuple[list[date], list[Row]]]:
        """campaign -> (dates, rows) sorted by date, for one reading of the rows."""
        found = self._readings.get(name)
        if found is None:
            found = self._readings[name] = _by_campaign(self._read(name))
        return found

    def _read(self, name: str) -> list[Row]:
        rows = self._rows
        if name == "duplicates_removed":
            seen: set[tuple[str, date]] = set()
            kept = []
            for row in rows:
                if (row[2], row[1]) not in seen:
                    seen.add((row[2], row[1]))
                    kept.append(row)
            return kept
        if name == "micros_converted" and self._micros is not None:
            cost_limit, value_limit = self._micros
            cost, value, million = _METRIC_AT["cost"], _METRIC_AT["conversions_value"], Decimal(1_000_000)
            out = []
            for i, day, cid, values in rows:
                fixed = list(values)
                for at, limit in ((cost, cost_limit), (value, value_limit)):
                    v = fixed[at]
                    if v is not None and float(v) > limit:
                        fixed[at] = v / million
                out.append((i, day, cid, tuple(fixed)))
            return out
        if name in ("shifted_one_day_later", "shifted_one_day_earlier"):
            step = timedelta(days=1 if name == "shifted_one_day_later" else -1)
            return [(i, day + step, cid, values) for i, day, cid, values in rows]
        if name == "partial_day_left_out" and self.period.last_complete is not None:
            return [row for row in rows if row[1] <= self.period.last_complete]
        return rows

    def date_extent(self, reading: str) -> tuple[date, date] | None:
        """The first and last day a range may name: the period and the rows' dates (in this reading);
        read once a reading (a pass over every campaign: each declared range is checked against it)."""
        if reading not in self._extents:
            days = [d for dates, _ in self.reading(reading).values() for d in (dates[:1] + dates[-1:])]
            days += [d for d in (self.period.start, self.period.end) if d is not None]
            self._extents[reading] = (min(days), max(days)) if days else None
        return self._extents[reading]

    def credited(self, day: date) -> Decimal:
        """The share of ``day``'s conversions recorded by as_of, under the reference auditor's lag model."""
        if self._credited is None:
            self._credited = {}
        found = self._credited.get(day)
        if found is None:
            found = self._credited[day] = dec(lag_share(self.data, day))
        return found


def lag_share(data: dict[str, Any], day: date) -> float:
    """The share of ``day``'s conversions recorded by as_of, under the reference auditor's lag model."""
    return _model_of(data).credited(day)


def _model_of(data: dict[str, Any]) -> LagModel:
    return cache_of(data).get("lag model", lambda: _lag_model(data))


def _decimal_of(value: Any) -> Decimal | None:
    n = number(value)
    if n is None:
        return None
    if not n:
        return dec(n)  # 0.0 and -0.0 are equal but written apart
    found = _DECIMALS.get(n)
    if found is None:
        found = dec(n)
        if len(_DECIMALS) < 100_000:
            _DECIMALS[n] = found
    return found


_DECIMALS: dict[float, Decimal] = {}  # a row value -> its decimal: rows repeat values, and a Decimal is immutable


def _by_campaign(rows: list[Row]) -> dict[str, tuple[list[date], list[Row]]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row[2], []).append(row)
    out = {}
    for cid, group in grouped.items():
        group.sort(key=lambda r: (r[1], r[0]))
        out[cid] = ([r[1] for r in group], group)
    return out


def snapshot_rows(data: dict[str, Any]) -> SnapshotRows:
    return cache_of(data).get("declared figures: rows", lambda: SnapshotRows(data if isinstance(data, dict) else {}))


def _lag_model(data: dict[str, Any]) -> LagModel:
    """The reference auditor's lag model of this snapshot (the thresholds of tracking.conversions_stopped)."""
    t = Thresholds().of(_STOPPED)
    as_of = parse_day(_dict(data.get("period")).get("as_of"))
    return LagModel.for_actions(as_of, _list(data.get("conversion_actions")), t.number("lag_tau_days"),
                                t.number("lag_complete_share"))


def constant(name: str) -> Decimal:
    """A named constant of the vocabulary (the platforms' multiples from taxonomy.yaml)."""
    if name == "micros_factor":
        return Decimal(1_000_000)
    key = {"google_daily_multiple": "google_multiple", "meta_daily_multiple": "meta_multiple",
           "meta_flexible_daily_multiple": "meta_flexible_multiple"}[name]
    return dec(Thresholds().of(DAILY_CAP).number(key))


# -- recomputing a finding's declarations ---------------------------------------------------------


def recompute(data: dict[str, Any], items: list[Any], invalid: dict[int, str] | None = None) -> list[Declared]:
    """Every declared figure of one finding, recomputed; ``invalid`` gives the items the parser
    found not to be of the vocabulary (by place), with its message."""
    invalid = invalid or {}
    rows = snapshot_rows(data)
    out: list[Declared] = []
    by_label: dict[str, Declared] = {}
    labels_at: dict[str, int] = {}
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("label"), str):
            labels_at.setdefault(item["label"], i)
    limit = vocab.MAX_FIGURES_PER_FINDING
    for i, item in enumerate(items[:limit]):
        entry = _declared_from(i, item)
        out.append(entry)
        try:
            if not isinstance(item, dict):
                raise DeclarationError(f"figure {i + 1} is {_kind_of(item)}, not an object of the figures vocabulary")
            if i in invalid:
                raise DeclarationError(f"not of the figures vocabulary: {invalid[i]}")
            if entry.figure is None:
                raise DeclarationError(f"printed {entry.printed!r} is not one number")
            if entry.label in by_label:
                raise DeclarationError(f"label {entry.label!r} is declared twice in this finding "
                                       f"(figures {by_label[entry.label].index + 1} and {i + 1})")
            _compute(entry, item, rows, by_label, labels_at)
        except DeclarationError as exc:
            entry.value, entry.error = None, str(exc)
        except (ArithmeticError, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
            # the vocabulary's arithmetic on hostile numbers: one reason, never a crash
            entry.value, entry.error = None, f"cannot be computed: {type(exc).__name__}: {exc}"
        if entry.label not in by_label:
            by_label[entry.label] = entry
    if len(items) > limit:
        extra = Declared(limit, "", "", None, error=(
            f"{len(items) - limit:,} more declared figures past the limit of {limit} a finding were not recomputed"))
        out.append(extra)
    return out


def _declared_from(i: int, item: Any) -> Declared:
    if not isinstance(item, dict):
        return Declared(i, f"#{i + 1}", str(item)[:40], item)
    label, printed = item.get("label"), item.get("printed")
    label = label if isinstance(label, str) else f"#{i + 1}"
    printed = printed if isinstance(printed, str) else str(printed if printed is not None else "")
    return Declared(i, label, printed, item)


def _compute(entry: Declared, item: dict[str, Any], rows: SnapshotRows, by_label: dict[str, Declared],
             labels_at: dict[str, int]) -> None:
    how = item.get("how")
    compute = _FORMS.get(how) if isinstance(how, str) else None
    if compute is None:
        raise DeclarationError(f"how {how!r} is not one of {', '.join(vocab.FORMS)}")
    if how == vocab.CALC:
        _calc(entry, item, rows, by_label, labels_at)
    else:
        compute(entry, item, rows)


def _strings(item: dict[str, Any], key: str) -> list[str]:
    value = item.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DeclarationError(f"{key} must be a list of strings")
    return value


def _day(item: dict[str, Any], key: str) -> date:
    value = item.get(key)
    day = parse_day(value) if isinstance(value, str) and len(value) == 10 else None
    if day is None:
        raise DeclarationError(f"{key} {value!r} is not a date written YYYY-MM-DD")
    return day


def _range(item: dict[str, Any], rows: SnapshotRows, reading: str = "as_is") -> tuple[date, date]:
    first, last = _day(item, "from"), _day(item, "to")
    if first > last:
        raise DeclarationError(f"from {first} is after to {last}")
    extent = rows.date_extent(reading)
    if extent is not None and (first < extent[0] or last > extent[1]):
        raise DeclarationError(f"{first} to {last} is outside the period and the rows' dates "
                               f"({extent[0]} to {extent[1]})")
    return first, last


def _campaign_ids(item: dict[str, Any], key: str, rows: SnapshotRows) -> list[str]:
    ids = _strings(item, key)
    unknown = [cid for cid in ids if cid not in rows.campaigns]
    if unknown:
        raise DeclarationError(f"{key}: no campaign {', '.join(map(repr, unknown))} in the snapshot")
    return ids


def _scope_words(campaigns: list[str], excluded: list[str], rows: SnapshotRows, *, client: bool = False) -> str:
    def name(cid: str) -> str:
        label = rows.campaigns.get(cid) or ""
        return f"campaign {label} ({cid})" if client and label else f"campaign {cid}"

    if campaigns:
        return ", ".join(name(c) for c in campaigns) if len(campaigns) < 4 else f"{len(campaigns)} campaigns ({', '.join(campaigns)})"
    if excluded:
        return "the account without " + ", ".join(name(c) for c in excluded)
    return "the account"


def _value(entry: Declared, item: dict[str, Any], rows: SnapshotRows) -> None:
    pointer = item.get("pointer")
    if not isinstance(pointer, str):
        raise DeclarationError("pointer must be a string")
    try:
        found = resolve_pointer(rows.data, pointer)
    except PointerError as exc:
        raise DeclarationError(f"pointer {pointer!r} does not resolve: {exc}") from None
    value = number(found) if not isinstance(found, (dict, list)) else None
    if value is None:
        raise DeclarationError(f"pointer {pointer!r} names {_kind_of(found)}, not a number")
    entry.value = dec(value)
    key = pointer.rsplit("/", 1)[-1].lower()
    entry.in_percent = any(word in key for word in _PERCENT_KEY)
    entry.what = f"the snapshot value {pointer}"
    entry.note = _value_note(rows, pointer)
    entry.rows.add_pointer(pointer)


def _value_note(rows: SnapshotRows, pointer: str) -> str:
    """A snapshot value in a client's words: "the cost of campaign Brand (111) on 2025-03-04"."""
    parts = pointer.split("/")
    field = parts[-1].replace("_", " ")
    if len(parts) == 4 and parts[1] in ("daily", "search_terms", "ads") and parts[2].isdigit():
        try:
            row = resolve_pointer(rows.data, "/".join(parts[:3]))
        except PointerError:
            row = None
        if isinstance(row, dict):
            cid = str(row.get("campaign_id") or "")
            campaign = f"campaign {rows.campaigns.get(cid) or ''} ({cid})".replace("  (", " (") if cid else "the account"
            if parts[1] == "daily":
                return f"the {field} of {campaign} on {row.get('date')}"
            if parts[1] == "search_terms":
                return f"the {field} of the search term \"{row.get('search_term')}\" in {campaign}"
            return f"the {field} of ad {row.get('ad_id') or row.get('id') or parts[2]} in {campaign}"
    return f"the {field} in the account's data ({pointer})"


def _kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"{value!r}"


# What each aggregate stat reads: (numerator metric or None for the declared metric, denominator).
_RATES: dict[str, tuple[str, str]] = {
    "cpa": ("cost", "conversions"), "roas": ("conversions_value", "cost"), "ctr": ("clicks", "impressions"),
    "cpc": ("cost", "clicks"), "cvr": ("conversions", "clicks"), "value_per_conversion": ("conversions_value", "conversions"),
}
_STAT_WORDS = {"sum": "sum of {m}", "per_day": "{m} per day", "mean": "mean {m}", "share": "share of the account's {m}",
               "lag_adjusted": "{m} weighted by the share of each day's conversions recorded by as_of",
               "cpa": "CPA", "roas": "ROAS", "ctr": "CTR", "cpc": "CPC", "cvr": "conversion rate",
               "value_per_conversion": "value per conversion", "days": "calendar days",
               "trend_z": "trend score of conversions per cost over the settled days",
               "projection": "month-end projection of {m} (on the budget schedule)"}
_CLIENT_STAT_WORDS = {"sum": "the total {m}", "per_day": "the average {m} per day", "mean": "the average {m}",
                      "share": "the share of the account's {m}",
                      "lag_adjusted": "the {m}, each day counted by the share of its conversions already recorded",
                      "cpa": "the cost per conversion", "roas": "the conversion value per unit of cost",
                      "ctr": "the click-through rate", "cpc": "the cost per click", "cvr": "the conversion rate",
                      "value_per_conversion": "the value per conversion", "days": "the number of days",
                      "trend_z": "the trend in conversions per unit of cost, day by day (a score; below -2 a clear rise in cost per conversion)",
                      "projection": "the spend projected to the end of the month at the recent pace against the planned budgets"}
_READING_WORDS = {"duplicates_removed": "duplicate rows removed", "micros_converted": "costs in micros converted",
                  "shifted_one_day_later": "rows moved one day later", "shifted_one_day_earlier": "rows moved one day earlier",
                  "invalid_rows_left_out": "invalid rows left out", "partial_day_left_out": "the partial last day left out"}


def _aggregate(entry: Declared, item: dict[str, Any], rows: SnapshotRows) -> None:
    stat, metric, reading = item.get("stat"), item.get("metric", ""), item.get("reading", "as_is")
    if stat not in vocab.AGGREGATE_STATS:
        raise DeclarationError(f"stat {stat!r} is not one of {', '.join(vocab.AGGREGATE_STATS)}")
    if reading not in vocab.READINGS:
        raise DeclarationError(f"reading {reading!r} is not one of {', '.join(vocab.READINGS)}")
    campaigns = _campaign_ids(item, "campaigns", rows)
    excluded = _campaign_ids(item, "except", rows)
    if campaigns and excluded:
        raise DeclarationError("except is for the rest of the account: campaigns must then be empty")
    first, last = _range(item, rows, reading)
    days = span_days(first, last)
    scope = _scope_words(campaigns, excluded, rows)
    span = f"{first} to {last}" if first != last else f"on {first}"
    read = f" ({_READING_WORDS[reading]})" if reading in _READING_WORDS else ""
    if stat in _RATES:
        used = list(_RATES[stat])
        metric_words = ""
    elif stat in ("days", "trend_z"):
        used, metric_words = (["cost", "conversions"] if stat == "trend_z" else []), ""
    elif stat == "projection":
        if metric != "cost":
            raise DeclarationError(f"stat projection projects cost: metric must be 'cost' (got {metric!r})")
        if excluded:
            raise DeclarationError("stat projection is of the account or of campaigns: except must be empty")
        used, metric_words = [metric], metric
    else:
        if metric not in vocab.METRICS:
            raise DeclarationError(f"stat {stat} needs a metric, one of {', '.join(vocab.METRICS)} (got {metric!r})")
        used, metric_words = [metric], metric
    entry.what = f"{_STAT_WORDS[stat].format(m=metric_words)}, {scope}, {span}{read}"
    entry.note = (f"{_CLIENT_STAT_WORDS[stat].format(m=metric_words.replace('_', ' '))} of "
                  f"{_scope_words(campaigns, excluded, rows, client=True)}, {span}{read}")
    if stat == "days":
        entry.value = Decimal(days)
        return
    chosen = set(campaigns) if campaigns else set(rows.campaigns) - set(excluded)
    sums, counts, weighted, indices = _sums(rows, reading, chosen, first, last, used)
    entry.rows.add("daily", indices)
    if stat == "trend_z":
        entry.value = dec(chance.trend_z(_settled_days(rows, reading, chosen, first, last)))
    elif stat == "projection":
        entry.value = _projection(rows, reading, chosen if campaigns else None, first, last, sums[metric])
    elif stat == "sum":
        entry.value = sums[metric]
    elif stat == "per_day":
        entry.value = sums[metric] / days
    elif stat == "mean":
        entry.value = _divide(sums[metric], Decimal(counts[metric]), f"no row has {metric} in that range")
    elif stat == "lag_adjusted":
        entry.value = weighted
    elif stat == "share":
        account, _, _, _ = _sums(rows, reading, set(rows.campaigns), first, last, used)
        entry.value = _divide(sums[metric], account[metric], f"the account's {metric} is 0 over that range")
    else:
        top, bottom = _RATES[stat]
        entry.value = _divide(sums[top], sums[bottom], f"{bottom} is 0 over that range")


def _settled_days(rows: SnapshotRows, reading: str, campaigns: set[str], first: date, last: date) -> list[tuple[float, float]]:
    """(cost, conversions) of ``campaigns`` on each settled day from..to, up to the last complete day,
    on which the account has rows, in date order: the days the auditor's trend score reads (a day
    the account has and the scope has not counts (0, 0))."""
    model = _model_of(rows.data)
    end = min(last, rows.period.last_complete) if rows.period.last_complete else last
    everyone = set(rows.campaigns)
    out = []
    day = first
    while day <= end:
        if model.settled(day) and _sums(rows, reading, everyone, day, day, ["cost"])[3]:
            sums = _sums(rows, reading, campaigns, day, day, ["cost", "conversions"])[0]
            out.append((float(sums["cost"]), float(sums["conversions"])))
        day += timedelta(days=1)
    return out


def _projection(rows: SnapshotRows, reading: str, campaigns: set[str] | None, first: date, last: date,
                spend: Decimal) -> Decimal:
    """The glossary's month-end projection of the scope's spend from..to (``pacing.month_end_projection``;
    the last 7 days' run rate when those days had no scheduled spend)."""
    period = rows.period
    if period.end is None or last > period.end:
        raise DeclarationError("stat projection: to must be a day of the period (the last complete day)")
    first7, last7 = pacing.last_seven_days(last)
    seven = _sums(rows, reading, campaigns if campaigns is not None else set(rows.campaigns), first7, last7, ["cost"])[0]["cost"]
    projected = pacing.month_end_projection(float(spend), float(seven), _schedule(rows, campaigns), last)
    if projected is None:
        projected = pacing.run_rate_projection(float(spend), float(seven), (period.end - last).days)
    return dec(projected)


def _divide(a: Decimal, b: Decimal, why: str) -> Decimal:
    if b == 0:
        raise DeclarationError(f"division by zero: {why}")
    return a / b


def _sums(rows: SnapshotRows, reading: str, campaigns: set[str], first: date, last: date, used: list[str],
          ) -> tuple[dict[str, Decimal], dict[str, int], Decimal, list[int]]:
    """(sum per metric, rows having it, the first metric weighted by the lag model's recorded share,
    the row numbers read)."""
    by_campaign = rows.reading("as_is" if reading == "invalid_rows_left_out" else reading)
    at = [_METRIC_AT[m] for m in used]
    sums = {m: ZERO for m in used}
    counts = {m: 0 for m in used}
    weighted = ZERO
    indices: list[int] = []
    clicks_at, impressions_at = _METRIC_AT["clicks"], _METRIC_AT["impressions"]
    checks_clicks = reading == "invalid_rows_left_out" and bool({clicks_at, impressions_at} & set(at))
    for cid in campaigns:
        found = by_campaign.get(cid)
        if found is None:
            continue
        dates, group = found
        for row in group[bisect.bisect_left(dates, first):bisect.bisect_right(dates, last)]:
            values = row[3]
            if reading == "invalid_rows_left_out" and _invalid(values, at, checks_clicks, clicks_at, impressions_at):
                continue
            indices.append(row[0])
            for metric, k in zip(used, at):
                v = values[k]
                if v is not None:
                    sums[metric] += v
                    counts[metric] += 1
                    if metric == used[0]:
                        weighted += v * rows.credited(row[1])
    indices.sort()
    return sums, counts, weighted, indices


def _invalid(values: tuple[Decimal | None, ...], at: list[int], checks_clicks: bool, clicks_at: int, impressions_at: int) -> bool:
    for k in at:
        v = values[k]
        if v is not None and (v < 0 or (k in _SHARE_AT and v > 1)):
            return True
    if checks_clicks:
        clicks, impressions = values[clicks_at], values[impressions_at]
        if clicks is not None and impressions is not None and clicks > impressions:
            return True
    return False


def _rows_form(entry: Declared, item: dict[str, Any], rows: SnapshotRows) -> None:
    stat, key = item.get("stat"), item.get("field", "")
    if stat not in vocab.ROWS_STATS:
        raise DeclarationError(f"stat {stat!r} is not one of {', '.join(vocab.ROWS_STATS)}")
    if not isinstance(key, str):
        raise DeclarationError("field must be a string")
    pointers = _strings(item, "pointers")
    if not pointers:
        raise DeclarationError("pointers is empty")
    values: list[Decimal] = []
    for pointer in pointers:
        try:
            found = resolve_pointer(rows.data, pointer)
        except PointerError as exc:
            raise DeclarationError(f"pointer {pointer!r} does not resolve: {exc}") from None
        entry.rows.add_pointer(pointer)
        if stat == "count":
            continue
        raw = found.get(key) if isinstance(found, dict) and key else (found if not key else None)
        value = number(raw) if not isinstance(raw, (dict, list)) else None
        if value is None:
            where = f"{pointer}/{key}" if key else pointer
            raise DeclarationError(f"{where} is {_kind_of(raw) if raw is not None else 'missing'}, not a number")
        values.append(dec(value))
    field_words = key or "items"
    entry.what = f"{stat} of {field_words} over {len(pointers)} snapshot items ({_short_list(pointers)})"
    entry.note = (f"the number of the {len(pointers)} items listed" if stat == "count" else
                  f"the {'total' if stat == 'sum' else stat} {field_words} of the {len(pointers)} items listed")
    if stat == "count":
        entry.value = Decimal(len(pointers))
    elif stat == "sum":
        entry.value = sum(values, ZERO)
    elif stat == "mean":
        entry.value = sum(values, ZERO) / len(values)
    else:
        entry.value = min(values) if stat == "min" else max(values)


def _short_list(items: list[str], most: int = 3) -> str:
    return ", ".join(items[:most]) + (f" and {len(items) - most} more" if len(items) > most else "")


def _budget(entry: Declared, item: dict[str, Any], rows: SnapshotRows) -> None:
    what = item.get("what")
    if what not in vocab.BUDGET_WHATS:
        raise DeclarationError(f"what {what!r} is not one of {', '.join(vocab.BUDGET_WHATS)}")
    campaigns = _campaign_ids(item, "campaigns", rows)
    first, last = _range(item, rows)
    budget_ids = _strings(item, "budgets")
    span = f"{first} to {last}" if first != last else f"on {first}"
    period = rows.period
    if what in ("monthly", "monthly_spread"):
        if campaigns or budget_ids:
            raise DeclarationError(f"what {what}: the monthly budget is the account's (campaigns and budgets must be empty)")
        schedule = _schedule(rows, None)
        monthly = pacing.monthly_budget(_dict(rows.data.get("targets")), schedule)
        if monthly is None:
            raise DeclarationError("the snapshot has no monthly budget and the budget schedule plans no spend")
        entry.rows.add_pointer("/targets/monthly_budget")
        if what == "monthly":
            entry.value = dec(monthly)
            entry.what, entry.note = "the monthly budget (targets.monthly_budget, else the budget schedule's total)", "the monthly budget"
            return
        spread = pacing.spread_on_schedule(monthly, schedule, last, first=first)
        if spread is None:
            raise DeclarationError("division by zero: the budget schedule plans no spend in the period")
        entry.value = dec(spread)
        entry.what = f"the monthly budget spread over {span} in proportion to the budget schedule"
        entry.note = f"the part of the monthly budget planned for {span}"
        return
    chosen, scope = _budgets_of(rows, campaigns, budget_ids)
    for i, _ in chosen:
        entry.rows.add("budgets", [i])
    budgets = [b for _, b in chosen]
    if what == "daily_in_force":
        entry.value = dec(daily_amount(budgets, first, period.days))
        entry.what, entry.note = f"the daily budget of {scope} in force on {first}", f"the daily budget of {scope} on {first}"
    elif what == "daily_sum":
        in_force = daily_amounts(budgets, period.days)
        entry.value = sum((dec(in_force(first + timedelta(days=k))) for k in range(span_days(first, last))), ZERO)
        entry.what = f"the daily budget of {scope} in force on each day, added up, {span}"
        entry.note = f"the daily budget of {scope} times the {span_days(first, last)} days {span}"
    elif what == "cap":
        multiple = dec(daily_cap_multiple(str(rows.data.get("platform") or ""), first))
        entry.value = multiple * dec(daily_amount(budgets, first, period.days, cap_day=True))
        entry.what = (f"the platform's daily maximum ({multiple}x) of the daily budget of {scope} on {first} "
                      "(on the day of a change, the higher of the old and new amount)")
        entry.note = f"the most the platform lets {scope} spend in one day on {first} ({multiple} times its daily budget)"
    else:  # scheduled
        ids = None if not (campaigns or budget_ids) else _campaigns_of(rows, chosen, campaigns)
        entry.value = dec(pacing.scheduled_spend(_schedule(rows, ids), first, last))
        entry.what = f"the budget schedule's planned spend of {scope}, {span}"
        entry.note = f"the spend planned by the budgets of {scope}, {span}"


def _schedule(rows: SnapshotRows, campaigns: set[str] | None) -> pacing.Schedule:
    """The budget schedule of the account (None) or of some campaigns, added up per day."""
    if rows.period.start is None:
        raise DeclarationError("the snapshot has no period to read the budget schedule from")
    account, per_campaign = schedule_of(rows.data, rows.period)
    if campaigns is None:
        return account
    out: dict[date, float] = {}
    for cid in campaigns:
        for day, amount in per_campaign.get(cid, {}).items():
            out[day] = out.get(day, 0.0) + amount
    return out


def _budgets_of(rows: SnapshotRows, campaigns: list[str], budget_ids: list[str]) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """The budgets (row number, budget) a budget figure reads, and their name for a reason."""
    every = [(i, b) for i, b in enumerate(_list(rows.data.get("budgets"))) if isinstance(b, dict)]
    campaign_list = _list(rows.data.get("campaigns"))
    if budget_ids:
        known = {str(b.get("budget_id")): (i, b) for i, b in every}
        unknown = [b for b in budget_ids if b not in known]
        if unknown:
            raise DeclarationError(f"budgets: no budget {', '.join(map(repr, unknown))} in the snapshot")
        return [known[b] for b in budget_ids], "budget " + ", ".join(budget_ids)
    if campaigns:
        chosen = budgets_paying_for(rows.data, campaigns)
        missing = [c for c in campaigns if not any(c in budget_campaigns(b, campaign_list) for _, b in chosen)]
        if missing:
            raise DeclarationError(f"campaigns: no budget pays for campaign {', '.join(missing)}")
        return chosen, "campaign " + ", ".join(campaigns)
    return every, "the account's budgets"


def _campaigns_of(rows: SnapshotRows, chosen: list[tuple[int, dict[str, Any]]], campaigns: list[str]) -> set[str]:
    if campaigns:
        return set(campaigns)
    campaign_list = _list(rows.data.get("campaigns"))
    return {c for _, b in chosen for c in budget_campaigns(b, campaign_list)}


_OP_WORDS = {"add": " + ", "subtract": " - ", "multiply": " x ", "divide": " / "}
_CLIENT_OP_WORDS = {"add": " plus ", "subtract": " minus ", "multiply": " times ", "divide": " divided by "}


def _calc(entry: Declared, item: dict[str, Any], rows: SnapshotRows, by_label: dict[str, Declared],
          labels_at: dict[str, int]) -> None:
    op = item.get("op")
    if op not in vocab.OPS:
        raise DeclarationError(f"op {op!r} is not one of {', '.join(vocab.OPS)}")
    args = _strings(item, "args")
    fewest, most = vocab.OP_ARITY[op]
    if not fewest <= len(args) <= most:
        raise DeclarationError(f"op {op} takes {fewest}{'' if fewest == most else f' to {most}'} arguments, got {len(args)}")
    values: list[Decimal] = []
    shown: list[str] = []
    for arg in args:
        value, text = _argument(arg, entry, by_label, labels_at)
        values.append(value)
        shown.append(text)
    for arg in args:
        if arg in by_label:
            entry.rows.extend(by_label[arg].rows)
    a, b = values[0], values[-1]
    if op == "add":
        entry.value = sum(values, ZERO)
    elif op == "subtract":
        entry.value = a - b
    elif op == "multiply":
        product = ONE
        for v in values:
            product *= v
        entry.value = product
    elif op == "divide":
        entry.value = _divide(a, b, f"{args[1]} is 0")
    elif op == "percent_change":
        entry.value = _divide(b - a, a, f"{args[0]} is 0")
    elif op == "floor":
        entry.value = a.to_integral_value(rounding=ROUND_FLOOR)
    elif op == "min":
        entry.value = min(values)
    elif op == "max":
        entry.value = max(values)
    elif op == "chance_at_most":
        if b < 0 or a < 0:
            raise DeclarationError("chance_at_most needs counts that are not negative")
        entry.value = dec(chance.poisson_at_most(float(a), float(b)))
    else:  # z_score
        if b <= 0:
            raise DeclarationError(f"z_score needs an expected count above 0 ({args[1]} is {b})")
        entry.value = dec(chance.poisson_z(float(a), float(b)))
    if op in _OP_WORDS:
        entry.what = _OP_WORDS[op].join(shown)
        entry.note = _CLIENT_OP_WORDS[op].join(shown)
    elif op == "percent_change":
        entry.what = entry.note = f"the change from {shown[0]} to {shown[1]}"
    elif op == "floor":
        entry.what = entry.note = f"{shown[0]} rounded down"
    elif op in ("min", "max"):
        entry.what = entry.note = f"the {'smaller' if op == 'min' else 'larger'} of {', '.join(shown)}"
    elif op == "chance_at_most":
        entry.what = f"the Poisson chance of at most {shown[0]} when {shown[1]} are expected"
        entry.note = f"the chance of seeing {shown[0]} or fewer when {shown[1]} are expected"
    else:
        entry.what = f"({shown[0]} - {shown[1]}) / sqrt({shown[1]})"
        entry.note = f"how many standard deviations {shown[0]} is from the {shown[1]} expected"


def _argument(arg: str, entry: Declared, by_label: dict[str, Declared], labels_at: dict[str, int]) -> tuple[Decimal, str]:
    if arg in vocab.CONSTANTS:
        value = constant(arg)
        return value, f"{arg} ({value.normalize():f})"
    if arg.isdigit():
        n = int(arg)
        if n > vocab.LITERAL_MAX:
            raise DeclarationError(f"the literal {arg} is out of range (whole numbers 0 to {vocab.LITERAL_MAX})")
        return Decimal(n), arg
    if arg == entry.label:
        raise DeclarationError(f"args: {arg!r} is this figure itself (a cycle)")
    found = by_label.get(arg)
    if found is None:
        if arg in labels_at and labels_at[arg] > entry.index:
            raise DeclarationError(f"args: {arg!r} is declared after this figure (a calc uses figures declared before it)")
        raise DeclarationError(f"args: {arg!r} is not a label declared in this finding, a whole number 0 to "
                               f"{vocab.LITERAL_MAX} or a constant ({', '.join(vocab.CONSTANTS)})")
    if found.value is None:
        raise DeclarationError(f"args: {arg} could not be recomputed ({found.error})")
    return found.value, found.printed or arg


_FORMS: dict[str, Callable[..., None]] = {
    vocab.VALUE: _value, vocab.AGGREGATE: _aggregate, vocab.ROWS: _rows_form, vocab.BUDGET: _budget, vocab.CALC: _calc,
}


def how_computed(declared: Declared) -> str:
    """A short note a client can follow: how the figure was computed from the account's data."""
    if declared.error is not None or not declared.note:
        return ""
    return declared.note[0].upper() + declared.note[1:] + "."


def how_computed_notes(figure_rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """How each figure a finding's text prints was computed, from its scored figure rows: the printed
    text -> ``how_computed``'s note as a sentence, for the figures that were declared and recomputed;
    empty when none was (a prose answer)."""
    notes: dict[str, str] = {}
    for row in figure_rows:
        found = row.get("declared")
        if isinstance(found, dict) and row.get("grounded") and row.get("field") != "figures" and found.get("note"):
            note = str(found["note"])
            notes.setdefault(str(row.get("text")), note[0].upper() + note[1:] + ".")
    return notes


def declared_by_key(entries: Iterable[Declared]) -> dict[tuple[float, int, float, str], Declared]:
    """The declarations by the number they print (the first of two that print the same number)."""
    out: dict[tuple[float, int, float, str], Declared] = {}
    for entry in entries:
        figure = entry.figure
        if figure is not None:
            out.setdefault(figure_key(figure), entry)
    return out
