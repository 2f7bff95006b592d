"""Scores already computed, reused: a rerun whose answers did not change does not score them again.

Scoring an answer is pure: its score follows from the answer (its text and
error, the stop reason and the model that wrote it), the case's two files
(expected.yaml and snapshot.json, the bytes the run read, and the case id),
the figures mode, and the scorer's own code. The key is the SHA-256 of all
of these, the code taken as the bytes of every source file the scorer is
built from (``scorer_files``: ``runs/case_records.py`` and every module of the
package it imports, found by reading their import statements, with the
data files beside them such as ``taxonomy.yaml`` and the declared figures'
vocabulary ``figure_vocabulary.py``), with the versions of the libraries
whose verdicts a score carries (``SCORER_LIBRARIES``: jsonschema decides
which answers and which declared figures are of the output schema, and
words the reasons). So an edited case, a new answer, another figures mode
or any change to the scorer's code or those libraries misses and is
scored again; nothing hand-kept has to be bumped.

Each answer's ``CaseScore`` is kept on its own (a case's repeats are scored
one answer at a time as they arrive, and a rerun finds each of them), in the
same on-disk store as the parsed expected.yaml trees (``parse_cache``,
folder ``scores/``), safe to delete. A score made by a scoring failure
(``scoring failed: ...``: a scorer bug, a worker that died) is never kept.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ..backends.base import CaseOutput
from ..files import parse_cache
from ..caseset.cases import Case
from ..scoring.score import CaseScore
from .case_records import CaseRecord, score_json

FORMAT = 2  # 2: the score's JSON kept beside it
FOLDER = "scores"
PACKAGE = Path(__file__).resolve().parents[1]  # reviewtui/
SCORER_ENTRY = "runs/case_records.py"  # score_record, where every run's scoring starts
# The fields of an answer that make it what it is; token counts and the cached/batch flags do not.
ANSWER_FIELDS = ("raw_text", "error", "stop_reason", "model")
FAILED = "scoring failed:"

# The libraries whose behaviour is part of a score (see the module's docstring).
SCORER_LIBRARIES = ("jsonschema",)

Scorer = Callable[..., CaseRecord]  # (case, outputs, *, figures) -> CaseRecord, as case_records.score_record

_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+(reviewtui[\w.]*)", re.MULTILINE)


@lru_cache(maxsize=1)
def _package_modules() -> dict[tuple[str, ...], str]:
    """Each module of the package (its dotted parts under reviewtui/) and its file, relative to the package."""
    found: dict[tuple[str, ...], str] = {}
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        parts = Path(folder).relative_to(PACKAGE).parts
        for name in files:
            if name.endswith(".py"):
                module = parts if name == "__init__.py" else parts + (name[:-3],)
                found[module] = "/".join((*parts, name))
    return found


def _imports(relative: str) -> set[str]:
    """The package's module files that ``relative`` imports (at the top or inside a function), with their packages."""
    modules = _package_modules()
    here = tuple(relative.split("/")[:-1])  # the package relative imports start from
    text = (PACKAGE / relative).read_text(encoding="utf-8")
    targets: list[tuple[str, ...]] = []
    for dots, name, names in _FROM_IMPORT.findall(text):
        up = len(dots) - 1
        module = (here[: len(here) - up] if up else here) + tuple(p for p in name.split(".") if p)
        targets.append(module)
        for imported in names.strip("()").split(","):  # `from . import a, b` imports modules a and b
            word = imported.split(" as ")[0].strip()
            if word.isidentifier():
                targets.append(module + (word,))
    targets += [tuple(name.split(".")[1:]) for name in _PLAIN_IMPORT.findall(text)]
    # importing a.b.c runs a/__init__.py and a/b/__init__.py too
    return {modules[module[:depth]] for module in targets for depth in range(len(module) + 1)
            if module[:depth] in modules}


