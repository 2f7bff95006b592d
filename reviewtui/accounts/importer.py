"""``reviewtui import --format meta|google|csv FILE... -o OUT``: an export to snapshot.json.

Prints the import report (rows read, used, dropped and why; the metrics found and
not found; the period and where it was read; per-campaign totals), validates the
snapshot as ``reviewtui check`` does (its required fields, its rows, its size
limits), and writes only when all of that holds. The snapshot is written before
the report is printed, so a closed pipe (``| head``) never loses it.
Exit codes: 0 written, 2 bad input (nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from ..caseset.account_codes import currency_code_problem, time_zone_problem
from ..files.atomic import atomic_write_text
from ..caseset.rowcheck import daily_problems
from ..caseset.snapshot import LIMITS, period_problems, required_field_problems
from ..files.untrusted import check_tree
from ..cli_args import emit, parse_args
from .build import Built, Settings, build, campaign_totals_snapshot, cents
from .csvread import InputError, Progress, same_file
from .dates import DATE_FORMATS
from .numbers import DECIMAL_MARKS
from .rows import CORE_METRICS, NUMBER_FIELDS, FileRows, ReadOptions

EXIT_OK = 0
EXIT_BAD_INPUT = 2
PLATFORM = {"meta": "meta_ads", "google": "google_ads"}
REPORT_DROPPED_LINES = 20


def output_path(out: str) -> Path:
    """OUT as given when it names a .json file, else OUT/snapshot.json (a case folder)."""
    path = Path(out)
    return path if path.suffix.lower() == ".json" else path / "snapshot.json"


def output_problem(out: str) -> str | None:
    """Why ``-o OUT`` names no place a snapshot can go (checked before any file is read), or None."""
    fix = "name a .json file (-o /tmp/account.json) or a case folder (-o cases/c51-shop)"
    path = Path(out)
    if not out.strip():
        return f"-o is empty: {fix}"
    if path.suffix.lower() == ".json":
        if path.is_dir():
            return f"-o {out}: is a folder, not a .json file; {fix}"
    elif path.suffix:
        return f"-o {out}: neither a .json file nor a case folder (a case id has no '.'); {fix}"
    elif path.exists() and not path.is_dir():
        return f"-o {out}: is a file, not a case folder; {fix}"
    return None


def write_output(target: Path, text: str) -> str | None:
    """Write the snapshot; why it could not be written (nothing is left behind then), or None."""
    try:
        atomic_write_text(target, text)
    except OSError as exc:
        return f"{target}: cannot be written ({exc.strerror or exc}); choose a place you can write"
    return None


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


def _distinct_files(paths: list[Path]) -> None:
    """The same file twice (``x.csv ./x.csv``) would count every row twice."""
    for i, path in enumerate(paths):
        for j in range(i):
            if same_file(paths[j], path):
                raise InputError(path, 1, f"the same file as {paths[j]} (arguments {j + 1} and {i + 1}): every row "
                                 "would be counted twice; pass each export once")


def read_files(args: argparse.Namespace, progress: Progress | None = None) -> tuple[list[FileRows], Settings]:
    settings = Settings(platform=PLATFORM.get(args.format, ""), format=args.format, account_id=args.account_id,
                        account_name=args.account_name, time_zone=args.time_zone, currency=args.currency,
                        start=args.start, end=args.end, as_of=args.as_of, month=args.month, keep_ads=args.keep_ads)
    options = ReadOptions(args.date_format, args.decimal_mark, frozenset(args.allow_missing or ()),
                          args.skip_export_totals, args.last_row_whole)
    paths = [Path(f) for f in args.files]
    if args.format == "csv":
        from .mapped import load_mapping, read as read_mapped

        if not args.mapping:
            raise InputError(paths[0], 1, "--format csv needs --mapping FILE naming the columns "
                             "(see docs/cases.md, 'Importing a real account')")
        mapping = load_mapping(args.mapping)
        settings.platform = mapping.platform
        settings.account_id = settings.account_id or mapping.account.get("id")
        settings.account_name = settings.account_name or mapping.account.get("name")
        settings.time_zone = settings.time_zone or mapping.account.get("time_zone")
        settings.missing_row_means = mapping.missing_row_means
        _distinct_files(paths)
        return [read_mapped(p, mapping, options, progress) for p in paths], settings
    if args.format == "meta":
        from .meta import read
    else:
        from .google import read
    _distinct_files(paths)
    return [read(p, options, progress) for p in paths], settings


def totals_table(built: Built) -> tuple[list[str], list[str]]:
    """Report lines of per-campaign totals, and the campaigns whose totals disagree to the cent."""
    snapshot = built.snapshot
    in_file, in_snap = built.file_totals, campaign_totals_snapshot(snapshot)
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
    return (required_field_problems(snapshot) + period_problems(snapshot["period"])
            + [msg for severity, msg in daily_problems(snapshot) if severity == "error"])


def limit_problems(snapshot: dict, text: str, keep_ads: bool) -> list[str]:
    """What `reviewtui check` would refuse in the written file: its size, nesting, list lengths, strings."""
    fix = ("import without --keep-ads (the ad rows are most of it), or a shorter period" if keep_ads
           else "import a shorter period, or fewer campaigns")
    size = len(text.encode("utf-8"))
    problems = []
    if size > LIMITS.max_bytes:
        problems.append(f"the snapshot would be {size / 1e6:,.1f} MB, over the {LIMITS.max_bytes >> 20} MiB "
                        f"`reviewtui check` accepts: {fix}")
    tree = check_tree(snapshot, LIMITS)
    if tree:
        problems.append(f"{tree}: over what `reviewtui check` accepts (docs/cases.md, 'Untrusted input'): {fix}")
    return problems


def report(files: list[FileRows], built: Built) -> list[str]:
    snapshot = built.snapshot
    src = snapshot["source"]
    lines = [f"import: {len(files)} file(s), format {src['format']}, platform {snapshot['platform']}, "
             f"grain {src['grain']}"]
    for index, f in enumerate(files):
        used = built.used[index]
        outside, first_outside = built.outside[index]
        lines.append(f"  {f.path}: {f.rows_read} row(s) read, {used} used, {f.rows_read - used} dropped")
        for line, why in f.dropped[:REPORT_DROPPED_LINES]:
            lines.append(f"    line {line}: dropped: {why}")
        if len(f.dropped) > REPORT_DROPPED_LINES:
            lines.append(f"    ... and {len(f.dropped) - REPORT_DROPPED_LINES} more total rows")
        if outside:
            lines.append(f"    {outside} row(s) outside the period left out, first at line {first_outside}")
        found = ", ".join(f"{m} ({header!r})" for m, header in f.metrics.items())
        lines.append(f"    metrics found: {found or 'none'}")
        lines.append(f"    not in the export: {', '.join(m for m in NUMBER_FIELDS if m not in f.metrics) or 'none'}")
    period = snapshot["period"]
    closed = period["as_of"] > period["end"]
    lines.append(f"period {period['start']} to {period['end']} (from {built.period.source}), as_of {period['as_of']}, "
                 f"last complete day {period['last_complete_date']}"
                 + (" (closed: every day of the period is complete)" if closed else ""))
    lines.append(f"account {snapshot['account']['id']}, currency {snapshot['account']['currency_code']}, "
                 f"time zone {snapshot['account']['time_zone']}; {len(snapshot['campaigns'])} campaign(s), "
                 f"{len(snapshot['daily'])} daily row(s)"
                 + (f", {len(snapshot['ad_daily'])} ad row(s)" if "ad_daily" in snapshot else ""))
    missing = src.get("metrics_missing")
    if missing:
        built.notes.append(f"the export has no column for {', '.join(missing)}: the daily rows leave "
                           f"{'it' if len(missing) == 1 else 'them'} out and source.metrics_missing names "
                           f"{'it' if len(missing) == 1 else 'them'}")
    lines += [f"note: {note}" for note in built.notes]
    lines.append("totals per campaign (file and snapshot must agree to the cent):")
    return lines


def run(args: argparse.Namespace) -> int:
    target = output_path(args.output)
    if target.exists() and not args.force:
        print(f"{target}: already exists; nothing written (pass --force to replace it)", file=sys.stderr)
        return EXIT_BAD_INPUT
    progress = Progress()
    files, settings = read_files(args, progress)
    built = build(files, settings)
    snapshot = built.snapshot
    lines = report(files, built)
    table, bad = totals_table(built)
    lines += table
    problems = validation_problems(snapshot)
    if bad:
        problems.append(f"totals disagree for campaign(s) {', '.join(bad)}")
    text = json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n"
    problems += limit_problems(snapshot, text, settings.keep_ads)
    if problems:
        emit(lines)
        emit([f"{target}: {problem}" for problem in problems] + ["nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    if problem := write_output(target, text):
        emit(lines)
        emit([problem, "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT
    lines.append(f"wrote {target}")
    if target.name == "snapshot.json" and not (target.parent / "expected.yaml").exists():
        lines.append(f"next: redact it (reviewtui redact {target} -o cases/<id> --key KEYFILE) before it joins the "
                     "case set; redact writes the case's snapshot.json and a blank expected.yaml to fill in")
    emit(lines)
    return EXIT_OK


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
    try:
        return run(args)
    except InputError as exc:
        emit([f"{exc}", "nothing written"], sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    from ..cli_args import run_module

    run_module("import", main)
