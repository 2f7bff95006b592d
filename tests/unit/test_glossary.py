"""The glossary (reviewtui/glossary.yaml): every term the prompt uses is defined there, and each
definition's worked example is what the function it names computes.

An example either calls the function with ``args`` (``self`` builds the instance of a method) and
compares the ``result``, or audits a small ``snapshot`` and compares the ``finds`` of a kind, or
reads a ``figure`` of the snapshot's derived index. A definition and the auditor that disagree fail
here: change one, and the example shows which.
"""

from __future__ import annotations

import importlib
import inspect
import math
from datetime import date, timedelta
from types import SimpleNamespace
from typing import Any, Callable

import pytest

from reviewtui import assistant, taxonomy
from reviewtui.auditor.audit import audit
from reviewtui.auditor.findings import Context
from reviewtui.auditor.series import Totals, build_series
from reviewtui.domain.thresholds import Thresholds
from reviewtui.scoring.derived_index import derived_index

TERMS = taxonomy.glossary()
METRICS = ("impressions", "clicks", "cost", "conversions", "conversions_value", "all_conversions",
           "search_budget_lost_impression_share")


def resolve(path: str) -> tuple[Any, Callable[..., Any] | property]:
    """``module:name`` or ``module:Class.attribute`` -> (the owner, the attribute)."""
    module_name, _, qualname = path.partition(":")
    owner: Any = importlib.import_module(module_name)
    *outer, name = qualname.split(".")
    for part in outer:
        owner = getattr(owner, part)
    return owner, inspect.getattr_static(owner, name) if isinstance(owner, type) else getattr(owner, name)


def expand(compact: dict[str, Any]) -> dict[str, Any]:
    """A snapshot from an example's compact form: ``daily`` maps each campaign to lists of its
    metrics from ``first`` (``skip``: 1-based positions left out); ``extra_rows`` are added as given."""
    snapshot: dict[str, Any] = {"schema_version": "1.0", "platform": compact.get("platform", "google_ads"),
                                "account": {"id": "1", "currency_code": "EUR", "time_zone": "Europe/Madrid"}}
    period = dict(compact["period"])
    snapshot["period"] = {k: v.isoformat() if isinstance(v, date) else v for k, v in period.items()}
    for key in ("targets", "campaigns", "budgets", "flight_plan", "change_events", "conversion_actions"):
        if key in compact:
            snapshot[key] = compact[key]
    rows = []
    for cid, series in compact.get("daily", {}).items():
        length = max(len(v) for k, v in series.items() if isinstance(v, list) and k != "skip")
        for i in range(length):
            if i + 1 in series.get("skip", ()):
                continue
            row: dict[str, Any] = {"date": (series["first"] + timedelta(days=i)).isoformat(), "campaign_id": cid}
            for metric in METRICS:
                if metric in series:
                    row[metric] = series[metric][i]
            row.setdefault("clicks", 10)
            row.setdefault("impressions", row["clicks"] * 10)
            row.setdefault("cost", float(row["clicks"]))
            row.setdefault("conversions", 0)
            row.setdefault("conversions_value", 0)
            rows.append(row)
    rows += [{"impressions": 100, "clicks": 10, "conversions": 0, "conversions_value": 0, **r}
             for r in compact.get("extra_rows", ())]
    snapshot["daily"] = rows
    return snapshot


def _argument(name: str, value: Any, annotation: Any, namespaced: list[str]) -> Any:
    if name in namespaced:
        return SimpleNamespace(**value)
    if "Totals" in str(annotation) and isinstance(value, dict):
        return Totals(**value)
    if isinstance(value, list) and value and all(isinstance(v, list) and len(v) == 2 for v in value):
        return [tuple(v) for v in value]  # pairs: (day, value), (cost, conversions)
    return value


def _plain(value: Any) -> Any:
    """Tuples as lists, recursively, to compare with YAML."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        decimals = len(repr(expected).partition(".")[2])
        return math.isclose(round(actual, decimals), expected, abs_tol=10 ** -(decimals + 3))
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(_same(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_same(actual[k], expected[k]) for k in expected)
    return actual == expected


def computed(term: taxonomy.Term, function: Any = None) -> Any:
    """What the term's function (or ``function``, to show a wrong one fails) gives on its example."""
    example = term.example
    owner, attribute = resolve(term.function)
    if function is not None:
        attribute = function
    if "finds" in example:  # the audit on the snapshot: the supported full ids of the kind
        result = audit(expand(example["snapshot"]), strict=True)
        found = [a for a in result.findings if a.kind == example["kind"]]
        claim = example.get("claim_has")
        if claim is not None and not all(claim in a.claim for a in found):
            return ["claims without " + claim]
        return sorted(taxonomy.join_id(a.kind, a.scope) for a in found)
    if "figure" in example:
        return derived_index(expand(example["snapshot"])).get(example["figure"])
    args = dict(example.get("args") or {})
    target = attribute.__func__ if isinstance(attribute, (classmethod, staticmethod)) else attribute
    call: Callable[..., Any] = target.fget if isinstance(target, property) else target
    params = inspect.signature(call).parameters
    namespaced = list(example.get("namespace") or ())
    kwargs = {k: _argument(k, v, params[k].annotation if k in params else None, namespaced) for k, v in args.items()}
    positional: list[Any] = []
    if "self" in example:
        positional.append(owner(**example["self"]))
    elif example.get("pass") in ("series", "context"):
        series = build_series(expand(example["snapshot"]))
        if example["pass"] == "series":
            positional.append(series)
        else:
            ctx = Context(series, Thresholds())
            ctx.stops.update(example.get("stops") or {})
            positional.append(ctx)
    return _plain(call(*positional, **kwargs))


