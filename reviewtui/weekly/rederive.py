"""The stamp's verdict derived again from the run's stored answers, never read from its manifest.

A manifest is a file anyone can edit: ``gate.passed: true`` on a failing
run, ``complete`` on a cancelled one, a new prompt's hash pasted in, another
backend's answers moved into the Claude place. So before a weekly run the
stamp check (``stamp.py``) does not take the manifest's word. From the
answers stored in ``results/<version>/cases/*.json`` it requires:

1. one case file per case of the case set as it is now, and no other case in
   the manifest's list;
2. for every answer (every repeat): that it was obtained; the Claude API's
   record of it (``backends/provenance.py``: message id, request id or batch id,
   endpoint, the request it answers, the run that got it), its ids of the
   API's shape; the run's endpoint; a model the API reported as the run's;
   the snapshot bytes of the case as they are now; its text, the text whose
   SHA-256 was recorded when it was received; the request the weekly run
   would send for that case now (the prompt text, the snapshot, the model,
   ``max_tokens`` and the repeat: the response cache's key); listed in the
   manifest as the answer its run scored for that case (message id, text
   hash, run id), so no answer of another run stands in; and message ids (and
   request ids) that no two answers share;
3. the answers scored again against the cases as they are now, with the
   gate's own thresholds: the gate must pass, and the figures the manifest
   reports (cases, mean recall and precision, fabrications, unparseable
   answers, errors) must be the ones the answers give.

Each kind of difference is one reason line naming the cases it concerns.
The checks stop at the first step that fails: answers that are not the
Claude API's are not scored.

What this does not protect against: someone who edits reviewtui's code, or
who rewrites the record consistently (an answer's text and its recorded
hash, the manifest's list, the figures), or makes one up with ids of the
right shape. The optional signature (``runs/signature.py``) covers the
record's bytes for teams whose CI makes the stamp and whose scheduler runs
the weekly job (docs/weekly.md).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, TYPE_CHECKING

from .. import assistant
from ..backends.base import CaseOutput
from ..caseset.cases import Case, CaseSet
from ..backends.cache import cache_key
from ..runs.result_files import ResultsError, RunPaths
from ..runs.gate import THRESHOLDS, gate_verdict, summarize
from ..backends.provenance import listed_answer, record_problem, snapshot_sha256
from ..runs.case_records import CaseRecord, read_case_record, score_record

if TYPE_CHECKING:
    from ..runs.manifest_fields import Manifest

SHOWN = 3  # cases named in a reason before "and N more"
# The manifest's summary figures a re-scoring must reproduce.
COMPARED = ("cases", "scored", "mean_recall", "mean_precision", "fabrications", "unparseable_answers", "errors")


def named(case_ids: Iterable[str]) -> str:
    """``c01, c02, c03 and 4 more``."""
    ids = sorted(set(case_ids))
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more


def rederive(manifest: Manifest, paths: RunPaths, case_set: CaseSet, *, max_tokens: int) -> list[str]:
    """The reasons the stored answers of ``paths`` do not bear out ``manifest``; empty when they do."""
    version = paths.version
    cases = {case.case_id: case for case in case_set.cases}
    if not manifest.get("run_id") or not isinstance(manifest.get("answers"), dict):
        return [f"the manifest of {version} records no run id or no list of the answers its run scored (a record "
                f"made before reviewtui kept them, or edited); rerun the eval"]
    listed = manifest.get("case_ids")
    if isinstance(listed, list) and set(listed) != set(cases):
        extra, absent = set(listed) - set(cases), set(cases) - set(listed)
        what = "; ".join(part for part in (f"{named(extra)} not in the case set" if extra else "",
                                           f"{named(absent)} of the case set not in it" if absent else "") if part)
        return [f"the manifest of {version} lists other cases than the case set {case_set.root} has ({what})"]

    records, missing, unreadable = {}, [], []
    for case_id in cases:
        path = paths.case_file(case_id)
        if not path.exists():
            missing.append(case_id)
            continue
        try:
            records[case_id] = read_case_record(path)
        except ResultsError:
            unreadable.append(case_id)
    if missing or unreadable:
        parts = ([f"no stored answer for {len(missing)} case(s) of the case set ({named(missing)})"] if missing else []) \
            + ([f"{len(unreadable)} case file(s) that cannot be read ({named(unreadable)})"] if unreadable else [])
        return [f"{paths.cases_dir} does not hold the run the manifest of {version} describes: " + "; ".join(parts)]

    problems = answer_problems(manifest, records, cases, max_tokens=max_tokens)
    if problems:
        return problems
    return verdict_problems(manifest, records, cases, version)


def _expected_model(reported: str | None, model: str) -> bool:
    """The API reports the model it ran: the name asked for, or a dated version of it."""
    return bool(reported) and (reported == model or str(reported).startswith(f"{model}-"))


def answer_problems(manifest: Manifest, records: dict[str, CaseRecord], cases: dict[str, Case], *,
                    max_tokens: int) -> list[str]:
    """One reason per kind of answer the Claude backend did not record for this run, naming the cases."""
    model = str(manifest.get("model"))
    endpoint = (manifest.get("backend_details") or {}).get("endpoint")
    repeats = manifest.get("repeats") or 1
    scored = manifest.get("answers") or {}
    found: dict[str, list[str]] = {}
    message_ids: Counter[str] = Counter()
    request_ids: Counter[str] = Counter()

    def flag(kind: str, case_id: str) -> None:
        found.setdefault(kind, []).append(case_id)

    for case_id, record in records.items():
        case = cases[case_id]
        if record.runs != repeats:
            flag("repeats", case_id)
            continue
        current = snapshot_sha256(case)
        requests: dict[int, str] = {}
        for repeat, output in enumerate(record.outputs):
            kind = _answer_problem(output, model=model, endpoint=endpoint, snapshot=current)
            if kind is None:
                requests = requests or _request_keys(case, model=model, max_tokens=max_tokens, repeats=repeats)
                if (output.provenance or {}).get("request_sha256") != requests[repeat]:
                    kind = "request"
            if kind is None and not _listed(scored.get(case_id), repeat, output):
                kind = "unlisted"
            if kind is not None:
                flag(kind, case_id)
                break
            provenance = output.provenance or {}
            message_ids[str(provenance.get("message_id"))] += 1
            if provenance.get("request_id"):
                request_ids[str(provenance.get("request_id"))] += 1
    shared = {i for i, n in {**message_ids, **request_ids}.items() if n > 1}
    if shared and not found:
        for case_id, record in records.items():
            if any({(o.provenance or {}).get("message_id"), (o.provenance or {}).get("request_id")} & shared
                   for o in record.outputs):
                flag("shared", case_id)

    what = {
        "repeats": f"hold another number of answers than the run's {repeats} repeat(s)",
        "error": "hold an answer that could not be obtained (an error), so the run was not complete",
        "record": "hold answers the Claude backend did not record: no message id, request id, endpoint and run id "
                  "from the API (another backend's results, a response cache written without them, or a record "
                  "made before reviewtui kept them)",
        "ids": "hold ids that are not of the API's shape (msg_, req_ or msgbatch_ followed by letters and digits): "
               "ids the API did not give",
        "text": "hold answer text that is not the text the API returned (its SHA-256, recorded when it was received, "
                "differs or is missing): edited since",
        "endpoint": f"were answered at another endpoint than the run's ({endpoint})",
        "model": f"were answered by another model than the run's {model}, as the API reported it",
        "snapshot": "were answered for other snapshot bytes than the case has now",
        "request": "were answered to another request than the weekly run sends for them now (prompt text, model, "
                   "--max-tokens or snapshot)",
        "shared": "share a message id or request id with another answer: each call to the API has its own",
        "unlisted": "hold answers the manifest does not list as the ones its run scored (message id, text hash, "
                    "run id): answers of another run",
    }
    return [f"{len(set(ids))} case(s) ({named(ids)}) {what[kind]}" for kind, ids in found.items()]


def _request_keys(case: Case, *, model: str, max_tokens: int, repeats: int) -> dict[int, str]:
    """The response cache's key of each repeat of the request the weekly run would send for ``case`` now."""
    text = case.snapshot.text if case.snapshot is not None else case.snapshot_path.read_text(encoding="utf-8")
    request = assistant.build_request(text, model=model, max_tokens=max_tokens)
    return {repeat: cache_key(request, repeat) for repeat in range(repeats)}


