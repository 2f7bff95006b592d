"""``reviewtui import --format meta|google|csv FILE... -o OUT``: an export to snapshot.json.

Prints the import report and writes the snapshot only when it holds (``accounts/importer.py``).
Exit codes: 0 written, 2 bad input (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from ..accounts.build import Settings
from ..accounts.csvread import InputError
from ..accounts.dates import DATE_FORMATS
from ..accounts.importer import PLATFORM, import_exports, output_path, output_problem
from ..accounts.numbers import DECIMAL_MARKS
from ..accounts.rows import CORE_METRICS, ReadOptions
from ..caseset.account_codes import currency_code_problem, time_zone_problem
from .args import emit, parse_args

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def _iso(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a YYYY-MM-DD date") from None


def _month(text: str) -> date:
    try:
        return date.fromisoformat(f"{text}-01")
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a YYYY-MM month") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reviewtui import", description="Import platform exports into a snapshot.json.")
    p.add_argument("--format", required=True, choices=("meta", "google", "csv"),
                   help="meta: Ads Manager CSV export; google: Google Ads report download; csv: any CSV with --mapping")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="a .json file, or a case folder")
    p.add_argument("--mapping", metavar="YAML", help="with --format csv: which column holds which field")
    p.add_argument("--date-format", choices=tuple(DATE_FORMATS), help="the export's date format, when it is ambiguous")
    p.add_argument("--decimal-mark", choices=DECIMAL_MARKS,
                   help="the export's decimal mark, when nothing in the file settles it")
    p.add_argument("--currency", help="the currency code, when the export does not name it")
    p.add_argument("--account-id")
    p.add_argument("--account-name")
    p.add_argument("--time-zone", help="the account's time zone (default UTC)")
    p.add_argument("--start", type=_iso, help="period start (default: the export's range)")
    p.add_argument("--end", type=_iso, help="period end (default: the export's range)")
    p.add_argument("--month", type=_month, metavar="YYYY-MM",
                   help="take this calendar month out of a longer export (rows outside it are left out)")
    p.add_argument("--as-of", type=_iso, help="the snapshot date (default: the day after the period: a closed period)")
    p.add_argument("--allow-missing", action="append", choices=[m for m in CORE_METRICS if m != "cost"],
                   metavar="METRIC", help="import without this core metric (impressions, clicks, conversions) "
                   "when the export has no column for it; repeat for several")
    p.add_argument("--skip-export-totals", action="store_true",
                   help="do not refuse when the export's own total rows disagree with its rows (a filtered report)")
    p.add_argument("--last-row-whole", action="store_true",
                   help="the file ends without a line break and its last row is whole (no total row confirms it)")
    p.add_argument("--keep-ads", action="store_true", help="also keep the rows below campaign level in ad_daily")
    p.add_argument("--force", action="store_true", help="replace an existing snapshot")
    return p


def usage_problem(args: argparse.Namespace) -> str | None:
    """Flags that cannot be read together or as given (checked before any file is read)."""
    if problem := output_problem(args.output):
        return problem
    if args.month and (args.start or args.end):
        return "--month takes a whole calendar month; --start/--end name a period of their own: pass one or the other"
    if args.currency and (problem := currency_code_problem(args.currency.strip().upper())):
        return f"--currency: {problem}"
    if args.time_zone and (problem := time_zone_problem(args.time_zone)):
        return f"--time-zone: {problem}"
    return None


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(_parser(), argv)
    if args is None:
        return code
    if problem := usage_problem(args):
        emit([f"reviewtui import: {problem}", "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    target = output_path(args.output)
    if target.exists() and not args.force:
        print(f"{target}: already exists; nothing written (pass --force to replace it)", file=sys.stderr)
        return EXIT_BAD_INPUT
    settings = Settings(platform=PLATFORM.get(args.format, ""), format=args.format, account_id=args.account_id,
                        account_name=args.account_name, time_zone=args.time_zone, currency=args.currency,
                        start=args.start, end=args.end, as_of=args.as_of, month=args.month, keep_ads=args.keep_ads)
    options = ReadOptions(args.date_format, args.decimal_mark, frozenset(args.allow_missing or ()),
                          args.skip_export_totals, args.last_row_whole)
    try:
        lines, refusals = import_exports([Path(f) for f in args.files], settings, options, target,
                                         mapping=args.mapping)
    except InputError as exc:
        emit([f"{exc}", "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    emit(lines)
    if refusals:
        emit([*refusals, "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


if __name__ == "__main__":
    from .args import run_module

    run_module("import", main)