@lru_cache(maxsize=1)
def scorer_files() -> tuple[str, ...]:
    """Every file the scorer's result can depend on, relative to the package: the modules
    ``runs/case_records.py`` reaches, and the data files beside them."""
    seen: set[str] = set()
    todo = [SCORER_ENTRY]
    while todo:
        relative = todo.pop()
        if relative not in seen:
            seen.add(relative)
            todo.extend(_imports(relative) - seen)
    folders = {relative.rpartition("/")[0] for relative in seen}
    data = {str(path.relative_to(PACKAGE)) for folder in folders for path in (PACKAGE / folder).glob("*.yaml")}
    return tuple(sorted(seen | data))


@lru_cache(maxsize=1)
def scorer_digest() -> str:
    """SHA-256 over the scorer's files (``scorer_files``), each named by its place in the package, and the
    versions of ``SCORER_LIBRARIES``."""
    h = hashlib.sha256(f"{FORMAT}|{sys.version_info[:2]}".encode())
    for library in SCORER_LIBRARIES:
        h.update(f"|{library}={importlib.metadata.version(library)}".encode())
    for relative in scorer_files():
        h.update(b"\0" + relative.encode() + b"\0")
        h.update((PACKAGE / relative).read_bytes())
    return h.hexdigest()


class ScoreCache:
    """The stored scores, for one run (its cases do not change while it runs)."""

    def __init__(self) -> None:
        self._case_digests: dict[tuple[str, int], str] = {}

    def _case_digest(self, case: Case) -> str:
        """The case's id and the bytes of its two files as the run read them."""
        memo = (case.case_id, id(case.doc))
        digest = self._case_digests.get(memo)
        if digest is None:
            snapshot = (bytes.fromhex(case.snapshot.sha256) if case.snapshot is not None
                        else hashlib.sha256(case.snapshot_path.read_bytes()).digest())
            h = hashlib.sha256(case.case_id.encode())
            h.update(b"\0" + hashlib.sha256(case.doc.raw).digest())
            h.update(b"\0" + snapshot)
            digest = self._case_digests[memo] = h.hexdigest()
        return digest

    def key(self, case: Case, output: CaseOutput, figures: str) -> bytes:
        answer = json.dumps([getattr(output, name) for name in ANSWER_FIELDS], ensure_ascii=False)
        return "|".join((scorer_digest(), figures, self._case_digest(case), answer)).encode("utf-8")

    def get(self, case: Case, output: CaseOutput, figures: str) -> tuple[CaseScore, str] | None:
        """The stored score of this answer and its JSON (``case_records.score_json``), or None."""
        found = parse_cache.load(self.key(case, output, figures), folder=FOLDER)
        if isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], CaseScore) and isinstance(found[1], str):
            return found
        return None

    def put(self, case: Case, output: CaseOutput, figures: str, score: CaseScore, text: str) -> None:
        """Keep ``score`` and its JSON ``text``, unless a scoring failure made it."""
        if not (score.error or "").startswith(FAILED):
            parse_cache.store(self.key(case, output, figures), (score, text), folder=FOLDER)


def reusing_scores(score: Scorer, cache: ScoreCache | None = None) -> Scorer:
    """``score`` (``case_records.score_record`` or a worker's), asked only for the answers whose score is not stored."""
    cache = cache if cache is not None else ScoreCache()

    def score_record(case: Case, outputs: list[CaseOutput], *, figures: str) -> CaseRecord:
        stored = [cache.get(case, output, figures) for output in outputs]
        missing = [output for output, found in zip(outputs, stored) if found is None]
        fresh = iter(score(case, missing, figures=figures).scores if missing else [])
        scores, texts = [], []
        for output, found in zip(outputs, stored):
            if found is None:
                made = next(fresh)
                found = made, score_json(made)  # encoded once: kept, and written in the record
                cache.put(case, output, figures, *found)
            scores.append(found[0])
            texts.append(found[1])
        return CaseRecord(case.case_id, case.kind, list(outputs), scores, texts)

    return score_record
