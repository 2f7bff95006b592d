"""``tracking.*``: conversions that stop, step down, double, lose their value or their action.

Every test here is lag-aware: a day's expected conversions are its clicks
times the rate before the change times the share of that day already
credited by as_of (``lag.py``). A stop is a run of exact zeros the expected
count makes implausible (Poisson); a taper inside the lag window is not.
Before calling a drop a broken tag, ``all_conversions`` is checked: if it
holds, an action was demoted (``tracking.primary_action_changed``), which is
looked for first, from the change events.

Every one of those reads the account against itself, so an account that never
recorded conversions looks consistent. Absent tracking is checked first, against
a floor rate no tracked account falls under (``tracking.no_conversion_tracking``);
found, it leaves every reading of conversions not assessed (its ``withholds``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from functools import reduce
from itertools import accumulate
from operator import add, mul
from typing import Iterable, Iterator, NamedTuple

from ..domain.chance import log_likelihood_ratio, poisson_at_most, poisson_z, poisson_zero
from ..domain.lag import LagModel
from ..domain.terms import is_conversion_objective, is_demotion, is_value_bidding
from . import text
from . import derived_names as names
from .findings import Context
from .series import Row, Series, Totals, parse_moment

STOPPED = "tracking.conversions_stopped"
STEP_DROP = "tracking.conversion_rate_step_drop"
DOUBLE = "tracking.double_counting"
NO_VALUE = "tracking.missing_conversion_value"
DEMOTED = "tracking.primary_action_changed"
ABSENT = "tracking.no_conversion_tracking"


def lag_model(ctx: Context) -> LagModel:
    t = ctx.t(STOPPED)
    return LagModel.for_actions(ctx.series.as_of, ctx.series.section("conversion_actions"),
                                t.number("lag_tau_days"), t.number("lag_complete_share"))


@dataclass
class Change:
    """A change point in one campaign's (or the account's) conversions."""

    scope: str | None
    before_dates: list[date]
    after_dates: list[date]
    before: Totals
    after: Totals
    expected_after: float  # conversions due after the change at the earlier rate, lag-adjusted

    @property
    def start(self) -> date:
        return self.after_dates[0]

    @property
    def ratio(self) -> float:
        return self.after.conversions / self.expected_after if self.expected_after > 0 else 1.0

    @property
    def z(self) -> float:
        return poisson_z(self.after.conversions, self.expected_after)

    @property
    def log_likelihood_ratio(self) -> float:
        """Two rates (before, after) against one for the whole span: the change point is where this peaks.
        The "after" side counts its clicks lag-adjusted (its expected conversions over the earlier rate)."""
        after_clicks = self.expected_after / self.rate_before if self.rate_before else 0.0
        return log_likelihood_ratio((self.before.conversions, self.before.clicks), (self.after.conversions, after_clicks))

    @property
    def rate_before(self) -> float:
        return self.before.conversions / self.before.clicks if self.before.clicks > 0 else 0.0


def detect(ctx: Context) -> None:
    s = ctx.series
    # Without conversion tracking there are no conversions to read: the kinds below are withheld
    if absent_tracking(ctx):
        for kind in (STOPPED, STEP_DROP, DOUBLE, NO_VALUE, DEMOTED):
            ctx.withheld(kind, None)
        return
    lag = lag_model(ctx)
    scopes = _conversion_scopes(s)
    if not scopes:
        for kind in (STOPPED, STEP_DROP, DOUBLE, DEMOTED):
            ctx.unassessable(kind, None, "conversion tracking (no conversions recorded)")
        missing_conversion_value(ctx)
        return
    demoted = primary_action_changed(ctx, lag)
    if demoted:
        for kind in (STOPPED, STEP_DROP, DOUBLE):
            ctx.rejected(kind, None, "all conversions held: an action was demoted from the primary goal, tracking did not break")
    else:
        # An account-wide stop is reported once; it answers for every campaign (support.py)
        if not _stopped(ctx, None, lag):
            for cid in scopes:
                _stopped(ctx, cid, lag)
        steps = {scope: _steps(ctx, scope, lag) for scope in [None, *scopes]}
        for kind in (STEP_DROP, DOUBLE):
            _one_scope_per_step(ctx, kind, {k: c for k, c in steps.items() if c is not None and c[0] == kind})
    missing_conversion_value(ctx)


def _one_scope_per_step(ctx: Context, kind: str, reported: dict[str | None, tuple[str, Change]]) -> None:
    """Report a step once: a step of the account is the account's (scope null), and the campaigns
    stepping within same_step_days of it are part of it, however many meet the bar alone (the others'
    steps may just lack the clicks to reach it); a campaign stepping on another date, or in an account
    that does not step, is reported on its own."""
    if not reported:
        return
    window = ctx.t(STEP_DROP).number("same_step_days")
    account = reported.get(None)
    campaigns = [scope for scope in reported if scope is not None]
    keep: set[str | None] = set(campaigns)
    if account is not None:
        keep = {None} | {c for c in campaigns if abs((reported[c][1].start - account[1].start).days) > window}
    for item in list(ctx.assessments):
        if item.kind == kind and item.supported and item.scope not in keep:
            ctx.assessments.remove(item)
            ctx.rejected(kind, item.scope, "part of the account-wide step, reported once")


def _conversion_scopes(s: Series) -> list[str]:
    """Campaigns that recorded conversions at some point, by cost (largest first)."""
    ids = [cid for cid, tot in s.campaign_totals.items() if tot.conversions > 0]
    return sorted(ids, key=lambda cid: -s.campaign_totals[cid].cost)


def _dates(s: Series, scope: str | None) -> list[date]:
    """Complete dates on which the scope has clicks (the stop, its zeros and the step scan each ask,
    for every campaign: kept on the series per scope; read it, do not modify it)."""
    return _clicked(s, scope)[0]


def _clicked(s: Series, scope: str | None) -> tuple[list[date], list[Totals]]:
    """``_dates`` and the scope's totals on each of them (kept on the series: read them, do not modify them)."""
    key = ("tracking dates", scope)
    found = s.memo.get(key)
    if found is None:
        complete = s.memo.get("tracking complete dates")
        if complete is None:
            complete = s.memo["tracking complete dates"] = s.complete_dates()
        # the table looked up inline (``_cell``): this runs for every campaign's every date
        if scope is None:
            days = s.days
            cells = [(d, days.get(d)) for d in complete]
        else:
            table = s.cells
            cells = [(d, table.get((d, scope))) for d in complete]
        kept = [(d, c) for d, c in cells if c is not None and c.clicks > 0]
        found = s.memo[key] = ([d for d, _ in kept], [c for _, c in kept])
    return found


