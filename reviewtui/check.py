"""``reviewtui check [--cases DIR]``: every problem of the case set, as ``path:line: message``.

The structural validation comes from ``cases.load_case_set``. Further checks
are functions ``(case_set) -> list[Problem]``; modules add theirs without
touching this one by exposing a module-level ``CHECKS`` list and being named
in ``CHECK_MODULES``. Those modules are imported lazily and only if present,
so a build without them still checks what it can.

Exit codes: 0 no errors (warnings allowed), 2 any error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

from .cli_args import parse_args
from .caseset.cases import CaseSet, Problem, load_case_set

Check = Callable[[CaseSet], list[Problem]]

# Modules that may contribute checks (each exposes ``CHECKS: list[Check]``):
# the case-set mix and write-up checks, and the auditor's "do the rows
# support this finding?" warnings.
CHECK_MODULES = (
    "reviewtui.caseset.checks",
    "reviewtui.auditor.checks",
)

EXIT_OK = 0
EXIT_ERRORS = 2


def _check_modules(module_names: tuple[str, ...] | None = None) -> list[ModuleType]:
    """The listed modules (default ``CHECK_MODULES``) that exist in this build, in order."""
    modules = []
    for name in CHECK_MODULES if module_names is None else module_names:
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # the module (or its package) is not in this build
            raise  # the module exists but one of its own imports is broken: say so
    return modules


def available_checks(module_names: tuple[str, ...] | None = None) -> list[Check]:
    """The ``CHECKS`` of every check module that exists, in order."""
    return [c for module in _check_modules(module_names) for c in getattr(module, "CHECKS", ())]


def available_reports(module_names: tuple[str, ...] | None = None) -> list[Callable[[CaseSet], str]]:
    """Summary lines the check modules print before the count (``REPORTS``: case set -> one line)."""
    return [r for module in _check_modules(module_names) for r in getattr(module, "REPORTS", ())]


def run_checks(case_set: CaseSet, checks: list[Check] | None = None) -> list[Problem]:
    """The case set's own problems plus every check's, sorted by file and line."""
    problems = list(case_set.problems)
    for check in available_checks() if checks is None else checks:
        problems.extend(check(case_set))
    return sorted(problems, key=lambda p: (str(p.path), p.line, p.severity != "error", p.message))


def validate(root: str | Path) -> tuple[CaseSet, list[Problem]]:
    """Load the case set at ``root`` and run every check on it: the one validation
    behind both ``reviewtui check`` and ``reviewtui eval``, so they never disagree."""
    case_set = load_case_set(root)
    return case_set, run_checks(case_set)


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)


def count_line(problems: list[Problem], cases: int) -> str:
    errors = sum(1 for p in problems if p.severity == "error")
    warnings = len(problems) - errors
    verdict = "fix the errors above" if errors else "ok"
    return f"{cases} case(s) checked: {errors} error(s), {warnings} warning(s): {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reviewtui check", description="Validate the case set: every problem "
                                     "as path:line: message. Exit 0 when there is no error, 2 otherwise.")
    parser.add_argument("--cases", default="cases", metavar="DIR", help="the case set (default: ./cases)")
    args, code = parse_args(parser, argv)
    if args is None:
        return code
    case_set, problems = validate(args.cases)
    for problem in problems:
        print(problem)
    if case_set.cases:
        for report in available_reports():
            print(report(case_set))
    print(count_line(problems, len(case_set.cases)))
    return EXIT_ERRORS if has_errors(problems) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
