"""One case's record in a run: its outputs and scores, scoring them, its result file and CSV row.

``R/V/cases/<case_id>.json`` (``result_files.RunPaths.case_file``) is written as soon
as the case finishes, so an interrupted run keeps what finished. ``R/V.csv``
has one row per case, first columns exactly
``case_id,recall,precision,fabrication,missed_ids`` (``missed_ids`` joined by
``;``), then ``CSV_EXTRA_COLUMNS``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from statistics import fmean
from typing import Any, Iterable

from ..files.atomic import atomic_write_text
from ..backends.base import CaseOutput
from ..caseset.cases import CASE_ID_RE, Case
from ..scoring.score import FIGURE_STATUSES, UNTRACEABLE, CaseScore, figure_status, score_case
from .result_files import CASE_RECORD_SHAPE, ResultsError, RunPaths, read_result_json

CSV_FIRST_COLUMNS = ("case_id", "recall", "precision", "fabrication", "missed_ids")
CSV_EXTRA_COLUMNS = ("kind", "status", "extra_ids", "fabricated_figures", "must_not_say_hits", "error", "runs",
                     "repeats_passed", "pass_all", "pass_any", "flip", "found_in",
                     "figures_grounded", "figures_untraceable", "figures_fabricated", "untraceable_figures")
CSV_COLUMNS = CSV_FIRST_COLUMNS + CSV_EXTRA_COLUMNS


def output_from_dict(data: dict[str, Any]) -> CaseOutput:
    known = {f.name for f in fields(CaseOutput)}
    return CaseOutput(**{k: v for k, v in data.items() if k in known})


def _union(lists: Iterable[list[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return list(seen)


@dataclass
class CaseRecord:
    """A case's outputs and scores, one per repeat, and their aggregate for the CSV.

    With repeats: recall and precision are means, fabrication a sum, and
    ``missed_ids`` the ids missed in at least one repeat.
    """

    case_id: str
    kind: str
    outputs: list[CaseOutput] = field(default_factory=list)
    scores: list[CaseScore] = field(default_factory=list)
    # Each score's JSON (``score_json``) when known already: the score cache keeps it beside the score,
    # so a rerun does not encode a large score again to write the record (``file_text``).
    score_texts: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def runs(self) -> int:
        return len(self.scores)

    @property
    def status(self) -> str:
        statuses = {s.status for s in self.scores}
        for status in ("error", "unparseable"):
            if status in statuses:
                return status
        return "ok"

    @property
    def obtained(self) -> bool:
        return self.status != "error"

    @property
    def recall(self) -> float:
        return fmean(s.recall for s in self.scores) if self.scores else 0.0

    @property
    def precision(self) -> float:
        return fmean(s.precision for s in self.scores) if self.scores else 0.0

    @property
    def fabrication(self) -> int:
        return sum(s.fabrication for s in self.scores)

    def figure_counts(self) -> dict[str, int]:
        """The figures of every repeat by status: grounded, untraceable (a number an answer that
        declares its figures did not declare, grounded by the prose rules only) and fabricated."""
        counts = dict.fromkeys(FIGURE_STATUSES, 0)
        for s in self.scores:
            for row in s.figures:
                counts[figure_status(row)] += 1
        return counts

    def untraceable_items(self) -> list[str]:
        """Each untraceable figure, readable, as ``fabrication_items`` gives fabrications."""
        return [f'figure "{row.get("text")}" in finding #{int(row.get("finding_index", 0)) + 1} {row.get("field", "")}'.rstrip()
                for s in self.scores for row in s.figures if figure_status(row) == UNTRACEABLE]

    @property
    def missed_ids(self) -> list[str]:
        return _union(s.missed_ids for s in self.scores)

    @property
    def extra_ids(self) -> list[str]:
        return _union(s.extra_ids for s in self.scores)

    @property
    def must_find_ids(self) -> list[str]:
        """Every must_find id of the case, as its scores saw them (found or missed)."""
        return _union([*s.matched_ids, *s.missed_ids] for s in self.scores)

    @property
    def repeats_passed(self) -> int:
        """Repeats that passed: answer scored, every must_find id found, no fabrication."""
        return sum(1 for s in self.scores if s.status == "ok" and not s.missed_ids and not s.fabrication)

    @property
    def pass_all(self) -> bool:
        """pass^K: passed in every one of its K repeats."""
        return bool(self.scores) and self.repeats_passed == self.runs

    @property
    def pass_any(self) -> bool:
        """pass@K: passed in at least one repeat."""
        return self.repeats_passed > 0

    @property
    def flips(self) -> bool:
        """The verdict changed between repeats: it passed in some, not in all."""
        return 0 < self.repeats_passed < self.runs

    @property
    def found_counts(self) -> dict[str, int]:
        """Per must_find id, in how many repeats it was found."""
        return {i: sum(1 for s in self.scores if i in s.matched_ids) for i in self.must_find_ids}

    @property
    def unparseable_answers(self) -> int:
        return sum(1 for s in self.scores if s.status == "unparseable")

    @property
    def error(self) -> str | None:
        for s in self.scores:
            if s.error or s.parse_error:
                return s.error or s.parse_error
        return None

    def fabrication_items(self) -> list[str]:
        """Each fabrication, readable; the same figure or hit in several findings is one item."""
        where: dict[str, list[str]] = {}
        for s in self.scores:
            for fig in s.fabricated_figures:
                label = f'figure "{fig.get("text")}"'
                where.setdefault(label, []).append(f'#{int(fig.get("finding_index", 0)) + 1} {fig.get("field", "")}'.rstrip())
            for hit in s.must_not_say_hits:
                how = f'says /{hit.get("pattern")}/' if hit.get("by") == "says" else "by id"
                label = f'must_not_say {hit.get("entry_id")} ({how})'
                where.setdefault(label, []).append(f'#{int(hit.get("finding_index", 0)) + 1}')
        return [f"{label} in finding{'s' if len(places) > 1 else ''} {', '.join(places)}"
                for label, places in where.items()]

    def to_file_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "case_id": self.case_id,
            "kind": self.kind,
            "output": self.outputs[0].to_dict() if self.outputs else None,
            "score": self.scores[0].to_dict() if self.scores else None,
        }
        if self.runs > 1:
            data["repeats"] = [{"output": o.to_dict(), "score": s.to_dict()} for o, s in zip(self.outputs, self.scores)]
        return data

    def file_text(self) -> str:
        """The record's file: ``result_files.json_text(self.to_file_dict())``, with the scores' JSON taken
        from ``score_texts`` when they are there. A nested value's indented JSON is its own indented JSON
        with each line moved right by its depth (a JSON string holds no newline), so the parts join into
        the same text."""
        texts = self.score_texts if len(self.score_texts) == len(self.scores) else [score_json(s) for s in self.scores]
        items = [("case_id", _nested(self.case_id, 1)), ("kind", _nested(self.kind, 1)),
                 ("output", _nested(self.outputs[0].to_dict() if self.outputs else None, 1)),
                 ("score", _moved(texts[0], 1) if texts else "null")]
        if self.runs > 1:
            pairs = [_object([("output", _nested(o.to_dict(), 3)), ("score", _moved(t, 3))], 2)
                     for o, t in zip(self.outputs, texts)]
            items.append(("repeats", "[\n    " + ",\n    ".join(pairs) + "\n  ]"))
        return _object(items, 0) + "\n"

    @classmethod
    def from_file_dict(cls, data: dict[str, Any]) -> "CaseRecord":
        pairs = data.get("repeats") or [{"output": data.get("output"), "score": data.get("score")}]
        pairs = [p for p in pairs if p.get("output") is not None and p.get("score") is not None]
        return cls(
            case_id=data["case_id"],
            kind=data.get("kind", ""),
            outputs=[output_from_dict(p["output"]) for p in pairs],
            scores=[CaseScore.from_dict(p["score"]) for p in pairs],
        )

    def csv_row(self) -> dict[str, str]:
        hits = [f'{h.get("entry_id")} ({h.get("by")})' for s in self.scores for h in s.must_not_say_hits]
        figures = [str(f.get("text")) for s in self.scores for f in s.fabricated_figures]
        return {
            "case_id": self.case_id,
            "recall": _number(self.recall),
            "precision": _number(self.precision),
            "fabrication": str(self.fabrication),
            "missed_ids": ";".join(self.missed_ids),
            "kind": self.kind,
            "status": self.status,
            "extra_ids": ";".join(self.extra_ids),
            "fabricated_figures": ";".join(figures),
            "must_not_say_hits": ";".join(hits),
            "error": (self.error or "").replace("\n", " "),
            "runs": str(self.runs),
            "repeats_passed": str(self.repeats_passed),
            "pass_all": str(int(self.pass_all)),
            "pass_any": str(int(self.pass_any)),
            "flip": str(int(self.flips)),
            "found_in": ";".join(f"{i}={n}/{self.runs}" for i, n in self.found_counts.items()),
            **{f"figures_{status}": str(n) for status, n in self.figure_counts().items()},
            "untraceable_figures": ";".join(str(row.get("text")) for s in self.scores for row in s.figures
                                            if figure_status(row) == UNTRACEABLE),
        }


def score_json(score: CaseScore) -> str:
    """A score's JSON as the record file holds it, at the outer level (``CaseRecord.file_text``)."""
    return json.dumps(score.to_dict(), indent=2, ensure_ascii=False)