def test_the_glossary_has_a_term_for_each_point_the_prompt_left_open():
    names = {t.term for t in TERMS}
    for needed in ("smart bidding", "conversion-objective campaign", "lag-adjusted", "settled day", "chance", "z",
                   "trend score", "daily cap exceeded", "tracked rate", "budget schedule", "month-end projection",
                   "change point", "at or better than target", "baseline", "per 30 days", "needed share",
                   "brand campaign", "causes, not symptoms", "missing day", "corrected reading"):
        assert needed in names


@pytest.mark.parametrize("term", TERMS, ids=[t.term for t in TERMS])
def test_each_term_names_a_function_and_carries_a_worked_example(term):
    resolve(term.function)
    assert term.example.get("text"), f"{term.term}: the example has no text for the prompt"
    assert {"result", "finds"} & term.example.keys(), f"{term.term}: the example has no result to check"


@pytest.mark.parametrize("term", TERMS, ids=[t.term for t in TERMS])
def test_the_named_function_computes_the_worked_example(term):
    expected = term.example.get("finds", term.example.get("result"))
    actual = computed(term)
    assert _same(actual, _plain(expected)), f"{term.term}: {term.function} gives {actual!r}, the glossary says {expected!r}"


def _term(name: str) -> taxonomy.Term:
    return next(t for t in TERMS if t.term == name)


@pytest.mark.parametrize("name, wrong", [
    ("chance", lambda observed, expected: math.exp(-expected) * sum(expected ** k / math.factorial(k)
                                                                     for k in range(round(observed) + 1))),
    ("daily cap exceeded", lambda cost, budget, multiple, margin: cost > budget * multiple + margin),
    ("recorded share", lambda self, day: 1.0),
    ("needed share", lambda campaigns, min_share, multiple_of_even_share, max_needed_share:
        max(min_share, multiple_of_even_share / campaigns)),
])
def test_a_function_that_computes_a_term_otherwise_fails_its_example(name, wrong):
    """Fractional conversions rounded instead of floored, the margin added instead of multiplied, lag
    ignored, the two-campaign cap dropped: each disagrees with the definition's example."""
    term = _term(name)
    assert not _same(computed(term, wrong), _plain(term.example["result"]))


def test_an_auditor_that_reads_a_term_otherwise_fails_its_example(monkeypatch):
    """The audit-level examples fail too: with efficiency no longer explained by a tracking cause,
    the step drop's CPA rise is reported as a drift."""
    from reviewtui.auditor import efficiency

    monkeypatch.setattr(efficiency, "_explained", lambda ctx, scope: None)
    term = _term("causes, not symptoms")
    assert computed(term) != term.example["finds"]


@pytest.mark.slow
def test_the_prompt_uses_no_term_the_glossary_does_not_define():
    """The glossary's own definitions included: a term defined with an undefined term is undefined."""
    assert taxonomy.undefined_terms(assistant.system_prompt()) == []


@pytest.mark.slow
def test_a_term_the_glossary_does_not_define_is_caught(monkeypatch):
    assert taxonomy.undefined_terms("CPA over the settled weeks") == ['settled: "...CPA over the settled weeks..."']
    assert taxonomy.undefined_terms("CPA over the settled days") == []
    assert taxonomy.undefined_terms("the lag-weighted CPA") == ['lag: "...the lag-weighted CPA..."']
    kind = taxonomy.kinds()["efficiency.cpa_drift"]
    monkeypatch.setitem(taxonomy.kinds(), kind.id, taxonomy.Kind(kind.id, kind.meaning, kind.detection + " Read it on the "
                                                                  "lag-weighted cost.", kind.thresholds, kind.severity))
    assistant.system_prompt.cache_clear()
    try:
        assert any(p.startswith("lag:") for p in taxonomy.undefined_terms(assistant.system_prompt()))
    finally:
        assistant.system_prompt.cache_clear()


def test_every_term_and_its_example_reach_the_prompt():
    text = assistant.system_prompt()
    glossary = text[text.index(assistant.GLOSSARY_HEADING):]
    for term in TERMS:
        assert assistant.term_text(term) in glossary
        assert term.definition in glossary and term.example["text"] in glossary


