"""Where a run's result files go, the shapes they are checked against, and the checked reader.

Layout (docs/formats.md), for a results folder R and prompt version V:

- ``R/V.csv``: one row per case (``case_records.csv_text``);
- ``R/V/manifest.json``: what ran and how it went (``manifest.py``, its fields the ``Manifest`` type);
- ``R/V/cases/<case_id>.json``: the raw output and the score details (``case_records.py``).

Result files are read back by the app, by re-scoring and by ``reviewtui
compare``; they may have been edited or crafted, so ``read_result_json``
checks their size and shape before any view reads them.
"""

from __future__ import annotations

import errno
import json
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path
from typing import Any, is_typeddict

from ..paths import inside
from .json_types import type_problem
from ..backends.provenance import PROVENANCE_KEYS
from ..files.untrusted import BadInput, LimitError, Limits, Optional_, Required, load_json, read_bytes_limited, shape_problem

MANIFEST_FILE = "manifest.json"
RESULT_LIMITS = Limits("a result file", max_bytes=32 << 20, max_depth=16, max_items=100_000, max_chars=4 << 20)
_TEXT = Optional_(str)
_NUMBER = Optional_(float)
_FINDING_ROW = {k: _TEXT for k in ("id", "scope", "claim", "evidence", "severity", "full_id", "verdict", "matches")}
_FIGURE = {"finding_index": int, "field": _TEXT, "text": _TEXT, "start": Optional_(int), "end": Optional_(int),
           "value": _NUMBER, "unit": _TEXT, "decimals": Optional_(int), "grounded": Optional_(bool),
           "reason": _TEXT, "rows": Optional_(list), "row_count": Optional_(int), "status": _TEXT,
           "declared": Optional_(dict)}
_HIT = {"finding_index": int, "entry_id": _TEXT, "by": _TEXT, "pattern": _TEXT}
OUTPUT_SHAPE = {"case_id": _TEXT, "raw_text": _TEXT, "error": _TEXT, "input_tokens": Optional_(int),
                "output_tokens": Optional_(int), "stop_reason": _TEXT, "cached": Optional_(bool), "model": _TEXT,
                "provenance": Optional_({k: _TEXT for k in PROVENANCE_KEYS}),
                "snapshot_sha256": _TEXT}
SCORE_SHAPE = {"case_id": _TEXT, "status": Required(str), "recall": Required(float), "precision": Required(float),
               "fabrication": Required(int), "untraceable": Optional_(int), "missed_ids": [str], "matched_ids": [str], "extra_ids": [str],
               "findings": [_FINDING_ROW], "figures": [_FIGURE], "fabricated_figures": [_FIGURE],
               "must_not_say_hits": [_HIT], "parse_error": _TEXT, "error": _TEXT}
# output and score are written null for a case without an answer, never left out: a missing one is a hand edit.
CASE_RECORD_SHAPE = {"case_id": Required(str), "kind": _TEXT, "output": Required(Optional_(OUTPUT_SHAPE)),
                     "score": Required(Optional_(SCORE_SHAPE)),
                     "repeats": Optional_([{"output": Required(OUTPUT_SHAPE), "score": Required(SCORE_SHAPE)}])}
def read_result_json(path: Path, shape: Any, what: str, fix: str) -> dict[str, Any]:
    """A result file within the limits and of ``shape`` (a TypedDict, checked by ``json_types.type_problem``,
    or an ``untrusted.shape_problem`` spec); ResultsError naming the file, the place and ``fix``."""
    try:
        text = read_bytes_limited(path, RESULT_LIMITS).decode("utf-8")
        data = load_json(text, RESULT_LIMITS)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, LimitError) as exc:
        raise ResultsError(f"{path}: cannot read {what} ({exc}); {fix}") from None
    except BadInput as exc:
        raise ResultsError(f"{path}:{exc.line}: {what} is not valid JSON ({exc.message}); {fix}") from None
    problem = type_problem(data, shape) if is_typeddict(shape) else shape_problem(data, shape)
    if problem:
        raise ResultsError(f"{path}:1: {what} has the wrong shape: {problem}; {fix}")
    return dict(data)  # an object, as every result file's shape says


class ResultsError(Exception):
    """A results folder that cannot be used as asked (exit 2); the message says what to do."""


class ResultsWriteError(ResultsError):
    """The results could not be written (a full disk, a read-only folder): the run is incomplete (exit 3)."""


# Why a write fails when the folder is fine but the disk is not: full, over quota, read-only, too large, I/O.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO, errno.EACCES,
                             errno.EPERM})


def refuse_results_in_cases(results_dir: str | Path, cases_dir: str | Path) -> None:
    """ResultsError when the results folder is the case set's folder or lies inside it.

    Results there would be shipped with the cases and read back as case folders by the next load.
    """
    if inside(Path(results_dir), Path(cases_dir)):
        raise ResultsError(f"--results-dir {results_dir} is inside the case set {cases_dir}: results written there "
                           "would be read as cases and shipped with them; choose a folder outside it")


def write_error(paths: "RunPaths", exc: OSError) -> ResultsError:
    """What to say when writing a run's results failed with ``exc``.

    A full disk or a read-only folder is a ResultsWriteError (the run is incomplete: exit 3);
    anything else (a file where the folder should be) a ResultsError (exit 2).
    """
    where = f" ({exc.filename})" if exc.filename else ""
    text = (f"cannot write the results under {paths.results_dir}: {exc.strerror or exc}{where}; the previous "
            f"results of {paths.version} are kept as they were")
    if exc.errno in _WRITE_FAILURES:
        return ResultsWriteError(f"{text}; the run is incomplete: free some space or make the folder writable, "
                                 "then run again (answers already paid for come from the response cache)")
    return ResultsError(text)


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class RunPaths:
    results_dir: Path
    version: str

    @classmethod
    def of_run_dir(cls, run_dir: str | Path) -> "RunPaths":
        run_dir = Path(run_dir)
        return cls(run_dir.parent, run_dir.name)

    @property
    def run_dir(self) -> Path:
        return self.results_dir / self.version

    @property
    def csv(self) -> Path:
        return self.results_dir / f"{self.version}.csv"

    @property
    def manifest(self) -> Path:
        return self.run_dir / MANIFEST_FILE

    @property
    def cases_dir(self) -> Path:
        return self.run_dir / "cases"

    def case_file(self, case_id: str) -> Path:
        return self.cases_dir / f"{case_id}.json"
