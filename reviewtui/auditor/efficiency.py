"""``efficiency.*``: CPA or ROAS far off target, and CPA drifting up, beyond chance.

Both are judged on lag-settled days only (the last days' conversions are
still filling in and would inflate any CPA), need a minimum number of
conversions (a CPA from two or three conversions is noise), and need the
gap to be statistically clear: under the target CPA, the spend should have
bought ``cost / target`` conversions; seeing far fewer than that is what
makes a CPA off target. A recent bid-strategy change explains volatility
(``bidding.learning_period``), and a tracking fault explains a CPA jump.
"""

from __future__ import annotations

from datetime import date

from ..domain.chance import poisson_at_most
from ..domain.chance import trend_z as domain_trend_z
from . import text
from . import derived_names as names
from .findings import Context
from .series import Series, Totals
from .tracking import lag_model

OFF = "efficiency.off_target"
DRIFT = "efficiency.cpa_drift"
# The causes whose scope's conversions (or values) are not what was bought: off target and CPA drift
# there are their symptoms, not findings (the glossary's "causes, not symptoms"). A cause in a
# campaign explains that campaign and the account-wide reading; an account-wide cause explains all.
EXPLAINED_BY = (
    "tracking.conversions_stopped",
    "tracking.conversion_rate_step_drop",
    "tracking.primary_action_changed",
    "tracking.double_counting",
    "tracking.missing_conversion_value",
    "data.attribution_change",
)


def detect(ctx: Context) -> None:
    s = ctx.series
    lag = lag_model(ctx)
    off_target(ctx)
    cpa_drift(ctx, [d for d in s.complete_dates() if lag.settled(d)])


def trend_z(s: Series, days: list[date], scope: str | None) -> float:
    """The trend score of conversions per cost across ``days`` for one campaign or the account."""
    cells = [s.day_total(d) if scope is None else s.cell(d, scope) for d in days]
    return domain_trend_z([(c.cost, c.conversions) for c in cells])


class _Explainers:
    """The supported assessments that can explain a CPA, indexed by scope as they are recorded.

    Asked once per campaign, a scan of every assessment would make the audit
    quadratic in campaigns; this reads each new assessment once.
    """

    def __init__(self) -> None:
        self.seen = 0
        self.by_scope: dict[str | None, list[tuple[int, str]]] = {}  # scope -> (position, kind), in order

    def first(self, ctx: Context, scope: str | None) -> str | None:
        for position in range(self.seen, len(ctx.assessments)):
            item = ctx.assessments[position]
            if item.supported and (item.kind in EXPLAINED_BY
                                   or (item.kind == "bidding.learning_period" and item.scope is not None)):
                self.by_scope.setdefault(item.scope, []).append((position, item.kind))
        self.seen = len(ctx.assessments)
        if scope is None:  # the account's reading: a cause in any campaign, or the account's own
            candidates = [next((p, k) for p, k in items if k in EXPLAINED_BY)
                          for items in self.by_scope.values() if any(k in EXPLAINED_BY for _, k in items)]
        else:
            own = [(p, k) for p, k in self.by_scope.get(scope, ())][:1]
            account = [(p, k) for p, k in self.by_scope.get(None, ()) if k in EXPLAINED_BY][:1]
            candidates = own + account
        return min(candidates)[1] if candidates else None


def _explained(ctx: Context, scope: str | None) -> str | None:
    """A tracking fault or a learning period that explains a CPA, if recorded for this scope."""
    explainers = ctx.__dict__.setdefault("_efficiency_explainers", _Explainers())
    return explainers.first(ctx, scope)


def _reportable(ctx: Context, kind: str, scope: str | None, campaigns_found: bool) -> bool:
    """False (and why, recorded) when a tracking fault or a learning period explains it, or when the
    campaigns behind an account-wide reading are already named."""
    why = _explained(ctx, scope)
    if why:
        ctx.rejected(kind, scope, f"explained by {why}")
        return False
    if scope is None and campaigns_found:
        ctx.rejected(kind, None, "the campaigns behind it are named; the account follows them")
        return False
    return True