def _cell(s: Series, day: date, scope: str | None) -> Totals:
    return s.day_total(day) if scope is None else s.cell(day, scope)


def _rows(s: Series, day: date, scope: str | None):
    return s.rows_by_day.get(day, []) if scope is None else s.rows_by_cell.get((day, scope), [])


def _exact_zero(s: Series, day: date, scope: str | None) -> bool:
    """Conversions reported, and exactly zero, on every row (null is unknown, not zero)."""
    rows = _rows(s, day, scope)
    return bool(rows) and all(r.get("conversions") == 0 for r in rows)


def _expected(s: Series, scope: str | None, dates: list[date], rate: float, lag: LagModel, metric: str = "clicks") -> float:
    return lag.expected(((d, getattr(_cell(s, d, scope), metric)) for d in dates), rate)


def _change(s: Series, scope: str | None, before_dates: list[date], after_dates: list[date], lag: LagModel) -> Change | None:
    """The change between two sets of dates; the rate before is read from lag-settled days only."""
    before = s.window([d for d in before_dates if lag.settled(d)], scope)
    if before.clicks <= 0 or before.conversions <= 0 or not after_dates:
        return None
    expected = _expected(s, scope, after_dates, before.conversions / before.clicks, lag)
    if expected <= 0:
        return None
    return Change(scope, before_dates, after_dates, s.window(before_dates, scope), s.window(after_dates, scope), expected)


def _pointers(s: Series, days: list[date], scope: str | None, limit: int = 12) -> list[str]:
    return [r.pointer for d in days for r in _rows(s, d, scope)][:limit]


def _where(s: Series, scope: str | None) -> str:
    return s.label(scope) if scope else "the account"


def _day_line(ctx: Context, day: date, scope: str | None, *, all_conversions: bool = False) -> str:
    """``2025-03-11: 31 conversions on 402 clicks`` (the row, or the account's day totals); "" if not quotable."""
    v = ctx.day_values(day, scope) or {}
    wanted = ("conversions", "all_conversions", "clicks") if all_conversions else ("conversions", "clicks")
    if any(m not in v for m in wanted):
        return ""
    if all_conversions:
        return (f"{text.day(day)}: {text.count(v['conversions'])} conversions, {text.count(v['all_conversions'])} "
                f"all conversions, {text.count(v['clicks'])} clicks")
    return f"{text.day(day)}: {text.count(v['conversions'])} conversions on {text.count(v['clicks'])} clicks"


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


# ---------------------------------------------------------------- stops


