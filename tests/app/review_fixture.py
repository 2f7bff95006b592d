"""A small, fixed case set and fixed run results for the review screens' tests.

Everything is written into a temporary folder by the tests: five cases (all
four kinds), and two runs of them (``audit-t1`` and ``audit-t2``) whose
result files follow docs/formats.md ("Result files") with hand-written
scores, so the snapshot tests do not move when the scorer's wording does.
Dates are fixed.
"""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

from reviewtui.backends.base import Backend, CaseOutput
from reviewtui.caseset.cases import Case
from tests.app.apphelpers import make_review_app, wait_until  # noqa: F401 - the harness, for the review tests

CAMPAIGNS = [
    {"id": "111", "name": "Search | Brand | DE", "status": "ENABLED"},
    {"id": "333", "name": "Search | Generic | DE", "status": "ENABLED"},
]


def snapshot(days: int = 6) -> dict[str, Any]:
    daily = []
    for day in range(1, days + 1):
        daily.append({"date": f"2025-03-{day:02d}", "campaign_id": "111", "impressions": 5000 + day,
                      "clicks": 800 + day, "cost": 240.5 + day, "conversions": 60.0, "conversions_value": 4800.0})
        daily.append({"date": f"2025-03-{day:02d}", "campaign_id": "333", "impressions": 3000 + day,
                      "clicks": 400 + day, "cost": 520.25 + day,
                      "conversions": 9.0 if day < 4 else 0.0, "conversions_value": 900.0 if day < 4 else 0.0})
    return {
        "schema_version": "1.0",
        "platform": "google_ads",
        "account": {"id": "123-456-7890", "name": "ACCT-R", "currency_code": "EUR", "time_zone": "Europe/Berlin"},
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-07"},
        "targets": {"monthly_budget": 24000.0, "target_cpa": 45.0},
        "campaigns": CAMPAIGNS,
        "daily": daily,
        "search_terms": [{"campaign_id": "333", "search_term": "free widget template", "impressions": 2210,
                          "clicks": 74, "cost": 166.5, "conversions": 0.0}],
    }


EXPECTED = {
    "c01-tracking": """\
# Generic's Purchase tag stopped on 2025-03-04.
case: c01-tracking
kind: ordinary
must_find:
  - id: tracking.conversions_stopped@333
    evidence: Campaign 333 records 0 conversions from 2025-03-04 while clicks hold near 404 a day
    rows: [/daily/7, /daily/9]
may_find:
  - id: concentration.spend_single_campaign@333
    evidence: Campaign 333 takes most of the spend
must_not_say:
  - id: pacing.overspend
    evidence: spend is on pace
    says: ["overspen"]
""",
    "c02-search-waste": """\
case: c02-search-waste
kind: ordinary
must_find:
  - id: tracking.conversions_stopped@333
    evidence: Campaign 333 records 0 conversions from 2025-03-04
    rows: [/daily/7]
  - id: waste.zero_conv_search_terms@333
    evidence: free widget template spent 166.50 with no conversions
    rows: [/search_terms/0]
""",
    "c03-duplicates": """\
case: c03-duplicates
kind: broken_data
must_find:
  - id: data.duplicate_rows
    evidence: 2025-03-01 appears twice for campaign 111
    rows: [/daily/0]
""",
    "c04-healthy": """\
case: c04-healthy
kind: clean
must_find:
  - id: summary.no_material_issues
    evidence: nothing material is wrong
""",
    "c05-learning-trap": """\
case: c05-learning-trap
kind: trap
must_find:
  - id: bidding.learning_period@111
    evidence: the bid strategy of 111 changed on 2025-03-03
must_not_say:
  - id: tracking.conversions_stopped@111
    evidence: brand conversions hold at 60 a day
""",
}
CASE_IDS = list(EXPECTED)


def write_case_set(root: Path) -> Path:
    """Write the five cases under ``root/cases``; return that folder."""
    cases_dir = root / "cases"
    for case_id, text in EXPECTED.items():
        case_dir = cases_dir / case_id
        case_dir.mkdir(parents=True, exist_ok=True)
        (case_dir / "expected.yaml").write_text(text, encoding="utf-8")
        (case_dir / "snapshot.json").write_text(json.dumps(snapshot(), indent=2), encoding="utf-8")
    return cases_dir


def finding(fid: str, scope: str | None, claim: str, evidence: str, severity: str = "high") -> dict[str, Any]:
    return {"id": fid, "scope": scope, "claim": claim, "evidence": evidence, "severity": severity}