def _campaigns_by_cost(s: Series) -> list[str]:
    return sorted(s.campaign_totals, key=lambda cid: -s.campaign_totals[cid].cost)


def _scopes(s: Series) -> list[str | None]:
    """Campaigns by cost, then the account: a campaign off target is named before the account is."""
    return [*_campaigns_by_cost(s), None]


def off_target(ctx: Context) -> None:
    s = ctx.series
    t = ctx.t(OFF)
    target_cpa, target_roas = s.target("target_cpa"), s.target("target_roas")
    if target_cpa is None and target_roas is None:
        ctx.unassessable(OFF, None, "efficiency against target (the snapshot has no target CPA or ROAS)")
        _off_account(ctx)
        return
    lag = lag_model(ctx)
    complete = s.complete_dates()
    found = False
    for scope in _scopes(s):
        # Duplicates inflate cost and conversions alike: a CPA or ROAS survives them, a unit error does not
        if ctx.withheld(OFF, scope):
            continue
        period = s.campaign_totals.get(scope) if scope else s.account
        # The cost alone first (``window``'s, summed alike): most campaigns are too small a share to judge
        if period is None or _sums(s, complete, scope)[0] <= 0:
            continue
        if scope is not None and s.share_of_account_spend(scope) < t.number("min_share_of_account_cost"):
            ctx.rejected(OFF, scope, "too small a share of spend to judge against the account target")
            continue
        window = s.window(complete, scope)
        # The cost whose conversions are already in: each day's cost times the share lag has credited
        credited_cost = sum(_cell_cost(s, d, scope) * lag.credited(d) for d in complete)
        verdict = (
            _cpa_verdict(window, credited_cost, target_cpa, t) if target_cpa
            else _roas_verdict(window, credited_cost, target_roas, t)  # type: ignore[arg-type]  # one of the two targets is set
        )
        if verdict is not None:
            ctx.rejected(OFF, scope, verdict)
            continue
        if not _reportable(ctx, OFF, scope, found):
            continue
        found = True
        _report_off(ctx, scope, period, target_cpa, target_roas)
    if not found:
        ctx.rejected(OFF, None, "CPA and ROAS are within reach of target, or the samples are too small")


def _off_account(ctx: Context) -> None:
    """With no target: a campaign whose CPA is several times the account's, beyond chance.

    The account's own cost per conversion is the reference a senior reads a
    campaign against when the client set no target; the same lag credit, sample
    floor and Poisson test as against a target apply.
    """
    s = ctx.series
    t = ctx.t(OFF)
    lag = lag_model(ctx)
    complete = s.complete_dates()
    account = s.window(complete)
    if account.conversions <= 0 or account.cost <= 0:
        return
    account_credited = sum(_cell_cost(s, d, None) * lag.credited(d) for d in complete)
    account_cpa = account_credited / account.conversions
    for scope in _campaigns_by_cost(s):
        if ctx.withheld(OFF, scope):
            continue
        window = s.window(complete, scope)
        if s.share_of_account_spend(scope) < t.number("min_share_of_account_cost"):
            continue
        if window.conversions < t.number("min_conversions"):
            continue  # none or a handful: waste.zero_conv_campaign or a small sample
        credited_cost = sum(_cell_cost(s, d, scope) * lag.credited(d) for d in complete)
        due = credited_cost / account_cpa
        if due < window.conversions * t.number("min_cpa_over_account"):
            ctx.rejected(OFF, scope, "CPA within a few times the account's")
            continue
        if poisson_at_most(window.conversions, due) > t.number("max_chance"):
            ctx.rejected(OFF, scope, "the gap to the account's CPA is within chance")
            continue
        if not _reportable(ctx, OFF, scope, False):
            continue
        _report_off_account(ctx, scope)