def test_the_auditor_and_the_scoring_call_the_domain_functions_themselves():
    """One implementation of each shared term: the modules that use it hold the domain's function."""
    from reviewtui.auditor import budget, efficiency, pacing, schedule, tracking, waste
    from reviewtui.domain import budgets, chance, lag
    from reviewtui.domain import pacing as domain_pacing
    from reviewtui.scoring import pacing_figures

    assert efficiency.poisson_at_most is chance.poisson_at_most
    assert efficiency.domain_trend_z is chance.trend_z
    assert waste.poisson_zero is chance.poisson_zero is tracking.poisson_zero
    assert tracking.LagModel is lag.LagModel and tracking.poisson_z is chance.poisson_z
    assert pacing.exceeds_daily_cap is budgets.exceeds_daily_cap and pacing.cap_multiple is budgets.cap_multiple
    assert schedule.cap_budget_on is budgets.cap_budget_on and schedule.amount_on is budgets.amount_on
    assert pacing_figures.budget_schedule is budgets.budget_schedule
    assert pacing_figures.month_end_projection is domain_pacing.month_end_projection
    assert pacing_figures.spread_on_schedule is domain_pacing.spread_on_schedule
    assert budget.read_budgets is schedule.read_budgets


# The readings independent auditors had to guess on audit-v4, each now stated in the taxonomy's kind text
# or the glossary: the reference auditor reads them so.
_MONTH = {"start": date(2025, 3, 1), "end": date(2025, 3, 31), "as_of": date(2025, 3, 21)}


def _found(snapshot: dict[str, Any]) -> list[str]:
    return sorted(taxonomy.join_id(f.kind, f.scope) for f in audit(expand(snapshot), strict=True).findings)


@pytest.mark.parametrize("conversions, finds", [(4, []), (5, ["efficiency.off_target@1"])])
def test_off_target_against_a_roas_target_needs_min_conversions_too(conversions, finds):
    """ROAS 0.1 against a target of 4 is far beyond chance either way; under 5 conversions it is a small sample."""
    assert "at least min conversions (against either target)" in taxonomy.kinds()["efficiency.off_target"].detection
    days = {19 - 3 * i for i in range(conversions)}
    snapshot = {"period": _MONTH, "targets": {"target_roas": 4.0},
                "daily": {"1": {"first": date(2025, 3, 1), "clicks": [100] * 20, "cost": [100.0] * 20,
                                "conversions": [int(i in days) for i in range(20)],
                                "conversions_value": [50 * int(i in days) for i in range(20)]}}}
    assert [f for f in _found(snapshot) if f.startswith("efficiency.")] == finds


def test_a_learning_period_is_a_finding_so_no_summary_beside_it():
    assert "never a summary beside it" in taxonomy.kinds()["summary.no_material_issues"].detection
    snapshot = {"period": _MONTH, "targets": {"target_cpa": 10.0},
                "change_events": [{"campaign_id": "1", "change_date_time": "2025-03-15 10:00:00",
                                   "changed_field": "target_cpa", "old": "12", "new": "10"}],
                "daily": {"1": {"first": date(2025, 3, 1), "clicks": [100] * 20, "cost": [100.0] * 20,
                                "conversions": [10] * 20}}}
    assert _found(snapshot) == ["bidding.learning_period@1"]


def test_a_breakage_withholds_a_campaign_kind_only_where_it_touches():
    """Campaign 2 is in SEK in a EUR account: its own lost share is not assessed, campaign 1's is."""
    assert "the campaigns in it or with rows in it" in _term("withheld").definition
    snapshot = {"period": _MONTH, "targets": {"target_cpa": 10.0},
                "campaigns": [{"id": "1", "name": "Shoes"}, {"id": "2", "name": "Boots", "currency_code": "SEK"}],
                "daily": {cid: {"first": date(2025, 3, 1), "clicks": [100] * 20, "cost": [100.0] * 20,
                                "conversions": [12] * 20, "search_budget_lost_impression_share": [0.3] * 20}
                          for cid in ("1", "2")}}
    assert _found(snapshot) == ["budget.lost_is_budget@1", "data.currency_mismatch"]


def test_every_term_name_with_a_number_is_read_as_a_name_not_a_figure():
    """"7.41 per 30 days": the 30 is part of the term's name, never a figure the answer must declare."""
    from reviewtui.scoring.figures import TERM_NAMES_WITH_NUMBERS, find_figures

    with_numbers = {name for t in TERMS for name in (t.term, *t.also) if any(c.isdigit() for c in name)}
    assert with_numbers <= set(TERM_NAMES_WITH_NUMBERS)
    for name in TERM_NAMES_WITH_NUMBERS:
        assert [f.text for f in find_figures(f"12.5 conversions {name}, cost 80.00")] == ["12.5", "80.00"]
