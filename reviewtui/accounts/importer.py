"""An export to snapshot.json (``reviewtui import``, ``commands/import_.py``): the files read, the snapshot built,
checked and written.

The import report says the rows read, used, dropped and why; the metrics found and
not found; the period and where it was read; per-campaign totals. The snapshot is
validated as ``reviewtui check`` does (its required fields, its rows, its size
limits) and written only when all of that holds, before the report is printed, so
a closed pipe (``| head``) never loses it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files.atomic import atomic_write_text
from ..caseset.rowcheck import daily_problems
from ..caseset.snapshot import LIMITS, period_problems, required_field_problems
from ..files.untrusted import check_tree
from .build import Built, Settings, build, campaign_totals_snapshot, cents
from .csvread import InputError, Progress, same_file
from .rows import NUMBER_FIELDS, FileRows, ReadOptions

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


def _distinct_files(paths: list[Path]) -> None:
    """The same file twice (``x.csv ./x.csv``) would count every row twice."""
    for i, path in enumerate(paths):
        for j in range(i):
            if same_file(paths[j], path):
                raise InputError(path, 1, f"the same file as {paths[j]} (arguments {j + 1} and {i + 1}): every row "
                                 "would be counted twice; pass each export once")


def read_files(paths: list[Path], settings: Settings, options: ReadOptions, *, mapping: str | None = None,
               progress: Progress | None = None) -> list[FileRows]:
    """The exports' rows, read in ``settings.format`` (``mapping``: the --format csv column mapping, which
    also fills the account fields ``settings`` leaves empty). Raises InputError naming the file and line."""
    if settings.format == "csv":
        from .mapped import load_mapping, read as read_mapped

        if not mapping:
            raise InputError(paths[0], 1, "--format csv needs --mapping FILE naming the columns "
                             "(see docs/cases.md, 'Importing a real account')")
        columns = load_mapping(mapping)
        settings.platform = columns.platform
        settings.account_id = settings.account_id or columns.account.get("id")
        settings.account_name = settings.account_name or columns.account.get("name")
        settings.time_zone = settings.time_zone or columns.account.get("time_zone")
        settings.missing_row_means = columns.missing_row_means
        _distinct_files(paths)
        return [read_mapped(p, columns, options, progress) for p in paths]
    if settings.format == "meta":
        from .meta import read
    else:
        from .google import read
    _distinct_files(paths)
    return [read(p, options, progress) for p in paths]


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


def validation_problems(snapshot: dict[str, Any]) -> list[str]:
    return (required_field_problems(snapshot) + period_problems(snapshot["period"])
            + [msg for severity, msg in daily_problems(snapshot) if severity == "error"])


def limit_problems(snapshot: dict[str, Any], text: str, keep_ads: bool) -> list[str]:
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


def import_exports(paths: list[Path], settings: Settings, options: ReadOptions, target: Path, *,
                   mapping: str | None = None) -> tuple[list[str], list[str]]:
    """``reviewtui import``'s work: read the exports, build the snapshot, check it as ``reviewtui check`` would,
    and write it to ``target`` only when all of that holds. Returns the report's lines and the refusals (each
    a line; none when the snapshot was written). Raises InputError naming the file and line."""
    files = read_files(paths, settings, options, mapping=mapping, progress=Progress())
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
        return lines, [f"{target}: {problem}" for problem in problems]
    if problem := write_output(target, text):
        return lines, [problem]
    lines.append(f"wrote {target}")
    if target.name == "snapshot.json" and not (target.parent / "expected.yaml").exists():
        lines.append(f"next: redact it (reviewtui redact {target} -o cases/<id> --key KEYFILE) before it joins the "
                     "case set; redact writes the case's snapshot.json and a blank expected.yaml to fill in")
    return lines, []