def _report_off_account(ctx: Context, scope: str) -> None:
    s = ctx.series
    cur = s.currency
    cpa, account_cpa = ctx.period(scope, "CPA"), ctx.period(None, "CPA")
    over = ctx.period(scope, "CPA over account CPA")
    cost, conversions = ctx.period(scope, "cost"), ctx.period(scope, "conversions")
    figure = f"CPA {text.money(cpa, cur)} over the period" if cpa is not None else "The CPA over the period"
    if cost is not None and conversions is not None:
        figure += f" ({text.money(cost, cur)} for {text.count(conversions)} conversions)"
    if account_cpa is not None:
        figure += f" against the account's {text.money(account_cpa, cur)}"
    if over is not None:
        figure += f", {text.multiple(over)} the account's CPA"
    ctx.found(
        OFF,
        scope,
        f"{s.label(scope)} pays several times the account's cost per conversion, on a sample large enough to "
        "rule out chance; the snapshot sets no CPA or ROAS target, so the account's own CPA is the reference.",
        figure + ".",
        rows=[r.pointer for r in s.rows_of([scope])][:6],
    )


def _sums(s: Series, dates: list[date], scope: str | None) -> tuple[float, float]:
    """Cost and conversions of ``s.window(dates, scope)``, added in its order (each from 0.0, date by
    date), without the other metrics: read for every campaign."""
    table: dict = s.days if scope is None else s.cells
    keys: list = dates if scope is None else [(d, scope) for d in dates]
    cells = [cell for cell in map(table.get, keys) if cell is not None]
    return sum([cell.cost for cell in cells], 0.0), sum([cell.conversions for cell in cells], 0.0)


def _cell_cost(s: Series, day: date, scope: str | None) -> float:
    return (s.day_total(day) if scope is None else s.cell(day, scope)).cost


def _cpa_verdict(window: Totals, credited_cost: float, target: float, t) -> str | None:
    """None when the CPA is far above target on enough conversions to rule out chance; else why not.

    Under the target CPA the credited cost should have bought ``credited_cost / target``
    conversions; seeing this few or fewer must be unlikely (exact Poisson).
    """
    if window.conversions < t.number("min_conversions"):
        return f"only {text.count(window.conversions)} conversions: too small a sample"
    due = credited_cost / target
    if due < window.conversions * (1 + t.number("min_excess")):
        return "CPA within reach of target once conversion lag is allowed for"
    if poisson_at_most(window.conversions, due) > t.number("max_chance"):
        return "the gap to target is within chance"
    return None


def _roas_verdict(window: Totals, credited_cost: float, target: float, t) -> str | None:
    if window.conversions < t.number("min_conversions"):
        return f"only {text.count(window.conversions)} conversions: too small a sample"
    if credited_cost <= 0 or window.conversions_value / credited_cost > target * (1 - t.number("min_roas_shortfall")):
        return "ROAS within reach of target once conversion lag is allowed for"
    # Conversions needed at the current value per conversion to reach the target
    value_per_conversion = window.conversions_value / window.conversions
    if value_per_conversion <= 0:
        return "conversions carry no value (a tracking fault, reported there)"
    if poisson_at_most(window.conversions, credited_cost * target / value_per_conversion) > t.number("max_chance"):
        return "the gap to target is within chance"
    return None