def _moved(text: str, depth: int) -> str:
    """Indented JSON written at the outer level, moved to ``depth``."""
    return text.replace("\n", "\n" + "  " * depth)


def _nested(value: Any, depth: int) -> str:
    return _moved(json.dumps(value, indent=2, ensure_ascii=False), depth)


def _object(items: list[tuple[str, str]], depth: int) -> str:
    """An object of values already written at ``depth + 1``, as ``json.dumps(indent=2)`` writes it."""
    inner = "\n" + "  " * (depth + 1)
    return "{" + ",".join(f"{inner}{json.dumps(key)}: {text}" for key, text in items) + "\n" + "  " * depth + "}"


def _number(value: float) -> str:
    """4 decimals without trailing zeros: 1, 0.5, 0.6667."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def score_record(case: Case, outputs: list[CaseOutput], *, figures: str) -> CaseRecord:
    """Score every output of a case; a scoring bug becomes an error row, never a crashed run."""
    scores = []
    for output in outputs:
        try:
            scores.append(score_case(case, output, figures=figures))
        except Exception as exc:  # noqa: BLE001 - one case must not sink a paid run
            scores.append(CaseScore(case.case_id, "error", 0.0, 0.0, 0, missed_ids=[e.id for e in case.must_find],
                                    error=f"scoring failed: {type(exc).__name__}: {exc}"))
    return CaseRecord(case.case_id, case.kind, list(outputs), scores)


def write_case_record(paths: RunPaths, record: CaseRecord) -> None:
    atomic_write_text(paths.case_file(record.case_id), record.file_text())


def read_case_record(path: str | Path) -> CaseRecord:
    path = Path(path)
    fix = "rerun the eval to rewrite it"
    try:
        data = read_result_json(path, CASE_RECORD_SHAPE, "the case result file", fix)
        if not CASE_ID_RE.match(data["case_id"]):
            raise ResultsError(f"{path}:1: case_id {data['case_id']!r} is not a case id; {fix}")
        if data["case_id"] != path.stem:  # read as the other case, it would stand in for it (and this one go missing)
            raise ResultsError(f"{path}:1: the case result file holds case {data['case_id']!r}, not {path.stem!r} "
                               f"(its file name); {fix}")
        if not data.get("repeats") and (data["output"] is None) != (data["score"] is None):
            null, other = ("score", "output") if data["score"] is None else ("output", "score")
            raise ResultsError(f"{path}:1: the case result file has the wrong shape: /{null} is null while /{other} "
                               f"is not; {fix}")
        return CaseRecord.from_file_dict(data)
    except FileNotFoundError:
        raise ResultsError(f"{path}: not found; {fix}") from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ResultsError(f"{path}:1: not a case result file ({exc}); {fix}") from None


def csv_text(records: Iterable[CaseRecord]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for record in sorted(records, key=lambda r: r.case_id):
        writer.writerow(record.csv_row())
    return buf.getvalue()


def write_csv(paths: RunPaths, records: Iterable[CaseRecord]) -> None:
    atomic_write_text(paths.csv, csv_text(records))