def zero_run(s: Series, scope: str | None) -> list[date]:
    """The trailing run of exact-zero days: the complete dates with clicks, counted back from the
    last one, on which every row of the scope reports 0 conversions (a null is unknown, not zero)."""
    run: list[date] = []
    dates, cells = _clicked(s, scope)
    if cells and cells[-1].conversions > 0:  # a row of the last day has conversions: no run (most scopes)
        return run
    for day in reversed(dates):
        if not _exact_zero(s, day, scope):
            break
        run.insert(0, day)
    return run


def _stopped(ctx: Context, scope: str | None, lag: LagModel) -> bool:
    s = ctx.series
    t = ctx.t(STOPPED)
    dates = _dates(s, scope)
    run = zero_run(s, scope)
    if not run:
        ctx.rejected(STOPPED, scope, "conversions are recorded up to the last complete day")
        return False
    before_dates = [d for d in dates if d < run[0]][-int(t.number("baseline_days")) :]
    change = _change(s, scope, before_dates, run, lag)
    if change is None or change.before.conversions < t.number("min_baseline_conversions"):
        ctx.rejected(STOPPED, scope, f"zeros from {text.day(run[0])}, but too few conversions before them to call a stop")
        return False
    clicks_before = change.before.clicks / len(before_dates)
    if change.after.clicks / len(run) < t.number("clicks_hold_share") * clicks_before:
        ctx.rejected(STOPPED, scope, f"clicks fell with the conversions from {text.day(run[0])}: a delivery change, not tracking")
        return False
    if len(run) < t.number("min_days") or change.expected_after < t.number("min_expected_conversions"):
        ctx.rejected(
            STOPPED,
            scope,
            f"zeros from {text.day(run[0])} are within what conversion lag and chance allow "
            f"(chance of no conversion {text.percent(poisson_zero(change.expected_after))})",
        )
        return False
    if _demoted_without_event(ctx, change, lag):
        return False
    if ctx.withheld(STOPPED, scope):
        return False
    ctx.stops[scope] = run[0]
    last_good = before_dates[-1]
    ctx.found(
        STOPPED,
        scope,
        f"Conversions in {_where(s, scope)} fall to exactly zero from {text.day(run[0])} while clicks continue, "
        "far beyond what conversion lag explains: the tag or the conversion import has most likely stopped.",
        _joined(
            _day_line(ctx, last_good, scope),
            f"from {text.day(run[0])} to {text.day(run[-1])} conversions are 0 on each of {len(run)} days while clicks hold",
            _day_line(ctx, run[-1], scope),
        ) + ".",
        rows=_pointers(s, [last_good, *run], scope),
    )
    return True


# ---------------------------------------------------------------- steps


def _steps(ctx: Context, scope: str | None, lag: LagModel) -> tuple[str, Change] | None:
    """Rate step down (halved) or up (doubled) from a date, clicks flat; returns what it reported."""
    s = ctx.series
    t_drop, t_double = ctx.t(STEP_DROP), ctx.t(DOUBLE)
    stop = ctx.stop_of(scope)
    dates, cells = _clicked(s, scope)
    if stop is not None:  # the zeros of a stop are not a step
        kept = [(d, c) for d, c in zip(dates, cells) if d < stop]
        dates, cells = [d for d, _ in kept], [c for _, c in kept]
    min_side = int(t_drop.number("min_days_each_side"))
    if len(dates) < 2 * min_side:
        for kind in (STEP_DROP, DOUBLE):
            ctx.unassessable(kind, scope, "conversion-rate steps (too few days to compare before and after)")
        return None
    # Settled days only: the lag days would read as a drop, and a stop is looked for separately
    credited = _credited_shares(s, lag)
    complete_share = lag.complete_share
    settled = [(d, c, k) for d, c in zip(dates, cells) if (k := credited[d]) >= complete_share]
    dates = [d for d, _, _ in settled]
    days = _Days([c.clicks for _, c, _ in settled], [c.conversions for _, c, _ in settled], [k for _, _, k in settled])
    min_z = t_drop.number("min_z")
    # The winning split's ratio, z and conversions are its change's (``Split``): most campaigns do not
    # step, or not by half or twice, and are rejected without their change in full
    peak = _peak_split(days, min_side, t_drop.number("max_clicks_change"), min_z)
    if peak is None or abs(peak[1].z) < min_z or peak[1].after_conversions == 0:
        for kind in (STEP_DROP, DOUBLE):
            ctx.rejected(kind, scope, "no significant step in the conversion rate with clicks flat")
        return None
    at, ratio = peak[0], peak[1].ratio
    if ratio <= 1 - t_drop.number("min_drop_share"):
        ctx.rejected(DOUBLE, scope, "the conversion rate fell")
        best = _change_at(s, scope, dates, at, lag)
        if _demoted_without_event(ctx, best, lag) or _explained_by_attribution(ctx, best, STEP_DROP):
            return None
        if not ctx.withheld(STEP_DROP, scope):
            _report_step(ctx, STEP_DROP, best)
            return STEP_DROP, best
    elif t_double.number("min_ratio") <= ratio <= t_double.number("max_ratio"):
        ctx.rejected(STEP_DROP, scope, "the conversion rate rose")
        best = _change_at(s, scope, dates, at, lag)
        if not _explained_by_attribution(ctx, best, DOUBLE) and not ctx.withheld(DOUBLE, scope):
            _report_step(ctx, DOUBLE, best)
            return DOUBLE, best
    else:
        ctx.rejected(STEP_DROP, scope, f"the conversion rate changed by a factor of {ratio:.2f}: not half")
        ctx.rejected(DOUBLE, scope, f"the conversion rate changed by a factor of {ratio:.2f}: not about twice")
    return None


