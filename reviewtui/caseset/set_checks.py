"""Case-set checks run by ``reviewtui check`` (``CHECKS``, collected by ``check.all_checks``).

Each check is ``(case_set) -> list[Problem]``:

- ``check_mix``: counts of cases by kind against the plan, a floor of 30
  ordinary, 10 broken_data, 5 clean, 5 trap: more cases of any kind are welcome
  (a real account added as a case), fewer is an error on the shipped set
  (``cases/`` beside the package) and a warning on any other ``--cases`` folder,
  so a scratch set can be checked without failing.
- ``check_writeup_snapshots``: a case whose ``source`` is a write-up has a
  snapshot.json byte-identical to ``writeups/<wu>.snapshot.json``; a write-up
  snapshot that no case names is a warning.
- ``check_writeup_claims``: every must_find of a write-up case carries the
  write-up sentence it came from (``claim``); a claim not found in the
  write-up's text is a warning.
- ``check_kind_coverage``: on the shipped set, every taxonomy kind is a
  must_find in at least one case (a warning elsewhere).
- ``check_redacted_imports``: a snapshot made by ``reviewtui import`` (it has
  ``source.format``) must carry ``source.redacted: true``, which ``reviewtui
  redact`` writes: an error otherwise, since the case set would ship a client's
  names and ids.
- ``check_key_files``: a redaction key (``*.key``, or a small file of hex
  digits) inside the case set, beside it or in writeups/ is a warning: shipped with the set, it undoes the
  redaction of every case made with it.
- ``check_disputes``: ``disputed.md`` beside the cases folder parses; each
  entry has its fields and at least one row, and every row resolves in the
  snapshot of the case it names (errors, at the entry's line). An entry whose
  case is not in the set, and a break of the numbering rule, are warnings.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from .. import taxonomy
from . import disputes
from .cases import Case, CaseSet, Problem
from .snapshot_reader import PointerError
from .writeup import WriteupError, read_writeup

# The plan is a floor (docs/cases.md, "Adding a case"): the set holds at least this many cases of each kind.
PLANNED_MIX = {"ordinary": 30, "broken_data": 10, "clean": 5, "trap": 5}
SHIPPED_CASES = Path(__file__).resolve().parents[2] / "cases"
WRITEUP_SUFFIX = ".md"
WRITEUP_SNAPSHOT_SUFFIX = ".snapshot.json"


def is_shipped_set(case_set: CaseSet) -> bool:
    return Path(case_set.root).resolve() == SHIPPED_CASES


def _key_line(case: Case, key: str) -> int:
    lc: Any = getattr(case.doc.data, "lc", None)
    try:
        return lc.key(key)[0] + 1
    except (AttributeError, KeyError, TypeError):
        return 1


def mix_counts(case_set: CaseSet) -> Counter:
    return Counter(case.kind for case in case_set.cases)


def mix_summary(case_set: CaseSet) -> str:
    """``ordinary 31/31, broken_data 10/10, clean 5/5, trap 5/5`` (found/planned)."""
    counts = mix_counts(case_set)
    return ", ".join(f"{kind} {counts.get(kind, 0)}/{planned}" for kind, planned in PLANNED_MIX.items())


def short_of_plan(counts: Counter) -> list[str]:
    """The kinds with fewer cases than the plan asks for (the one rule of the mix: check, eval and the app)."""
    return [kind for kind, planned in PLANNED_MIX.items() if counts.get(kind, 0) < planned]


def check_mix(case_set: CaseSet, *, shipped: bool | None = None) -> list[Problem]:
    shipped = is_shipped_set(case_set) if shipped is None else shipped
    counts = mix_counts(case_set)
    short = short_of_plan(counts)
    if not short:
        return []
    fix = ", ".join(f"{counts.get(k, 0)} {k} where at least {PLANNED_MIX[k]} are planned" for k in short)
    where = "" if shipped else " (another case set: a warning only)"
    message = (f"case mix {mix_summary(case_set)} (found/planned): {fix}; add or re-kind cases to reach at least "
               f"{', '.join(f'{n} {k}' for k, n in PLANNED_MIX.items())}{where}")
    return [Problem(Path(case_set.root), 1, message, "error" if shipped else "warning")]


def writeup_snapshot_path(case: Case) -> Path | None:
    """``writeups/<wu>.snapshot.json`` for a case whose source is ``writeups/<wu>.md``."""
    src = case.source_path()
    if src is None or not isinstance(case.source, str) or not case.source.endswith(WRITEUP_SUFFIX):
        return None
    return src.with_name(src.name[: -len(WRITEUP_SUFFIX)] + WRITEUP_SNAPSHOT_SUFFIX)


def check_writeup_snapshots(case_set: CaseSet) -> list[Problem]:
    problems: list[Problem] = []
    named: set[Path] = set()
    for case in case_set.cases:
        wu_snapshot = writeup_snapshot_path(case)
        if wu_snapshot is None:
            continue
        named.add(wu_snapshot)
        line = _key_line(case, "source")
        if not wu_snapshot.is_file():
            problems.append(Problem(case.expected_path, line, f"source {case.source!r} has no snapshot beside it: "
                                    f"{wu_snapshot} not found; the write-up's snapshot must sit there, byte-identical to {case.snapshot_path}"))
        elif not case.snapshot_path.is_file() or wu_snapshot.read_bytes() != case.snapshot_path.read_bytes():
            problems.append(Problem(case.expected_path, line, f"{case.snapshot_path} differs from the write-up's snapshot "
                                    f"{wu_snapshot}; they must be byte-identical (copy the write-up's snapshot over the case's)"))
    writeups = Path(case_set.root).resolve().parent / "writeups"
    if writeups.is_dir():
        for path in sorted(writeups.glob("*" + WRITEUP_SNAPSHOT_SUFFIX)):
            if path.resolve() not in {p.resolve() for p in named}:
                md = path.name[: -len(WRITEUP_SNAPSHOT_SUFFIX)] + WRITEUP_SUFFIX
                problems.append(Problem(path, 1, f"no case names this write-up: add `source: writeups/{md}` to the "
                                        "expected.yaml of the case built from it", "warning"))
    return problems


def _normalise(text: str) -> str:
    """Whitespace collapsed and markdown emphasis dropped, so a wrapped sentence still matches."""
    return re.sub(r"\s+", " ", re.sub(r"[*_`>]", "", text)).strip().lower()


def check_writeup_claims(case_set: CaseSet) -> list[Problem]:
    problems: list[Problem] = []
    for case in case_set.cases:
        if not case.source:
            continue
        src = case.source_path()
        text = None
        if src is not None and src.is_file():
            try:
                text = _normalise(read_writeup(src))
            except WriteupError as exc:
                problems.append(Problem(case.expected_path, _key_line(case, "source"), f"source write-up {exc}"))
        for entry in case.must_find:
            claim = entry.claim
            if not isinstance(claim, str) or not claim.strip():
                problems.append(Problem(case.expected_path, entry.line, f"must_find[{entry.index}] {entry.id!r} of a write-up "
                                        f"case has no 'claim'; add the sentence of {case.source} it came from, verbatim"))
            elif text is not None and _normalise(claim) not in text:
                problems.append(Problem(case.expected_path, entry.line, f"must_find[{entry.index}] {entry.id!r}: its claim is "
                                        f"not found in {case.source}; quote the write-up's sentence verbatim", "warning"))
    return problems


def check_kind_coverage(case_set: CaseSet, *, shipped: bool | None = None) -> list[Problem]:
    shipped = is_shipped_set(case_set) if shipped is None else shipped
    found = {e.kind for case in case_set.cases for e in case.must_find}
    missing = [k for k in taxonomy.kind_ids() if k not in found]
    if not missing or not case_set.cases:
        return []
    return [Problem(Path(case_set.root), 1, f"no case has these kinds in must_find: {', '.join(missing)}; every taxonomy "
                    "kind needs at least one case that must find it", "error" if shipped else "warning")]


_HEX_KEY = re.compile(rb"\s*[0-9a-fA-F]{32,128}\s*")


def check_key_files(case_set: CaseSet) -> list[Problem]:
    problems = []
    root = Path(case_set.root)
    # The case set, and what ships beside it: the files of the folder holding it and its writeups/.
    beside = [p for p in root.resolve().parent.iterdir() if p.is_file()] if root.resolve().parent.is_dir() else []
    writeups = root.resolve().parent / "writeups"
    shipped = [*root.rglob("*"), *beside, *(writeups.rglob("*") if writeups.is_dir() else [])]
    for path in sorted(shipped):
        try:
            small = path.is_file() and path.stat().st_size <= 300
            looks = path.suffix == ".key" or (small and _HEX_KEY.fullmatch(path.read_bytes()) is not None)
        except OSError:
            continue
        if looks:
            problems.append(Problem(path, 1, "looks like a redaction key (reviewtui redact --key): inside the case "
                                    "set it ships with it and undoes the redaction of every case made with it; move "
                                    "it out (e.g. to ~/.reviewtui/redact.key)", "warning"))
    return problems


DISPUTE_FIELDS = ("Case", "Rows show", "Rows", "Why it stays out")


def check_disputes(case_set: CaseSet) -> list[Problem]:
    root = Path(case_set.root)
    path = disputes.disputed_path(root.parent if root.name not in ("", ".", "..") else root.resolve().parent)
    if not path.is_file():
        return []
    try:
        df = disputes.load(path)
    except disputes.DisputeFileError as exc:
        return [Problem(path, 1, str(exc).removeprefix(f"{path}: "))]

    def line(offset: int) -> int:
        return df.text.count("\n", 0, offset) + 1

    by_id = {case.case_id: case for case in case_set.cases}
    problems: list[Problem] = []
    for d in df.disputes:
        at = line(d.start)
        missing = [name for name in DISPUTE_FIELDS if not d.fields.get(name)]
        if missing:
            problems.append(Problem(path, at, f"{d.id} has no {', no '.join(missing)}; every entry has "
                                    f"- **{':** ..., - **'.join(DISPUTE_FIELDS)}:** ... lines (docs/formats.md)"))
        rows_at = line(d.start + df.text[d.start:d.end].find("- **Rows:**")) if "Rows" in d.fields else at
        rows = [r for r in d.rows if r != "(none)"]
        if "Rows" in d.fields and not rows:
            problems.append(Problem(path, rows_at, f"{d.id} names no rows; list the JSON Pointers of the rows "
                                    "that show what the rows show instead (/daily/12, /campaigns/0)"))
        case = by_id.get(d.case)
        if case is None:
            if d.case:
                problems.append(Problem(path, at, f"{d.id} names case {d.case!r}, which is not in {case_set.root}; "
                                        "its rows are not checked", "warning"))
            continue
        if case.snapshot is None:
            continue
        for pointer in rows:
            try:
                case.snapshot.resolve(pointer)
            except PointerError as exc:
                problems.append(Problem(path, rows_at, f"{d.id}: row {pointer!r} does not resolve in "
                                        f"{case.snapshot_path} ({exc}); fix the pointer"))
    problems += [Problem(path, 1, f"{problem}; a number missing from a section is one that was reopened "
                         "(docs/writeups.md)", "warning") for problem in disputes.numbering_problems(df)]
    return problems


def check_redacted_imports(case_set: CaseSet) -> list[Problem]:
    problems = []
    for case in case_set.cases:
        source = case.snapshot.section("source") if case.snapshot is not None else None
        if isinstance(source, dict) and "format" in source and source.get("redacted") is not True:
            problems.append(Problem(case.snapshot_path, 1, "an account imported by `reviewtui import` (source.format "
                                    f"{source['format']!r}) that was not redacted: the case set would ship its names "
                                    "and ids; move it out of the case set (to /tmp/account.json, say) and "
                                    f"write it back with `reviewtui redact /tmp/account.json -o {case.dir} --key "
                                    "KEYFILE` (docs/cases.md, 'Redacting an account into a case'), which marks it "
                                    "source.redacted"))
    return problems


CHECKS = [check_mix, check_writeup_snapshots, check_writeup_claims, check_kind_coverage, check_key_files,
          check_disputes, check_redacted_imports]


def mix_report(case_set: CaseSet) -> str:
    """The line `reviewtui check` prints whatever the verdict: the mix, and how many cases come from write-ups."""
    from_writeups = sum(1 for case in case_set.cases if case.source)
    return f"case mix (found/planned): {mix_summary(case_set)}; {from_writeups} case(s) built from write-ups"


REPORTS = [mix_report]