def _report_off(ctx: Context, scope: str | None, period: Totals, target_cpa: float | None, target_roas: float | None) -> None:
    s = ctx.series
    where = s.label(scope) if scope else "The account"
    where_in = s.label(scope) if scope else "the account"
    cur = s.currency
    cost, conversions = ctx.period(scope, "cost"), ctx.period(scope, "conversions")
    if target_cpa:
        cpa, over = ctx.period(scope, "CPA"), ctx.period(scope, "CPA over target")
        figure = f"CPA {text.money(cpa, cur)} over the period" if cpa is not None else "The CPA over the period"
        if cost is not None and conversions is not None:
            figure += f" ({text.money(cost, cur)} for {text.count(conversions)} conversions)"
        figure += f", {text.multiple(over)} the target" if over is not None else ", far above the target"
        ctx.found(
            OFF,
            scope,
            f"{where} runs at a CPA far above the {text.money(target_cpa, cur)} target on a sample large enough to rule out chance.",
            f"{figure} CPA of {text.money(target_cpa, cur)}.",
            rows=["/targets/target_cpa"] + [r.pointer for r in (s.rows if scope is None else s.rows_of([scope]))][:6],
        )
    else:
        roas, value = ctx.period(scope, "ROAS"), ctx.period(scope, "conversions_value")
        figure = f"ROAS {roas:.2f} over the period" if roas is not None else "The ROAS over the period"
        if value is not None and cost is not None and conversions is not None:
            figure += f" ({text.money(value, cur)} of value on {text.money(cost, cur)} of cost, {text.count(conversions)} conversions)"
        ctx.found(
            OFF,
            scope,
            f"{where} returns far less than the target ROAS on a sample large enough to rule out chance; "
            f"spend in {where_in} is not paying back.",
            f"{figure} against a target ROAS of {target_roas:g}.",
            rows=["/targets/target_roas"] + [r.pointer for r in (s.rows if scope is None else s.rows_of([scope]))][:6],
        )


def cpa_drift(ctx: Context, settled: list[date]) -> None:
    """CPA rising from the first days of the period to the last lag-settled days, with volume in both."""
    s = ctx.series
    t = ctx.t(DRIFT)
    days = min(int(t.number("window_days")), len(settled) // 2)
    if days < t.number("min_window_days"):
        ctx.unassessable(DRIFT, None, "CPA drift (too few settled days for two windows)")
        return
    early, late = settled[:days], settled[-days:]
    min_conversions, min_rise, min_z = t.number("min_conversions"), t.number("min_rise"), t.number("min_z")
    found = False
    for scope in _scopes(s):
        if ctx.withheld(DRIFT, scope):
            continue
        (a_cost, a_conversions), (b_cost, b_conversions) = _sums(s, early, scope), _sums(s, late, scope)
        if a_conversions < min_conversions or b_conversions < min_conversions:
            ctx.rejected(DRIFT, scope, "too few conversions in one of the windows")
            continue
        if a_cost <= 0 or b_cost <= 0 or a_conversions <= 0 or b_conversions <= 0:  # no CPA to rise from
            continue
        rise = (b_cost / b_conversions) / (a_cost / a_conversions) - 1  # ``Totals.cpa`` of each window
        if rise < min_rise or trend_z(s, settled, scope) > -min_z:
            ctx.rejected(DRIFT, scope, "CPA steady between the first and the last settled days")
            continue
        if not _reportable(ctx, DRIFT, scope, found):
            continue
        found = True
        ctx.found(
            DRIFT,
            scope,
            f"CPA in {_where(s, scope)} rises materially through the month: from {text.day(early[0])} to "
            f"{text.day(early[-1])} against {text.day(late[0])} to {text.day(late[-1])}, both before the lag days, "
            "with enough conversions in each to rule out chance.",
            _drift_evidence(ctx, scope) + ".",
            rows=[r.pointer for r in (s.rows if scope is None else s.rows_of([scope]))
                  if r.day in set(early[:1] + late[-1:])][:8],
        )
    if not found:
        ctx.rejected(DRIFT, None, "no material CPA rise between settled windows")


def _where(s: Series, scope: str | None) -> str:
    return s.label(scope) if scope else "the account"


def _drift_evidence(ctx: Context, scope: str | None) -> str:
    """CPA over the period, the previous 7 and the last 7 complete days, as the derived index has them."""
    parts = []
    for window in (names.PERIOD, names.PREVIOUS_7, names.LAST_7):
        cpa = ctx.derived.get(names.window(scope, "CPA", window))
        conversions = ctx.derived.get(names.window(scope, "conversions", window))
        if cpa is not None and conversions is not None:
            parts.append(f"CPA {text.money(cpa, ctx.series.currency)} over the {window} ({text.count(conversions)} conversions)")
    return "; ".join(parts) or "CPA rises between the windows"
