"""``reviewtui compare A B``: how run B differs from run A on the same cases, and whether it is real.

The comparison is ``runs/compare.py``'s (the app's compare view shows the same figures).
A regression (``--fail-on-regression`` exits 1 on it): the 95% interval of the mean
recall delta lies wholly below zero, or B has a fabrication that A did not.
Exit codes: 0, 1 regression (with the flag), 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..files.untrusted import printable
from ..runs import inference
from ..runs.compare import format_text, load_any, paired_comparison, to_json
from ..runs.result_files import ResultsError
from .args import EXIT_USAGE, parse_args

EXIT_REGRESSION = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui compare",
        description="How run B differs from run A on the same cases: per-case deltas, ids newly missed and "
        "found, fabrications added and removed, a paired bootstrap interval, an exact sign test and per "
        "finding kind an exact McNemar test with Benjamini-Hochberg adjustment.",
        epilog="exit codes: 0 compared (or no regression), 1 regression with --fail-on-regression, 2 bad usage or input",
    )
    parser.add_argument("a", help="the run before: results/<version>/, results/<version>.csv, or a version under --results-dir")
    parser.add_argument("b", help="the run after, the same way")
    parser.add_argument("--results-dir", default="results", metavar="DIR",
                        help="where bare prompt versions are looked up (default: ./results)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="text for people (default), json for scripts")
    parser.add_argument("--fail-on-regression", action="store_true",
                        help="exit 1 when mean recall drops significantly (its 95%% interval wholly below zero) "
                        "or B has a fabrication A did not")
    parser.add_argument("--resamples", type=int, default=inference.DEFAULT_RESAMPLES, metavar="N",
                        help=f"bootstrap resamples (default {inference.DEFAULT_RESAMPLES:,}; at least 1,000)")
    parser.add_argument("--seed", type=int, default=inference.DEFAULT_SEED, metavar="N",
                        help=f"bootstrap seed (default {inference.DEFAULT_SEED})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(build_parser(), argv)
    if args is None:
        return code
    if args.resamples < 1000:
        print(f"reviewtui compare: --resamples {args.resamples} is too few for a 95% interval; use at least 1000",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        run_a = load_any(args.a, args.results_dir)
        run_b = load_any(args.b, args.results_dir)
    except ResultsError as exc:
        print(printable(f"reviewtui compare: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    result = paired_comparison(run_a, run_b, resamples=args.resamples, seed=args.seed)
    if args.format == "json":
        sys.stdout.write(json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(printable(format_text(result)))  # quotes run models and ids from result files
    return EXIT_REGRESSION if args.fail_on_regression and result.regression else 0


if __name__ == "__main__":
    from .args import run_module

    run_module("compare", main)