def _change_at(s: Series, scope: str | None, dates: list[date], at: int, lag: LagModel) -> Change:
    """The change of a split of the scan in full (every metric of both sides)."""
    change = _change(s, scope, dates[:at], dates[at:], lag)
    assert change is not None  # a split of the scan is one ``_change`` gives a change for
    return change


def change_point(s: Series, scope: str | None, dates: list[date], min_side: int, max_clicks_change: float,
                 lag: LagModel) -> Change | None:
    """The change point of a scope's conversion rate over ``dates`` (its settled dates with clicks):
    among the splits with at least ``min_side`` dates each side and clicks flat, the one where the
    two-rate log-likelihood ratio peaks (the strongest split, not the first that qualifies)."""
    peak = _peak_split(_days(s, scope, dates, lag), min_side, max_clicks_change)
    # The winner in full (every metric of both sides), as the rest of the checks read it
    return _change_at(s, scope, dates, peak[0], lag) if peak is not None else None


class Split(NamedTuple):
    """One split of the step scan: clicks and conversions each side, and the conversions due after it
    at the rate before (lag-adjusted), as ``_change`` computes them for the same dates."""

    before_clicks: float
    before_conversions: float
    after_clicks: float
    after_conversions: float
    expected_after: float

    @property
    def log_likelihood_ratio(self) -> float:
        """``Change.log_likelihood_ratio`` of the same split, with the same operations."""
        rate_before = self.before_conversions / self.before_clicks if self.before_clicks > 0 else 0.0
        after_clicks = self.expected_after / rate_before if rate_before else 0.0
        return log_likelihood_ratio((self.before_conversions, self.before_clicks), (self.after_conversions, after_clicks))

    @property
    def ratio(self) -> float:
        """``Change.ratio`` of the same split."""
        return self.after_conversions / self.expected_after if self.expected_after > 0 else 1.0

    @property
    def z(self) -> float:
        """``Change.z`` of the same split."""
        return poisson_z(self.after_conversions, self.expected_after)


class _Days(NamedTuple):
    """A scope's clicks, conversions and credited shares on the dates of a scan, in date order."""

    clicks: list[float]
    conversions: list[float]
    credited: list[float]


def _days(s: Series, scope: str | None, dates: list[date], lag: LagModel) -> _Days:
    cells = [_cell(s, d, scope) for d in dates]
    return _Days([c.clicks for c in cells], [c.conversions for c in cells], [lag.credited(d) for d in dates])


def _credited_shares(s: Series, lag: LagModel) -> dict[date, float]:
    """``lag.credited`` of every date with rows, computed once (every campaign's scan asks for the same dates)."""
    key = ("lag credited", lag)
    shares = s.memo.get(key)
    if shares is None:
        shares = s.memo[key] = {d: lag.credited(d) for d in s.days}
    return shares


def _split_at(days: _Days, i: int, before_clicks: float, before_conversions: float, after_clicks: float) -> Split | None:
    """The split before ``i``, given its sides' clicks and the conversions before it (each summed from
    0.0 in date order, as ``Series.window`` sums them); None when no conversion is due after it.
    Every figure is summed in the order and with the operations ``_change`` uses: the same to the last bit."""
    rate = before_conversions / before_clicks
    expected = sum([c * rate * k for c, k in zip(days.clicks[i:], days.credited[i:])])
    if expected <= 0:
        return None
    return Split(before_clicks, before_conversions, after_clicks, reduce(add, days.conversions[i:], 0.0), expected)