def _listed(entries: Any, repeat: int, output: CaseOutput) -> bool:
    """Whether the manifest's list of the answers its run scored for the case holds this one at ``repeat``."""
    return isinstance(entries, list) and repeat < len(entries) and entries[repeat] == listed_answer(output.provenance)


def _answer_problem(output: CaseOutput, *, model: str, endpoint: Any, snapshot: str) -> str | None:
    if not output.obtained:
        return "error"
    record = record_problem(output.provenance, output.raw_text)
    if record in ("record", "ids"):
        return record
    if (output.provenance or {}).get("endpoint") != endpoint:
        return "endpoint"
    if not _expected_model(output.model, model):
        return "model"
    if output.snapshot_sha256 != snapshot:
        return "snapshot"
    return record  # "text", or None


def verdict_problems(manifest: Manifest, records: dict[str, CaseRecord], cases: dict[str, Case],
                     version: str) -> list[str]:
    """The gate and the summary figures, from the answers scored again against the cases as they are."""
    figures = manifest.get("figures") or "derived"
    scored = [score_record(cases[case_id], record.outputs, figures=figures) for case_id, record in records.items()]
    summary = summarize(scored, cases_total=len(cases), not_run=[])
    gate = gate_verdict(summary, "complete", THRESHOLDS)
    if not gate["passed"]:
        return [f"the manifest of {version} says the gate passed, but its stored answers, scored again against the "
                f"cases as they are, fail it: {'; '.join(gate['reasons'])}"]
    recorded = manifest.get("summary") or {}
    differ = [f"{key.replace('_', ' ')} {recorded.get(key)!r} in the manifest, {summary.get(key)!r} from the answers"
              for key in COMPARED if not _same(recorded.get(key), summary.get(key))]
    if differ:
        return [f"the manifest of {version} does not report what its stored answers give: {'; '.join(differ)}"]
    return []


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-9)
    return bool(a == b)
