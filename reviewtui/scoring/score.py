"""Scoring one case: recall, precision and fabrication (docs/scoring.md).

``score_case(case, output)`` parses the assistant's raw output, matches the
returned findings against the case's must_find / may_find / must_not_say
entries, and grounds every figure in the findings' text against the
snapshot (``grounding.py``). The result, ``CaseScore``, is JSON-safe so the
runner can store it beside the raw output and the app can show it later.

Each figure row carries ``rows``, the JSON Pointers of the snapshot rows that
support it (a snapshot value's own field; the rows a derived value was
computed from; for arithmetic, the union of its operands' rows), at most
``ROWS_LIMIT`` of them, and ``row_count``, how many there are in all. A
fabricated figure, and zero, have none. Result files written before these
keys existed still load (the app then falls back to pointers in the reason).

Matching rules:

- a returned finding matches an expected ``kind@scope`` when its id equals
  kind and its scope equals scope; an expected id without a scope matches
  the kind with any scope (or none);
- each expected entry is matched at most once; a further finding that could
  only match already-matched entries is a ``duplicate`` and does not count
  for precision;
- an exact scoped match is preferred over an unscoped one, must_find over
  may_find, so one finding never uses up an entry another finding needs more.
"""

from __future__ import annotations

import gc
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

from .. import taxonomy
from ..assistant import Finding, OutputError, parse_output
from ..caseset.cases import Case, Expectation
from . import declared
from .claims import affirmed_match
from .figures import Figure
from .row_provenance import ROWS_LIMIT
from .grounding import FIGURE_MODES, ZERO_REASON, FigureVerdict, GroundingIndex
from ..caseset.snapshot import Snapshot
from ..files.untrusted import UnsafePattern, says_regex

STATUSES = ("ok", "unparseable", "error")


class Answer(Protocol):
    """What the scorer reads of a backend's output for a case (``backends.base.CaseOutput``): its
    raw text, or why there is none. A protocol, so the scoring stays below the backends."""

    @property
    def raw_text(self) -> str | None: ...

    @property
    def error(self) -> str | None: ...
# What a figure is: recomputed or grounded, grounded by the prose rules alone in an answer that
# declares its figures, or supported by nothing.
GROUNDED, UNTRACEABLE, FABRICATED = "grounded", "untraceable", "fabricated"
FIGURE_STATUSES = (GROUNDED, UNTRACEABLE, FABRICATED)


def figure_status(row: dict[str, Any]) -> str:
    """A figure row's status; a row of a result file written before statuses existed has only
    ``grounded`` (nothing was untraceable then)."""
    status = row.get("status")
    if status in FIGURE_STATUSES:
        return str(status)
    return GROUNDED if row.get("grounded") else FABRICATED
FINDING_VERDICTS = ("matched", "may_find", "extra", "duplicate", "must_not_say")


@dataclass
class CaseScore:
    case_id: str
    status: str  # "ok" | "unparseable" | "error" (output not obtained)
    recall: float
    precision: float
    fabrication: int  # len(fabricated_figures) + len(must_not_say_hits)
    # Figures grounded only by the prose rules in an answer that declares its figures: neither
    # recomputed nor fabricated (docs/scoring.md, "Declared figures"); 0 in files written before.
    untraceable: int = 0
    missed_ids: list[str] = field(default_factory=list)
    matched_ids: list[str] = field(default_factory=list)
    extra_ids: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    fabricated_figures: list[dict[str, Any]] = field(default_factory=list)
    must_not_say_hits: list[dict[str, Any]] = field(default_factory=list)
    parse_error: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``dataclasses.asdict(self)``: the fields in order, every list and dict in them copied.
        Copied here without ``asdict``'s ``deepcopy`` of each number and string (immutable: kept as
        they are), which took a second for the 2,000 findings of a 100,000-row account."""
        return {f.name: _json_copy(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CaseScore":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


_IMMUTABLE = (str, int, float, bool, type(None))


def _json_copy(value: Any) -> Any:
    """``value`` as ``dataclasses.asdict`` copies a field's value: lists, tuples and dicts rebuilt,
    immutable leaves kept, anything else as ``asdict`` gives it."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        return [_json_copy(v) for v in value]
    if kind is dict:
        return {_json_copy(k): _json_copy(v) for k, v in value.items()}
    if kind is tuple:
        return tuple(_json_copy(v) for v in value)
    return asdict(_Boxed(value))["value"]


@dataclass
class _Boxed:
    """One value in a dataclass, for ``asdict``'s reading of a value ``_json_copy`` does not copy itself."""

    value: Any


def score_case(case: Case, output: Answer, *, figures: str = "derived") -> CaseScore:
    """Score one case's output. ``figures``: ``"derived"`` (default) or ``"strict"``."""
    # Scoring builds tables kept on the snapshot for its next answer (the grounding index, each range
    # a finding names) and little else that outlives it, so the cyclic collector would walk them,
    # and the loaded snapshots, again and again to free nothing (a third to a half of the time on
    # the fifty); it runs again once the case is scored, and reference counting frees meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _score_case(case, output, figures)
    finally:
        if collecting:
            gc.enable()