def _splits(s: Series, scope: str | None, dates: list[date], min_side: int, lag: LagModel,
            max_clicks_change: float | None = None) -> Iterator[tuple[int, Split]]:
    """``(i, split)`` for each split ``dates[:i]`` / ``dates[i:]`` that ``_change`` would give a change for
    (and, given ``max_clicks_change``, whose clicks are flat: ``_flat``).

    Every date here is settled, so ``_change``'s rate is read from the whole "before" side. The sides
    carry only clicks and conversions (all the scan compares), each summed in the order and with the
    operations ``_change`` uses, so the figures are the same to the last bit; the "before" side is
    a running sum instead of a fresh total for each split, which made the scan quadratic in merges,
    and the flatness of the clicks is read before the lag-adjusted sum it does not need.
    """
    return _scan(_days(s, scope, dates, lag), min_side, max_clicks_change)


def _scan(days: _Days, min_side: int, max_clicks_change: float | None) -> Iterator[tuple[int, Split]]:
    clicks, conversions = days.clicks, days.conversions
    count = len(clicks)
    before_clicks = before_conversions = 0.0
    for i in range(count - min_side + 1):
        if i >= min_side and before_clicks > 0 and before_conversions > 0 and i < count:
            after_clicks = reduce(add, clicks[i:], 0.0)
            if max_clicks_change is None or _flat(before_clicks, i, after_clicks, count - i, max_clicks_change):
                split = _split_at(days, i, before_clicks, before_conversions, after_clicks)
                if split is not None:
                    yield i, split
        if i < count:
            before_clicks += clicks[i]
            before_conversions += conversions[i]


def _peak(splits: Iterable[tuple[int, Split]]) -> tuple[int, Split] | None:
    """The first split with the highest log-likelihood ratio."""
    best: tuple[int, Split] | None = None
    best_ratio = 0.0
    for i, split in splits:
        ratio = split.log_likelihood_ratio
        if best is None or ratio > best_ratio:
            best, best_ratio = (i, split), ratio
    return best


def _peak_split(days: _Days, min_side: int, max_clicks_change: float, min_z: float = 0.0) -> tuple[int, Split] | None:
    """The split of ``_scan`` where the log-likelihood ratio peaks (the first of equal peaks), or None;
    given ``min_z``, also None when the peak's z is below it (the step scan rejects both alike).

    Each split's exact figures cost a pass over the dates after it (their sums are pinned to the order
    ``_change`` adds in), and the scan is run for every campaign. When the clicks are whole numbers
    (adding them is then exact in any order), a screen reads every split's ratio and z from suffix
    sums, near enough (off by rounding only): only the splits within a margin of its peak ratio can be
    the exact peak, and when none of them has a z near ``min_z``, the peak's z is below it whichever
    it is. The splits left are computed exactly. Any other reading is scanned in full.
    """
    candidates = _screened(days, min_side, max_clicks_change)
    if candidates == []:
        return None
    if candidates is not None:
        if all(abs(z) + z_margin < min_z for _, _, _, _, z, z_margin in candidates):
            return None
        best = _peak((i, split) for i, before_clicks, before_conversions, after_clicks, _, _ in candidates
                     if (split := _split_at(days, i, before_clicks, before_conversions, after_clicks)) is not None)
        if best is not None:
            return best
    return _peak(_scan(days, min_side, max_clicks_change))


# How far a screened ratio or z may be from the exact one, for each unit of the figures it is read
# from: rounding in the sums of a month of days is some 1e-14 of them; this leaves a wide margin
_SCREEN_MARGIN = 1e-9
_EXACT_WHOLE = 2.0**53  # whole numbers below this add exactly in any order


