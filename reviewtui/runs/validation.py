"""The case set's validation: every problem of it, as ``path:line: message``; the one validation behind
``reviewtui check``, ``reviewtui eval``, the app and the weekly run's stamp check, so they never disagree.

The structural validation comes from ``cases.load_case_set``. Further checks
are functions ``(case_set) -> list[Problem]``: those of ``caseset/set_checks.py``
(the mix, the write-ups, kind coverage, listed in its ``CHECKS``) and the
reference auditor's "do the rows support this finding?" warnings
(``auditor/support.support_problems``).
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Callable

from ..caseset.cases import CaseSet, Problem, load_case_set

Check = Callable[[CaseSet], list[Problem]]
Report = Callable[[CaseSet], str]


# The check modules are imported on first use, not with this module: the
# auditor's modules add tens of milliseconds to the start-up of
# `reviewtui eval`, which imports this module, and `eval --help` runs no check.


def all_checks() -> list[Check]:
    """Every check, in order: the case set's own, then the auditor's (warnings only: a second opinion)."""
    from ..auditor.support import support_problems
    from ..caseset import set_checks

    return [*set_checks.CHECKS, support_problems]


def all_reports() -> list[Report]:
    """Summary lines printed before the count (case set -> one line)."""
    from ..caseset import set_checks

    return list(set_checks.REPORTS)


def run_checks(case_set: CaseSet, checks: list[Check] | None = None) -> list[Problem]:
    """The case set's own problems plus every check's, sorted by file and line. A folder that is not
    there gets its own error alone: the set checks' warnings of an empty set would only bury it."""
    problems = list(case_set.problems)
    missing = not Path(case_set.root).is_dir()
    for check in [] if missing else all_checks() if checks is None else checks:
        problems.extend(check(case_set))
    return sorted(problems, key=lambda p: (str(p.path), p.line, p.severity != "error", p.message))


def validate(root: str | Path, *, hold: bool = False) -> tuple[CaseSet, list[Problem]]:
    """Load the case set at ``root`` and run every check on it: the one validation
    behind both ``reviewtui check`` and ``reviewtui eval``, so they never disagree.

    ``hold``: for a command whose process keeps what it loads to its end and then exits
    (``reviewtui check``, ``reviewtui eval``). The cases, their snapshots and their audits are taken out of the cyclic
    collector (``gc.freeze``) as the validation ends, and it does not run meanwhile: it would walk
    every object of them to free nothing (0.5 s after the audit of a 100,000-row snapshot). Cycles
    made meanwhile are freed with the process."""
    if not hold:
        case_set = load_case_set(root, memo=True)
        return case_set, run_checks(case_set)
    collecting = gc.isenabled()
    gc.disable()
    try:
        case_set = load_case_set(root, memo=True)
        return case_set, run_checks(case_set)
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)


def count_line(problems: list[Problem], cases: int) -> str:
    errors = sum(1 for p in problems if p.severity == "error")
    warnings = len(problems) - errors
    verdict = "fix the errors above" if errors else "ok"
    return f"{cases} case(s) checked: {errors} error(s), {warnings} warning(s): {verdict}"
