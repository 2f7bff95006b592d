"""``reviewtui import --format meta|google|csv FILE... -o OUT``: an export to snapshot.json.

Prints the import report (rows read, used, dropped and why; per-campaign totals
in the files and in the snapshot, which must agree to the cent), validates the
snapshot as ``reviewtui check`` does, and writes only when all of that holds.
Exit codes: 0 written, 2 bad input (nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from ..cli_args import parse_args
from ..caseset.atomic import atomic_write_text
from ..caseset.rowcheck import daily_problems
from ..caseset.snapshot import required_field_problems
from .build import FileRows, Settings, build, campaign_totals_file, campaign_totals_snapshot, cents
from .csvread import DATE_FORMATS, InputError

EXIT_OK = 0
EXIT_BAD_INPUT = 2
PLATFORM = {"meta": "meta_ads", "google": "google_ads"}


def output_path(out: str) -> Path:
    """OUT as given when it names a .json file, else OUT/snapshot.json (a case folder)."""
    path = Path(out)
    return path if path.suffix.lower() == ".json" else path / "snapshot.json"


def _iso(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a YYYY-MM-DD date") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reviewtui import", description="Import platform exports into a snapshot.json.")
    p.add_argument("--format", required=True, choices=("meta", "google", "csv"),
                   help="meta: Ads Manager CSV export; google: Google Ads report download; csv: any CSV with --mapping")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="a .json file, or a case folder")
    p.add_argument("--mapping", metavar="YAML", help="with --format csv: which column holds which field")
    p.add_argument("--date-format", choices=tuple(DATE_FORMATS), help="the export's date format, when it is ambiguous")
    p.add_argument("--currency", help="the currency code, when the export does not name it")
    p.add_argument("--account-id")
    p.add_argument("--account-name")
    p.add_argument("--time-zone", help="the account's time zone (default UTC)")
    p.add_argument("--start", type=_iso, help="period start (default: the export's range)")
    p.add_argument("--end", type=_iso, help="period end (default: the export's range)")
    p.add_argument("--as-of", type=_iso, help="the snapshot date (default: the day after the period: a closed period)")
    p.add_argument("--keep-ads", action="store_true", help="also keep the rows below campaign level in ad_daily")
    p.add_argument("--force", action="store_true", help="replace an existing snapshot")
    return p


def read_files(args: argparse.Namespace) -> tuple[list[FileRows], Settings]:
    settings = Settings(platform=PLATFORM.get(args.format, ""), format=args.format, account_id=args.account_id,
                        account_name=args.account_name, time_zone=args.time_zone, currency=args.currency,
                        start=args.start, end=args.end, as_of=args.as_of, keep_ads=args.keep_ads)
    if args.format == "csv":
        from .mapped import load_mapping, read as read_mapped

        if not args.mapping:
            raise InputError(Path(args.files[0]), 1, "--format csv needs --mapping FILE naming the columns "
                             "(see docs/cases.md, 'Importing a real account')")
        mapping = load_mapping(args.mapping)
        settings.platform = mapping.platform
        settings.account_id = settings.account_id or mapping.account.get("id")
        settings.account_name = settings.account_name or mapping.account.get("name")
        settings.time_zone = settings.time_zone or mapping.account.get("time_zone")
        return [read_mapped(Path(f), mapping, args.date_format) for f in args.files], settings
    if args.format == "meta":
        from .meta import read
    else:
        from .google import read
    return [read(Path(f), args.date_format) for f in args.files], settings


def totals_table(files: list[FileRows], snapshot: dict) -> tuple[list[str], list[str]]:
    """Report lines of per-campaign totals, and the campaigns whose totals disagree to the cent."""
    in_file, in_snap = campaign_totals_file(files), campaign_totals_snapshot(snapshot)
    names = {c["id"]: c.get("name", "") for c in snapshot["campaigns"]}
    lines = [f"  {'campaign':<32} {'cost in file':>16} {'in snapshot':>16} {'impressions':>12} {'clicks':>9} {'conversions':>12}"]
    bad = []
    for key in sorted(set(in_file) | set(in_snap)):
        f, s = in_file.get(key, {}), in_snap.get(key, {})
        agree = all(cents(f.get(m, 0)) == cents(s.get(m, 0)) for m in set(f) | set(s))
        if not agree:
            bad.append(key)
        label = (names.get(key) or key)[:32]
        lines.append(f"  {label:<32} {cents(f.get('cost', 0)):>16,} {cents(s.get('cost', 0)):>16,} "
                     f"{int(s.get('impressions', 0)):>12,} {int(s.get('clicks', 0)):>9,} "
                     f"{s.get('conversions', 0):>12,}" + ("" if agree else "   DISAGREE"))
    return lines, bad


def validation_problems(snapshot: dict) -> list[str]:
    return required_field_problems(snapshot) + [msg for severity, msg in daily_problems(snapshot) if severity == "error"]


def run(args: argparse.Namespace) -> int:
    target = output_path(args.output)
    if target.exists() and not args.force:
        print(f"{target}: already exists; nothing written (pass --force to replace it)", file=sys.stderr)
        return EXIT_BAD_INPUT
    files, settings = read_files(args)
    snapshot, notes = build(files, settings)
    p = print
    src = snapshot["source"]
    p(f"import: {len(files)} file(s), format {src['format']}, platform {snapshot['platform']}, "
      f"grain {src['grain']}")
    for f in files:
        used = len(f.rows)
        p(f"  {f.path}: {f.rows_read} row(s) read, {used} used, {f.rows_read - used} dropped")
        for line, why in f.dropped:
            p(f"    line {line}: dropped: {why}")
    period = snapshot["period"]
    closed = period["as_of"] > period["end"]
    p(f"period {period['start']} to {period['end']}, as_of {period['as_of']}, last complete day "
      f"{period['last_complete_date']}" + (" (closed: every day of the period is complete)" if closed else ""))
    p(f"account {snapshot['account']['id']}, currency {snapshot['account']['currency_code']}, "
      f"time zone {snapshot['account']['time_zone']}; {len(snapshot['campaigns'])} campaign(s), "
      f"{len(snapshot['daily'])} daily row(s)" + (f", {len(snapshot['ad_daily'])} ad row(s)" if "ad_daily" in snapshot else ""))
    for note in notes:
        p(f"note: {note}")
    p("totals per campaign (file and snapshot must agree to the cent):")
    lines, bad = totals_table(files, snapshot)
    for text in lines:
        p(text)
    problems = validation_problems(snapshot)
    if bad:
        problems.append(f"totals disagree for campaign(s) {', '.join(bad)}")
    if problems:
        for problem in problems:
            print(f"{target}: {problem}", file=sys.stderr)
        print("nothing written", file=sys.stderr)
        return EXIT_BAD_INPUT
    atomic_write_text(target, json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n")
    p(f"wrote {target}")
    if target.name == "snapshot.json" and not (target.parent / "expected.yaml").exists():
        p(f"next: redact it (reviewtui redact {target} -o cases/<id> --key KEYFILE) before it joins the case set, "
          "then write expected.yaml beside it")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(_parser(), argv)
    if args is None:
        return code
    try:
        return run(args)
    except InputError as exc:
        print(f"{exc}\nnothing written", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    from ..cli_args import run_module

    run_module("import", main)