def _screened(days: _Days, min_side: int, max_clicks_change: float
              ) -> list[tuple[int, float, float, float, float, float]] | None:
    """The splits that may be the peak, as (i, clicks before, conversions before, clicks after, z near
    enough, its margin), the sums exact; [] when there is no split, None when the screen cannot tell."""
    clicks, conversions, credited = days.clicks, days.conversions, days.credited
    count = len(clicks)
    try:
        if not clicks or min(clicks) < 0 or not all(map(float.is_integer, clicks)) or sum(clicks) >= _EXACT_WHOLE:
            return None if clicks else []
    except TypeError:  # not floats: the full scan
        return None
    # Running sums from the first date (``_scan``'s, exact) and suffix sums from the last one back
    # (exact for the clicks, near enough for the rest), at each split i
    before_clicks = list(accumulate(clicks, initial=0.0))
    before_conversions = list(accumulate(conversions, initial=0.0))
    after_clicks = list(accumulate(reversed(clicks), initial=0.0))[::-1]
    after_conversions = list(accumulate(reversed(conversions), initial=0.0))[::-1]
    # terms of 0 or more: 0 exactly when every term of the split's expected conversions is
    after_credited = list(accumulate(map(mul, reversed(clicks), reversed(credited)), initial=0.0))[::-1]
    screened = []
    peak = None
    log = math.log
    try:
        for i in range(max(min_side, 1), min(count - min_side + 1, count)):
            bk, bc, credited_after = before_clicks[i], before_conversions[i], after_credited[i]
            if bk <= 0 or bc <= 0 or credited_after <= 0:
                continue
            # ``_flat``, and ``log_likelihood_ratio`` of the split, spelled out: this runs for every split
            # of every campaign
            if abs(after_clicks[i] / (count - i) / (bk / i) - 1) > max_clicks_change:
                continue
            observed = after_conversions[i]
            pooled = (bc + observed) / (bk + credited_after)
            ratio = bc * log(bc / (bk * pooled))
            if observed > 0:
                ratio += observed * log(observed / (credited_after * pooled))
            screened.append((ratio, i))
            if peak is None or ratio > peak:
                peak = ratio
        if peak is None:
            return []
        if peak != peak:  # not a number: the full scan
            return None
        scale = sum(map(abs, conversions))
        margin = _SCREEN_MARGIN * (1.0 + abs(peak) + scale)
        kept = []
        for ratio, i in screened:
            if not ratio < peak - margin:
                expected = after_credited[i] * (before_conversions[i] / before_clicks[i])
                z = poisson_z(after_conversions[i], expected)
                kept.append((i, before_clicks[i], before_conversions[i], after_clicks[i], z,
                             _SCREEN_MARGIN * (1.0 + abs(z) + (scale + expected) / math.sqrt(expected))))
        return kept
    except (ArithmeticError, ValueError):  # a figure out of range: the full scan says what it is
        return None


def _flat(clicks_before: float, days_before: int, clicks_after: float, days_after: int, max_change: float) -> bool:
    """Clicks a day after within ``max_change`` of clicks a day before."""
    per_day_before = clicks_before / max(1, days_before)
    per_day_after = clicks_after / max(1, days_after)
    return per_day_before > 0 and abs(per_day_after / per_day_before - 1) <= max_change


def _report_step(ctx: Context, kind: str, change: Change) -> None:
    s = ctx.series
    scope = change.scope
    before_day, after_day = change.before_dates[-1], change.start
    last7 = s.last_days(7)
    recent, period = ctx.quote(names.window(scope, "CVR", names.LAST_7)), ctx.quote(names.window(scope, "CVR", names.PERIOD))
    rates = (
        f"conversion rate {text.percent(recent, 2)} over the last 7 complete days against {text.percent(period, 2)} over the period"
        if recent is not None and period is not None and last7 and after_day <= last7[0]
        else ""
    )
    evidence = _joined(_day_line(ctx, before_day, scope), _day_line(ctx, after_day, scope), rates) or (
        f"the conversion rate changes from {text.day(after_day)} with clicks flat"
    )
    if kind == STEP_DROP:
        claim = (
            f"The conversion rate in {_where(s, scope)} steps down by half or more from {text.day(after_day)} while clicks "
            "stay flat: a tag, consent or landing-page fault is the usual cause."
        )
    else:
        primaries = [a.get("name") for a in s.section("conversion_actions") if a.get("primary_for_goal") is not False]
        extra = f" (primary actions: {', '.join(map(str, primaries))})" if len(primaries) > 1 else ""
        claim = (
            f"Conversions in {_where(s, scope)} roughly double against clicks from {text.day(after_day)} while clicks stay "
            f"flat: a second tag or action is likely counting the same event{extra}."
        )
    ctx.found(kind, scope, claim, evidence + ".", rows=_pointers(s, [before_day, after_day], scope))


def _explained_by_attribution(ctx: Context, change: Change, kind: str) -> bool:
    """An attribution change inside the period explains a step in the conversion rate."""
    # Asked for every campaign's step: each assessment is read once, as assessments are only added meanwhile
    seen = ctx.__dict__.setdefault("_attribution_change_seen", [0, False])  # [assessments read, one supported]
    if not seen[1]:
        seen[1] = any(a.kind == "data.attribution_change" and a.supported for a in ctx.assessments[seen[0]:])
        seen[0] = len(ctx.assessments)
    if seen[1]:
        ctx.rejected(kind, change.scope, "the step coincides with an attribution change inside the period")
        return True
    return False


# ---------------------------------------------------------------- demoted actions


