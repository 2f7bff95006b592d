"""``reviewtui redact SNAPSHOT -o OUT --key KEYFILE [--salt TEXT]``: a snapshot with stable pseudonyms.

What is replaced and how: ``accounts/redact.py``. Exit codes: 0 written, 2 bad input (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..accounts.importer import output_path, output_problem
from ..accounts.redact import RedactError, redact_to_file
from .args import emit, parse_args

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reviewtui redact", description="Replace names, ids, search terms, URLs and "
                                "free text in a snapshot with stable pseudonyms; numbers and dates are kept.")
    p.add_argument("snapshot", metavar="SNAPSHOT")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="a .json file, or a case folder")
    p.add_argument("--key", required=True, metavar="KEYFILE",
                   help="the secret key (hex; made when missing); keep it outside the case set")
    p.add_argument("--salt", default="", metavar="TEXT",
                   help="mixed into every pseudonym (e.g. the case id), so cases redacted with one team key share "
                   "no pseudonym; the same key and salt give the same output")
    p.add_argument("--force", action="store_true", help="replace an existing output")
    return p


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(_parser(), argv)
    if args is None:
        return code
    if problem := output_problem(args.output):
        emit([f"reviewtui redact: {problem}", "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    try:
        lines = redact_to_file(Path(args.snapshot), output_path(args.output), args.key, salt=args.salt,
                               force=args.force)
    except RedactError as exc:
        emit([str(exc), "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    emit(lines)
    return EXIT_OK


if __name__ == "__main__":
    from .args import run_module

    run_module("redact", main)