# What each stub assistant returns, by case id (the raw JSON is built from these).
GOOD_OUTPUT = {
    "c01-tracking": [finding("tracking.conversions_stopped", "333",
                             "Purchase tracking stopped in campaign 333.",
                             "0 conversions every day from 2025-03-04 while clicks stay near 404.")],
    "c02-search-waste": [
        finding("tracking.conversions_stopped", "333", "Conversions stopped.", "0 conversions from 2025-03-04."),
        finding("waste.zero_conv_search_terms", "333", "Search terms waste spend.",
                "free widget template spent 166.50 with 0 conversions."),
    ],
    "c03-duplicates": [finding("data.duplicate_rows", None, "Duplicate rows.", "2025-03-01 appears twice.")],
    "c04-healthy": [finding("summary.no_material_issues", None, "Healthy account.", "Nothing material.", "low")],
    "c05-learning-trap": [finding("bidding.learning_period", "111", "Bid strategy changed.",
                                  "Changed on 2025-03-03.", "medium")],
}


SCORING_KEYS = ("full_id", "verdict", "matches")  # what scoring adds to a finding; never in an answer


def raw(findings: list[dict[str, Any]]) -> str:
    """An answer's raw text: the findings as the assistant returns them (the schema allows no other key)."""
    return json.dumps({"findings": [{k: v for k, v in f.items() if k not in SCORING_KEYS} for f in findings]}, indent=2)