def primary_action_changed(ctx: Context, lag: LagModel) -> bool:
    """An action taken out of the primary goal (a change event), with all_conversions holding."""
    s = ctx.series
    t = ctx.t(DEMOTED)
    events = _primary_events(ctx)
    if not events:
        ctx.rejected(DEMOTED, None, "no change event takes a conversion action out of the primary goal")
        return False
    dates = _dates(s, None)
    for pointer, day, description in events:
        change = _change(s, None, [d for d in dates if d < day], [d for d in dates if d >= day], lag)
        if change is None:
            continue
        if change.ratio > 1 - t.number("min_drop_share") or not _all_conversions_hold(s, change, lag, t):
            ctx.rejected(DEMOTED, None, f"{description}, but conversions did not drop with all conversions holding")
            continue
        _report_demoted(ctx, change, (pointer, day, description))
        return True
    return False


def _primary_events(ctx: Context) -> list[tuple[str, date, str]]:
    """Change events that take an action out of the primary goal, inside the period."""
    s = ctx.series
    found = []
    for index, event in s.indexed("change_events"):
        field = str(event.get("changed_field") or "")
        moment = parse_moment(event.get("change_date_time"))
        if moment is None or not is_demotion(event):
            continue
        if s.period_start and moment.date() < s.period_start:
            continue
        found.append((f"/change_events/{index}", moment.date(), f"{field} changed from {event.get('old')} to {event.get('new')} on {text.day(moment.date())}"))
    return found


def _all_conversions_hold(s: Series, change: Change, lag: LagModel, t) -> bool:
    settled = [d for d in change.before_dates if lag.settled(d)]
    before = s.window(settled, change.scope)
    if not (before.has_all_conversions and change.after.has_all_conversions) or before.clicks <= 0 or before.all_conversions <= 0:
        return False
    expected = _expected(s, change.scope, change.after_dates, before.all_conversions / before.clicks, lag)
    return expected > 0 and change.after.all_conversions >= t.number("all_conversions_hold_share") * expected


def _demoted_without_event(ctx: Context, change: Change, lag: LagModel) -> bool:
    """A drop where all_conversions held: report a demotion even without the change event."""
    t = ctx.t(DEMOTED)
    if not _all_conversions_hold(ctx.series, change, lag, t):
        return False
    _report_demoted(ctx, change, None)
    for kind in (STOPPED, STEP_DROP):
        ctx.rejected(kind, change.scope, "all conversions held: an action was demoted, tracking did not break")
    return True


def _report_demoted(ctx: Context, change: Change, event: tuple[str, date, str] | None) -> None:
    s = ctx.series
    scope = change.scope
    before_day, after_day = change.before_dates[-1], change.after_dates[min(1, len(change.after_dates) - 1)]
    because = f"; change event: {event[2]}" if event else ""
    ctx.found(
        DEMOTED,
        scope,
        f"Conversions in {_where(s, scope)} drop from {text.day(change.start)} while all conversions hold: a conversion "
        "action was taken out of the primary goal, not a broken tag, and bidding now optimises to a narrower goal.",
        _joined(_day_line(ctx, before_day, scope, all_conversions=True), _day_line(ctx, after_day, scope, all_conversions=True),
                because.lstrip("; ")) + ".",
        rows=([event[0]] if event else []) + _pointers(s, [before_day, after_day], scope),
    )


# ---------------------------------------------------------------- values


def missing_conversion_value(ctx: Context) -> None:
    """Conversions with zero value from a date, on a value-bid campaign or one that had values before."""
    s = ctx.series
    t = ctx.t(NO_VALUE)
    complete = set(s.complete_dates())
    value_bid = {cid for cid, c in s.campaigns.items() if is_value_bidding(c.raw)}
    if not value_bid and not any((r.get("conversions_value") or 0) > 0 for r in s.rows):
        ctx.rejected(NO_VALUE, None, "no campaign reports or bids on conversion value")
        return
    found = False
    for cid in sorted(s.campaign_totals):
        rows = [r for r in s.rows_of([cid]) if r.day in complete]
        # The trailing run of rows with conversions but zero value
        run: list[Row] = []
        for row in reversed(rows):
            if (row.get("conversions") or 0) > 0 and row.get("conversions_value") == 0:
                run.insert(0, row)
            elif (row.get("conversions") or 0) > 0:
                break
        if sum((r.get("conversions") or 0.0 for r in run), 0.0) < t.number("min_conversions"):
            continue
        valued = [r for r in rows if (r.get("conversions_value") or 0) > 0]
        if not valued and cid not in value_bid:
            continue  # a lead campaign that never had values
        found = True
        last_valued = valued[-1] if valued else None
        had = (
            f"; {text.day(last_valued.day)} had {text.count(last_valued.get('conversions') or 0)} conversions worth "
            f"{text.money(last_valued.get('conversions_value') or 0.0, s.currency)}"
            if last_valued
            else ""
        )
        example = run[-1]
        ctx.found(
            NO_VALUE,
            cid,
            f"{s.label(cid)} records conversions with zero value from {text.day(run[0].day)}"
            + (
                " while bidding on value: revenue and ROAS are understated and the value bidding is misled."
                if cid in value_bid
                else ": revenue and ROAS are understated."
            ),
            f"{text.day(example.day)}: {text.count(example.get('conversions') or 0)} conversions, conversions_value "
            f"{text.money(0)}; the same on every row from {text.day(run[0].day)}{had}.",
            high=cid in value_bid,
            rows=[r.pointer for r in run][:10],
        )
    if not found:
        ctx.rejected(NO_VALUE, None, "conversions carry values where values are expected")


