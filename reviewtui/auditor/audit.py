"""The reference auditor's entry point: ``audit(snapshot_data) -> AuditResult``.

Deterministic and offline. The data checks run first, so every later
detector knows which breakages corrupt its figures; then each detector
family records an assessment for the kinds it owns. The supported ones are
the findings, in the assistant's output format; when there are none, the
single finding is ``summary.no_material_issues``.

What could not be assessed (a missing section, a value that is not a number)
is said twice: in ``AuditResult.log_lines`` for stderr, and, when the
account otherwise looks healthy, in the claim of the summary finding, so a
reader never takes "not looked at" for "looked and found nothing".
"""

from __future__ import annotations

import gc
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from .. import taxonomy
from ..cancellation import stop_if_set
from ..caseset.daily_rows import daily_rows
from ..caseset.snapshot_cache import snapshot_data
from . import bidding, budget, concentration, data_quality, delivery, efficiency, pacing, text, tracking, waste
from .findings import Assessment, Context
from .series import build_series
from ..domain.thresholds import Thresholds

AUDITOR_VERSION = "1.0"
SUMMARY_KIND = "summary.no_material_issues"
log = logging.getLogger("reviewtui.auditor")

# Order matters: data first (it sets ctx.broken), tracking before efficiency
# (a tracking stop explains a CPA), bidding before efficiency (learning explains volatility).
DETECTORS = (
    data_quality.detect,
    tracking.detect,
    bidding.detect,
    pacing.detect,
    budget.detect,
    waste.detect,
    efficiency.detect,
    concentration.detect,
    delivery.detect,
)


@dataclass
class AuditResult:
    assessments: list[Assessment]
    findings: list[Assessment]
    not_assessed: list[str] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    data_notes: list[str] = field(default_factory=list)  # bad or missing data worked around: warnings

    def output(self) -> dict[str, Any]:
        return {"findings": [f.as_output() for f in self.findings]}

    def to_json(self) -> str:
        return json.dumps(self.output(), ensure_ascii=False, indent=2)

    def assessments_for(self, kind: str, scope: str | None = None) -> list[Assessment]:
        """The assessments of one kind; with a scope, those of that campaign (or the account's)."""
        items = [a for a in self.assessments if a.kind == kind]
        if scope is not None:
            items = [a for a in items if a.scope in (scope, None)]
        return items


def audit(data: Any, thresholds: Thresholds | None = None, *, strict: bool = False,
          cancel: threading.Event | None = None) -> AuditResult:
    """Audit one parsed snapshot. ``strict`` re-raises a detector's exception (tests use it). Once
    ``cancel`` is set, the audit stops at its next step (before the rows are read, before the series,
    between detectors) with ``cancellation.Cancelled``: the one way to stop it, so it never stops half
    way through a step."""
    # The audit allocates an object or more per row and keeps them to the end, so the cyclic collector
    # would walk them again and again (a quarter of the time on 100,000 rows) to free nothing; it runs
    # again once the audit is done, and reference counting frees what the audit drops meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _audit(data, thresholds, strict, cancel)
    finally:
        if collecting:
            gc.enable()


def _audit(data: Any, thresholds: Thresholds | None, strict: bool, cancel: threading.Event | None) -> AuditResult:
    # A plain dict gets a cache for this audit: the detectors share one derived index
    data = snapshot_data(data)
    stop_if_set(cancel)
    daily_rows(data)  # the series' first part, kept on the snapshot: read apart so that a stop can fall after it
    stop_if_set(cancel)
    series = build_series(data)
    ctx = Context(series, thresholds or Thresholds())
    for detect in DETECTORS:
        stop_if_set(cancel)  # outside the guard below: a withdrawn audit is not a detector's failure
        try:
            detect(ctx)
        except Exception as exc:  # one detector's bug must not cost the others' findings
            if strict:
                raise
            family = detect.__module__.rsplit(".", 1)[-1]
            message = f"the {family.replace('_', ' ')} checks (they failed on this snapshot)"
            series.notes.append(f"{family} checks failed: {type(exc).__name__}: {exc}")
            log.debug("auditor detector failed", exc_info=True)
            ctx.not_assessed.append(message)
            for kind in taxonomy.kind_ids():
                if kind.startswith(family + ".") and not any(a.kind == kind for a in ctx.assessments):
                    ctx.assessments.append(Assessment(kind, None, None, explanation=message))
    findings = _select(ctx)
    log_lines = [*series.notes, *(f"not assessed: {n}" for n in ctx.not_assessed)]
    return AuditResult(ctx.assessments, findings, list(ctx.not_assessed), log_lines, list(series.notes))


def _select(ctx: Context) -> list[Assessment]:
    """The supported assessments, one per (kind, scope), in taxonomy order; or the summary."""
    order = {kind: i for i, kind in enumerate(taxonomy.kind_ids())}
    seen: set[tuple[str, str | None]] = set()
    chosen = []
    for item in sorted((a for a in ctx.assessments if a.supported), key=lambda a: order.get(a.kind, len(order))):
        key = (item.kind, item.scope)
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    if chosen:
        ctx.rejected(SUMMARY_KIND, None, "the audit found material issues")
        return chosen
    # Neutral words only: a clean case's must_not_say patterns are matched against this text too.
    claim = "No material issue found in this snapshot."
    if ctx.not_assessed:
        claim = "No material issue found in what could be assessed; not assessed: " + "; ".join(ctx.not_assessed) + "."
    return [ctx.found(SUMMARY_KIND, None, claim, _healthy_figures(ctx))]


def _healthy_figures(ctx: Context) -> str:
    """The summary's evidence: the account's healthy figures, each with its date range (spend to date
    against the expected spend to date, CPA or ROAS against target over the settled days, the largest
    campaign's share of account spend), or a plain sentence when none can be read."""
    s = ctx.series
    parts = []
    p = pacing.pace(s, ctx.derived) if not ctx.broken else None
    if p is not None and s.period_start and s.last_complete:
        parts.append(f"spend to date {text.money(p.spend_to_date, s.currency)} from {text.day(s.period_start)} to "
                     f"{text.day(s.last_complete)} against {text.money(p.expected_to_date, s.currency)} expected by then")
    lag = tracking.lag_model(ctx)
    settled = [d for d in s.complete_dates() if lag.settled(d) and s.in_period(d)]
    window = s.window(settled)
    target_cpa, target_roas = s.target("target_cpa"), s.target("target_roas")
    if settled and window.cpa is not None and target_cpa:
        parts.append(f"the account's CPA {text.money(window.cpa, s.currency)} from {text.day(settled[0])} to "
                     f"{text.day(settled[-1])} against a target of {text.money(target_cpa, s.currency)}")
    elif settled and window.roas is not None and target_roas:
        parts.append(f"the account's ROAS {window.roas:.2f} from {text.day(settled[0])} to {text.day(settled[-1])} "
                     f"against a target of {target_roas:g}")
    if s.campaign_totals and s.account.cost > 0:
        top = max(s.campaign_totals, key=lambda cid: s.campaign_totals[cid].cost)
        share = ctx.period(top, "share of account cost")
        if share is not None:
            parts.append(f"the largest campaign, {s.label(top)}, took {text.percent(share)} of account spend over the period")
    return ("; ".join(parts) + ".") if parts else "Every check the reference auditor runs passed."