def _score_case(case: Case, output: Answer, figures: str) -> CaseScore:
    if figures not in FIGURE_MODES:
        raise ValueError(f"unknown figures mode {figures!r}; use one of {', '.join(FIGURE_MODES)}")
    must_ids = [e.id for e in case.must_find]
    if output.error is not None:
        return CaseScore(case.case_id, "error", 0.0, 0.0, 0, missed_ids=must_ids, error=output.error)
    try:
        returned = parse_output(output.raw_text or "")
    except OutputError as exc:
        # Nothing usable came back: recall 0, and no credit for precision either.
        return CaseScore(case.case_id, "unparseable", 0.0, 0.0, 0, missed_ids=must_ids, parse_error=str(exc))

    finding_rows = [_finding_row(f) for f in returned]
    matched = _match_expected(case, returned, finding_rows)
    extra_ids = [row["full_id"] for row in finding_rows if row["verdict"] == "extra"]
    hits = _must_not_say_hits(case.must_not_say, returned, finding_rows)  # may turn a verdict to must_not_say

    snapshot = case.snapshot if case.snapshot is not None else Snapshot.load(case.snapshot_path)
    index = GroundingIndex.for_snapshot(snapshot, figures)
    figure_rows: list[dict[str, Any]] = []
    for i, finding in enumerate(returned):
        figure_rows += figure_verdicts(index, snapshot.data, i, finding)
    fabricated = [row for row in figure_rows if row["status"] == FABRICATED]

    counted = sum(1 for row in finding_rows if row["matches"] is not None)
    return CaseScore(
        case_id=case.case_id,
        status="ok",
        recall=(len(matched) / len(must_ids)) if must_ids else 1.0,
        precision=(counted / len(returned)) if returned else 1.0,
        fabrication=len(fabricated) + len(hits),
        untraceable=sum(1 for row in figure_rows if row["status"] == UNTRACEABLE),
        missed_ids=[i for i in must_ids if i not in matched],
        matched_ids=[i for i in must_ids if i in matched],
        extra_ids=extra_ids,
        findings=finding_rows,
        figures=figure_rows,
        fabricated_figures=fabricated,
        must_not_say_hits=hits,
    )


def figure_verdicts(index: GroundingIndex, data: dict[str, Any], i: int, finding: Finding) -> list[dict[str, Any]]:
    """The figure rows of one finding: each number of its text, and each declared figure the text
    does not print.

    A prose finding (no ``figures``: prompt versions before audit-v4) is judged by the prose rules
    alone: grounded or fabricated. In a finding that declares its figures, a number that prints a
    declared figure is that declaration, recomputed; a number no declaration prints is judged by the
    prose rules and, grounded so, is *untraceable*; zero needs no declaration.
    """
    texts = finding.texts()
    scanned = index.scan_texts(texts)
    if not finding.declares:
        verdicts = index.check_texts(texts, scopes=[finding.scope], kind=finding.id, scanned=scanned)
        return [_prose_row(index, i, verdict, GROUNDED if verdict.grounded else FABRICATED) for verdict in verdicts]
    entries = declared.recompute(data, finding.figures or [], finding.invalid_figures)
    by_key = declared.declared_by_key(entries)
    if all(figure.value == 0 or declared.figure_key(figure) in by_key for _, figure in scanned.found):
        # Every number is a declaration or zero: the prose rules would judge none of them (a zero's
        # verdict stands alone, before any other figure of the finding is looked at).
        verdicts = [FigureVerdict(field_name, figure, True, ZERO_REASON) for field_name, figure in scanned.found]
    else:
        verdicts = index.check_texts(texts, scopes=[finding.scope], kind=finding.id, scanned=scanned)
    used: set[int] = set()
    rows = []
    for verdict in verdicts:
        entry = by_key.get(declared.figure_key(verdict.figure))
        if entry is not None:
            used.add(entry.index)
            rows.append(_declared_row(i, verdict.field, verdict.figure, entry))
        elif verdict.figure.value == 0:
            rows.append(_prose_row(index, i, verdict, GROUNDED))
        elif verdict.grounded:
            rows.append(_prose_row(index, i, verdict, UNTRACEABLE,
                                   f"not declared in the finding's figures; by the prose rules: {verdict.reason}"))
        else:
            rows.append(_prose_row(index, i, verdict, FABRICATED,
                                   f"not declared in the finding's figures, and {verdict.reason}"))
    for entry in entries:
        if entry.index not in used:
            rows.append(_declared_row(i, "figures", entry.figure, entry))
    return rows