# -- absent conversion tracking -----------------------------------------------------------------


def _conversion_campaigns(s: Series) -> list[str]:
    """Campaigns with clicks over the period that buy clicks or bid to convert."""
    return [cid for cid, tot in s.campaign_totals.items()
            if tot.clicks > 0 and is_conversion_objective(s.campaigns[cid].raw if cid in s.campaigns else None)]


def absent_tracking(ctx: Context) -> bool:
    """Assess absent conversion tracking (the glossary's term); True when found."""
    s = ctx.series
    t = ctx.t(ABSENT)
    if not s.reads("conversions"):
        ctx.unassessable(ABSENT, None, "conversion tracking (the rows do not report conversions)")
        return False
    lag = lag_model(ctx)
    days = [d for d in s.complete_dates() if s.in_period(d)]
    campaigns = _conversion_campaigns(s)
    # ``s.cell`` looked up inline (every campaign's every day): a cell without rows reads as empty totals
    table, empty = s.cells, Totals()
    cells = [table.get((d, cid), empty) for cid in campaigns for d in days]
    clicks = sum(c.clicks for c in cells)
    recorded = sum(c.conversions for c in cells)
    credited = [lag.credited(d) for d in days] * len(campaigns)  # in the order of ``cells``
    due = sum(c.clicks * k for c, k in zip(cells, credited)) * t.number("min_conversion_rate")
    if due <= 0:
        ctx.rejected(ABSENT, None, "no clicks on conversion-objective campaigns over the complete days")
        return False
    chance = poisson_at_most(recorded, due)
    if chance > t.number("max_chance"):
        ctx.rejected(ABSENT, None, f"{text.count(recorded)} conversions on {text.count(clicks)} clicks: conversions are "
                     f"recorded (chance {text.percent(chance)} at the floor rate)")
        return False
    all_conversions = sum(c.all_conversions for c in cells)
    if any(c.has_all_conversions for c in cells) and all_conversions >= due:
        ctx.rejected(ABSENT, None, f"all_conversions {text.count(all_conversions)}: actions are counted, not as primary")
        return False
    ctx.breaks(ABSENT, "the account records almost no conversions: conversion tracking is absent or not recording")
    ctx.found(
        ABSENT,
        None,
        "The account records almost no conversions on material spend and clicks: conversion tracking is absent or "
        "not recording, so no campaign can be judged by its conversions (CPA, ROAS, wasted spend). Check the "
        "conversion actions and their tags before anything else.",
        _evidence(ctx),
        rows=[r.pointer for r in s.rows if r.day in days][:6],
    )
    return True


def _evidence(ctx: Context) -> str:
    """The account's conversions, clicks and cost over the period, its conversion rate and CPA, as the
    derived index has them (parts it lacks are left out)."""
    s = ctx.series
    conversions, clicks, cost = (ctx.period(None, m) for m in ("conversions", "clicks", "cost"))
    cvr, cpa = ctx.period(None, "CVR"), ctx.period(None, "CPA")
    dates = [d for d in s.dates if s.in_period(d)]
    where = f" from {text.day(dates[0])} to {text.day(dates[-1])}" if dates else " over the period"
    parts = []
    if conversions is not None and clicks is not None and cost is not None:
        parts.append(f"The account recorded {text.count(conversions)} conversions on {text.count(clicks)} clicks and "
                     f"{text.money(cost, s.currency)}{where}")
    if cvr is not None:
        parts.append(f"a conversion rate of {text.percent(cvr, 3)}")
    if cpa is not None:
        parts.append(f"a cost per conversion of {text.money(cpa, s.currency)}")
    return (", ".join(parts) or "The account recorded almost no conversions over the period") + "."
