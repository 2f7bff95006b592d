"""``reviewtui check [--cases DIR]``: every problem of the case set, as ``path:line: message``.

The validation is ``runs/validation.py``'s, the same as ``reviewtui eval`` and the app run.
Exit codes: 0 no errors (warnings allowed), 2 any error.
"""

from __future__ import annotations

import argparse

from ..runs.validation import all_reports, count_line, has_errors, validate
from .args import emit, parse_args

EXIT_OK = 0
EXIT_ERRORS = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reviewtui check", description="Validate the case set: every problem "
                                     "as path:line: message. Exit 0 when there is no error, 2 otherwise.")
    parser.add_argument("--cases", default="cases", metavar="DIR", help="the case set (default: ./cases)")
    args, code = parse_args(parser, argv)
    if args is None:
        return code
    case_set, problems = validate(args.cases, hold=True)
    lines = [str(problem) for problem in problems]
    if case_set.cases:
        lines += [report(case_set) for report in all_reports()]
    emit([*lines, count_line(problems, len(case_set.cases))])
    return EXIT_ERRORS if has_errors(problems) else EXIT_OK


if __name__ == "__main__":
    from .args import run_module

    run_module("check", main)