def _prose_row(index: GroundingIndex, i: int, verdict: Any, status: str, reason: str | None = None) -> dict[str, Any]:
    behind = index.rows(verdict)
    row = {"finding_index": i, **verdict.to_dict(), "grounded": status != FABRICATED, "status": status,
           "rows": behind.pointers(ROWS_LIMIT), "row_count": len(behind), "declared": None}
    if reason is not None:
        row["reason"] = reason
    return row


def _declared_row(i: int, field_name: str, figure: Figure | None, entry: declared.Declared) -> dict[str, Any]:
    """A figure that prints a declaration (``field`` "figures" for a declaration the text does not
    print): grounded when the rows give what it prints."""
    if figure is None or entry.error is not None:
        ok, reason = False, f"declared {entry.printed!r} ({entry.label}): {entry.error or 'printed is not one number'}"
    else:
        ok, reason = declared.check(figure, entry)
    in_text = field_name != "figures"
    rows = entry.rows if ok else None
    return {
        "finding_index": i, "field": field_name, "text": figure.text if figure is not None and in_text else entry.printed,
        "start": figure.start if figure is not None and in_text else -1,
        "end": figure.end if figure is not None and in_text else -1,
        "value": figure.value if figure is not None else None, "unit": figure.unit if figure is not None else None,
        "measure": figure.measure if figure is not None else None, "decimals": figure.decimals if figure is not None else None,
        "grounded": ok, "status": GROUNDED if ok else FABRICATED, "reason": reason,
        "rows": rows.pointers(ROWS_LIMIT) if rows is not None else [], "row_count": len(rows) if rows is not None else 0,
        "declared": entry.to_dict(),
    }


def _finding_row(finding: Finding) -> dict[str, Any]:
    return {**finding.to_dict(), "full_id": finding.full_id, "verdict": "extra", "matches": None}


def _covers(entry: Expectation, finding: Finding) -> bool:
    """Does an expected id (``kind`` or ``kind@scope``) cover this returned finding?"""
    kind, scope = taxonomy.split_id(entry.id)
    return finding.id == kind and (scope is None or scope == finding.scope)


def _match_expected(case: Case, returned: list[Finding], rows: list[dict[str, Any]]) -> set[str]:
    """Set each row's verdict/matches; return the must_find ids matched."""
    used: set[str] = set()
    matched_must: set[str] = set()
    for finding, row in zip(returned, rows):
        candidates = [e for e in (*case.must_find, *case.may_find) if _covers(e, finding)]
        if not candidates:
            continue  # stays "extra"
        free = [e for e in candidates if e.id not in used]
        if not free:
            row["verdict"] = "duplicate"
            continue
        # Exact scope first, then must_find before may_find (stable sort keeps list order).
        best = sorted(free, key=lambda e: (e.scope is None, e.list_name != "must_find"))[0]
        used.add(best.id)
        row["matches"] = best.id
        if best.list_name == "must_find":
            row["verdict"] = "matched"
            matched_must.add(best.id)
        else:
            row["verdict"] = "may_find"
    return matched_must


def _says_pattern(pattern: str) -> Any:
    """Compiled on RE2 (linear-time matching: no pattern can hang a run)."""
    try:
        return says_regex(pattern)
    except UnsafePattern:  # `reviewtui check` refuses it; scoring falls back to the literal text
        return says_regex(str(pattern), literal=True)


BROKEN_DATA_GROUP = "data"


def could_say(entry: Expectation, finding: Finding) -> bool:
    """Could this finding make the claim of this must_not_say entry in words?

    A finding of a broken-data kind (``data.*``) describes the export, not the account: "2,196.16
    double-counted" in a data.duplicate_rows finding says the rows repeat, not that tracking counts
    conversions twice. So the ``says`` patterns of kinds outside ``data.*`` are not matched in
    ``data.*`` findings (a hit by id still counts).
    """
    entry_group = taxonomy.split_id(entry.id)[0].split(".", 1)[0]
    finding_group = finding.id.split(".", 1)[0]
    return not (finding_group == BROKEN_DATA_GROUP and entry_group != BROKEN_DATA_GROUP)


def _must_not_say_hits(entries: list[Expectation], returned: list[Finding], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One hit per (finding, entry): by id when the id matches, else by the first ``says`` pattern
    found where the finding affirms it (a denied mention, "not an underspend", is no hit: claims.py)
    in a finding that could make that claim (``could_say``)."""
    hits: list[dict[str, Any]] = []
    for i, (finding, row) in enumerate(zip(returned, rows)):
        text = "\n".join(finding.texts().values())
        for entry in entries:
            hit = None
            if _covers(entry, finding):
                hit = {"finding_index": i, "entry_id": entry.id, "by": "id", "pattern": None}
            elif could_say(entry, finding):
                said = affirmed_match([_says_pattern(pattern) for pattern in entry.says], text)
                if said is not None:
                    hit = {"finding_index": i, "entry_id": entry.id, "by": "says", "pattern": entry.says[said[0]]}
            if hit is not None:
                hits.append(hit)
                row["verdict"] = "must_not_say"
    return hits