class CountingStubBackend(Backend):
    """Returns fixed outputs by case id and counts the calls per case.

    Calls beyond ``hold_after`` wait for ``release`` (see ``release_all``), so a
    test can cancel a run halfway in a deterministic way.
    """

    name = "stub"
    model = "stub-model"

    def __init__(self, outputs: dict[str, list[dict[str, Any]]] | None = None,
                 hold_after: int | None = None) -> None:
        self.outputs = outputs if outputs is not None else GOOD_OUTPUT
        self.calls: dict[str, int] = {}
        self.hold_after = hold_after
        self.release = asyncio.Event()
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop running the calls

    def release_all(self) -> None:
        """Let held calls finish, from any thread (the event lives on the loop that runs the calls)."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.release.set)
        else:
            self.release.set()

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        self.loop = asyncio.get_running_loop()
        self.calls[case.case_id] = self.calls.get(case.case_id, 0) + 1
        if self.hold_after is not None and self.total_calls > self.hold_after:
            await self.release.wait()
        return CaseOutput(case.case_id, raw(self.outputs.get(case.case_id, [])), input_tokens=1000,
                          output_tokens=200, model=self.model)


# --------------------------------------------------------------------------
# Fixed result files of two runs
# --------------------------------------------------------------------------

def scored_finding(f: dict[str, Any], verdict: str, matches: str | None) -> dict[str, Any]:
    full_id = f["id"] + (f"@{f['scope']}" if f["scope"] else "")
    return {**f, "full_id": full_id, "verdict": verdict, "matches": matches}


def figure(findings: list[dict[str, Any]], index: int, field: str, text: str, grounded: bool,
           reason: str) -> dict[str, Any]:
    start = findings[index][field].index(text)
    value = float(text.strip("$%").replace(",", ""))
    return {"finding_index": index, "field": field, "text": text, "start": start, "end": start + len(text),
            "value": value, "grounded": grounded, "reason": reason}


def score(case_id: str, findings: list[dict[str, Any]], *, recall: float, precision: float,
          missed: list[str], matched: list[str], figures: list[dict[str, Any]] = (),
          hits: list[dict[str, Any]] = (), status: str = "ok", parse_error: str | None = None,
          extra: list[str] = ()) -> dict[str, Any]:
    fabricated = [f for f in figures if not f["grounded"]]
    return {"case_id": case_id, "status": status, "recall": recall, "precision": precision,
            "fabrication": len(fabricated) + len(hits), "missed_ids": missed, "matched_ids": matched,
            "extra_ids": list(extra), "findings": findings, "figures": list(figures),
            "fabricated_figures": fabricated, "must_not_say_hits": list(hits), "parse_error": parse_error,
            "error": None}


def _v1() -> dict[str, tuple[str, dict[str, Any]]]:
    c01 = [scored_finding(finding("concentration.spend_single_campaign", "333",
                                  "Campaign 333 takes 68% of spend and wasted $48,213.77 this month.",
                                  "Cost 3,141.50 from 2025-03-01 to 2025-03-06."), "may_find",
                          "concentration.spend_single_campaign@333")]
    c02 = [scored_finding(GOOD_OUTPUT["c02-search-waste"][1], "matched", "waste.zero_conv_search_terms@333"),
           scored_finding(finding("pacing.underspend", None, "Spend is behind plan.", "Spent 4,617.00 so far.",
                                  "low"), "extra", None)]
    c05 = [scored_finding(finding("tracking.conversions_stopped", "111", "Brand tracking broke.",
                                  "Conversions fell on 2025-03-03."), "must_not_say", None)]
    return {
        "c01-tracking": (raw(c01), score(
            "c01-tracking", c01, recall=0.0, precision=1.0, missed=["tracking.conversions_stopped@333"],
            matched=[], figures=[
                figure(c01, 0, "claim", "68%", True, "derived: campaign 333 share of account cost, period"),
                figure(c01, 0, "claim", "$48,213.77", False, "no snapshot or derived value within 0.005"),
                figure(c01, 0, "evidence", "3,141.50", True, "snapshot value /daily/9/cost"),
            ])),
        "c02-search-waste": (raw(c02), score(
            "c02-search-waste", c02, recall=0.5, precision=0.5, missed=["tracking.conversions_stopped@333"],
            matched=["waste.zero_conv_search_terms@333"], extra=["pacing.underspend"], figures=[
                figure(c02, 0, "evidence", "166.50", True, "snapshot value /search_terms/0/cost"),
                figure(c02, 1, "evidence", "4,617.00", True, "derived: account cost, period"),
            ])),
        "c03-duplicates": (raw(GOOD_OUTPUT["c03-duplicates"]), score(
            "c03-duplicates", [scored_finding(GOOD_OUTPUT["c03-duplicates"][0], "matched", "data.duplicate_rows")],
            recall=1.0, precision=1.0, missed=[], matched=["data.duplicate_rows"])),
        "c04-healthy": (raw(GOOD_OUTPUT["c04-healthy"]), score(
            "c04-healthy", [scored_finding(GOOD_OUTPUT["c04-healthy"][0], "matched", "summary.no_material_issues")],
            recall=1.0, precision=1.0, missed=[], matched=["summary.no_material_issues"])),
        "c05-learning-trap": (raw(c05), score(
            "c05-learning-trap", c05, recall=0.0, precision=0.0, missed=["bidding.learning_period@111"],
            matched=[], extra=["tracking.conversions_stopped@111"],
            hits=[{"finding_index": 0, "entry_id": "tracking.conversions_stopped@111", "by": "id",
                   "pattern": None}])),
    }


# audit-t2 declares its figures (prompt audit-v4's shape): c01's stop, with one declared figure the text
# does not print (campaign 333's clicks 2025-03-04..06: 404 + 405 + 406) and its "404" left undeclared.
CLICKS_333 = {"label": "k", "printed": "1,215", "how": "aggregate", "stat": "sum", "metric": "clicks",
              "campaigns": ["333"], "except": [], "from": "2025-03-04", "to": "2025-03-06", "reading": "as_is"}
DECLARED_C01 = [{**GOOD_OUTPUT["c01-tracking"][0], "figures": [CLICKS_333]}]


def _declared_c01_figures(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    near = {**figure(findings, 0, "evidence", "404", True, "not declared in the finding's figures; by the prose rules: "
                     "snapshot /daily/7/clicks = 404"),
            "status": "untraceable", "rows": ["/daily/7/clicks"], "row_count": 1, "declared": None}
    declared = {"finding_index": 0, "field": "figures", "text": "1,215", "start": -1, "end": -1, "value": 1215.0,
                "grounded": True, "status": "grounded",
                "reason": "declared and recomputed: sum of clicks, campaign 333, 2025-03-04 to 2025-03-06 = 1,215",
                "rows": ["/daily/7", "/daily/9", "/daily/11"], "row_count": 3,
                "declared": {"label": "k", "printed": "1,215", "declaration": CLICKS_333, "recomputed": 1215.0,
                             "error": None, "what": "sum of clicks, campaign 333, 2025-03-04 to 2025-03-06",
                             "note": "the total clicks of campaign Search | Generic | DE (333), 2025-03-04 to 2025-03-06"}}
    return [near, declared]


def _v2() -> dict[str, tuple[str, dict[str, Any]]]:
    good = {cid: [scored_finding(f, "matched", f["id"] + (f"@{f['scope']}" if f["scope"] else ""))
                  for f in GOOD_OUTPUT[cid]] for cid in GOOD_OUTPUT}
    c01 = [scored_finding(f, "matched", "tracking.conversions_stopped@333") for f in DECLARED_C01]
    return {
        "c01-tracking": (raw(DECLARED_C01), {**score(
            "c01-tracking", c01, recall=1.0, precision=1.0, missed=[],
            matched=["tracking.conversions_stopped@333"], figures=_declared_c01_figures(c01)), "untraceable": 1}),
        "c02-search-waste": (raw(GOOD_OUTPUT["c02-search-waste"]), score(
            "c02-search-waste", good["c02-search-waste"], recall=1.0, precision=1.0, missed=[],
            matched=["tracking.conversions_stopped@333", "waste.zero_conv_search_terms@333"],
            figures=[figure(good["c02-search-waste"], 1, "evidence", "166.50", True,
                            "snapshot value /search_terms/0/cost")])),
        "c03-duplicates": ("Sorry, I cannot audit this account.", score(
            "c03-duplicates", [], recall=0.0, precision=0.0, missed=["data.duplicate_rows"], matched=[],
            status="unparseable", parse_error="not JSON: Expecting value at line 1 column 1")),
        "c04-healthy": (raw(GOOD_OUTPUT["c04-healthy"]), score(
            "c04-healthy", good["c04-healthy"], recall=1.0, precision=1.0, missed=[],
            matched=["summary.no_material_issues"])),
        "c05-learning-trap": (raw([]), score(
            "c05-learning-trap", [], recall=0.0, precision=1.0, missed=["bidding.learning_period@111"],
            matched=[])),
    }


KINDS = {"c01-tracking": "ordinary", "c02-search-waste": "ordinary", "c03-duplicates": "broken_data",
         "c04-healthy": "clean", "c05-learning-trap": "trap"}
RUNS = {"audit-t1": (_v1, "2025-03-20T09:00:00+00:00"), "audit-t2": (_v2, "2025-03-21T10:30:00+00:00")}


def write_run(results_dir: Path, version: str, cases_dir: Path | None = None) -> Path:
    """Write the fixed results of run ``version`` (``audit-t1`` or ``audit-t2``); return its folder."""
    build, started_at = RUNS[version]
    results = build()
    run_dir = results_dir / version
    (run_dir / "cases").mkdir(parents=True, exist_ok=True)
    scores = [s for _, s in results.values()]
    missed_by_kind: dict[str, dict[str, Any]] = {}
    for s in scores:
        for full_id in s["missed_ids"]:
            entry = missed_by_kind.setdefault(full_id.split("@")[0], {"cases": 0, "ids": {}})
            entry["ids"].setdefault(full_id, []).append(s["case_id"])
    for entry in missed_by_kind.values():
        entry["cases"] = len({c for ids in entry["ids"].values() for c in ids})
    mean_recall = sum(s["recall"] for s in scores) / len(scores)
    fabrications = sum(s["fabrication"] for s in scores)
    reasons = []
    if mean_recall < 0.9:
        reasons.append(f"mean recall {mean_recall:.3f} is below 0.90")
    if fabrications:
        worst = ", ".join(s["case_id"] for s in scores if s["fabrication"])
        reasons.append(f"{fabrications} fabrications (allowed 0): {worst}")
    manifest = {
        "prompt_version": version, "prompt_sha256": "0" * 64, "backend": "replay", "model": "claude-sonnet-5-5",
        "backend_details": {}, "cases_dir": str(cases_dir) if cases_dir else "cases",
        "case_set_hash": "ab12cd34" + "e" * 56,
        "figures": "derived", "thresholds": {"min_mean_recall": 0.9, "max_fabrications": 0},
        "started_at": started_at, "finished_at": started_at.replace(":00+", ":42+"), "status": "complete",
        "summary": {"cases": len(scores), "mean_recall": mean_recall,
                    "mean_precision": sum(s["precision"] for s in scores) / len(scores),
                    "fabrications": fabrications,
                    "unparseable": sum(1 for s in scores if s["status"] == "unparseable"),
                    "errors": sum(1 for s in scores if s["status"] == "error")},
        "gate": {"passed": not reasons, "reasons": reasons},
        "missed_by_kind": missed_by_kind,
        "usage": {"input_tokens": 5000, "output_tokens": 1000, "cost_usd": 0.02},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    for case_id, (text, s) in results.items():
        output = {"case_id": case_id, "raw_text": text, "error": None, "input_tokens": 1000,
                  "output_tokens": 200, "stop_reason": "end_turn", "cached": False, "model": "claude-sonnet-5-5"}
        (run_dir / "cases" / f"{case_id}.json").write_text(
            json.dumps({"case_id": case_id, "kind": KINDS[case_id], "output": output, "score": s}, indent=2), encoding="utf-8")
    with (results_dir / f"{version}.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["case_id", "recall", "precision", "fabrication", "missed_ids", "kind", "status"])
        for s in scores:
            writer.writerow([s["case_id"], s["recall"], s["precision"], s["fabrication"],
                             ";".join(s["missed_ids"]), KINDS[s["case_id"]], s["status"]])
    return run_dir


# --------------------------------------------------------------------------
# The app on these files, for Pilot and snapshot tests
# --------------------------------------------------------------------------

SIZE = (130, 36)


def review_repo(tmp_path: Path, monkeypatch, runs: tuple[str, ...] = tuple(RUNS)) -> Path:
    """The five cases and the given fixed runs in ``tmp_path``, made the working folder (so the
    paths the app shows are the relative ``cases`` and ``results``)."""
    write_case_set(tmp_path)
    for version in runs:
        write_run(tmp_path / "results", version)
    monkeypatch.chdir(tmp_path)
    return tmp_path
