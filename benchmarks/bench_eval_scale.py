"""The commands a user types, on one large case: ``reviewtui eval --backend rules`` and ``reviewtui check``.

    python benchmarks/bench_eval_scale.py [--runs 5] [--shapes campaigns wide ads] [--rows 10000 100000]

For each shape of account (``large_accounts.py``: many campaigns x 30 days; very many campaigns x 7
days; 30 campaigns x 31 days split into ad-level rows) and each size, writes a one-case folder and
times each command as a whole process, from start to exit, ``--runs`` times:

- cold: an empty cache folder each run (``REVIEWTUI_CACHE_DIR``), as a user's first run: nothing parsed,
  audited or scored before;
- warm: the cache folder of a run before (the parsed expected.yaml, the reference auditor's audit and the
  stored scores are read back), as a rerun of an unchanged case set.

Each eval writes to a fresh results folder; each case's expected.yaml is what the account shows
(``large_accounts.PLANTED``), so the eval passes its gate (exit 0). Prints the median wall time and its spread, the median CPU
time (user + system, steadier on a shared machine), the peak memory (the largest resident set of the
process), and for each command the ratio of the largest size to the smallest (linear growth: 100k about
10x 10k). Nothing is asserted; the goal (issue 26) is eval under 3 s, check under 1.5 s and memory under
1 GB at 100,000 rows, median of 5.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from large_accounts import SHAPES, expected_yaml, make_account  # noqa: E402

COMMANDS = ("eval", "check")


def write_case(root: Path, case_id: str, snapshot: dict, shape: str) -> Path:
    """A one-case folder: the snapshot and an expected.yaml of what the account shows, so the rules
    backend's run passes its gate (recall 1, no fabrication) as on the case set."""
    case_dir = root / case_id
    case_dir.mkdir(parents=True)
    (case_dir / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (case_dir / "expected.yaml").write_text(expected_yaml(shape, case_id), encoding="utf-8")
    return case_dir


def argv(command: str, cases: Path, results: Path) -> list[str]:
    if command == "eval":
        return [sys.executable, "-m", "reviewtui", "eval", "--backend", "rules", "--cases", str(cases),
                "--results-dir", str(results)]
    return [sys.executable, "-m", "reviewtui", "check", "--cases", str(cases)]


def run_once(command: str, cases: Path, cache: Path) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak resident MB, exit code) of one process."""
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["REVIEWTUI_CACHE_DIR"] = str(cache)
    with tempfile.TemporaryDirectory() as results:
        start = time.perf_counter()
        process = subprocess.Popen(argv(command, cases, Path(results)), cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        errors = process.stderr.read().decode() if process.stderr else ""
        if process.stderr:
            process.stderr.close()
    code = process.returncode
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv(command, cases, Path('RESULTS')))} exited {code}:\n{errors[-2000:]}")
    # ru_maxrss is in kilobytes on Linux
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def measure(command: str, cases: Path, runs: int, warm: bool, work: Path) -> dict[str, float]:
    walls, cpus, rss, codes = [], [], [], set()
    for _ in range(runs):
        cache = Path(tempfile.mkdtemp(dir=work))
        if warm:
            run_once(command, cases, cache)  # the run before, which fills the cache folder
        wall, cpu, peak, code = run_once(command, cases, cache)
        codes.add(code)
        shutil.rmtree(cache, ignore_errors=True)
        walls.append(wall)
        cpus.append(cpu)
        rss.append(peak)
    return {"wall": statistics.median(walls), "min": min(walls), "max": max(walls),
            "cpu": statistics.median(cpus), "rss": max(rss), "exit": max(codes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    parser.add_argument("--rows", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=COMMANDS)
    parser.add_argument("--only", choices=("cold", "warm"), help="time only cold or only warm runs")
    parser.add_argument("--keep", metavar="DIR", help="write the case folders here (kept) instead of a temporary folder")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPU(s), load average {load:.1f} at the start; {args.runs} run(s) each, medians")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_eval_scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for shape in args.shapes:
            figures: dict[tuple[str, str, int], dict[str, float]] = {}
            for rows in args.rows:
                cases = work / f"{shape}-{rows}"
                if not cases.exists():
                    snapshot = make_account(shape, rows)
                    write_case(cases, f"c-{shape}-{rows}", snapshot, shape)
                n = len(json.loads((next(cases.iterdir()) / "snapshot.json").read_text())["daily"])
                for command in args.commands:
                    for state in ("cold", "warm"):
                        if args.only and state != args.only:
                            continue
                        f = figures[command, state, rows] = measure(command, cases, args.runs, state == "warm", work)
                        print(f"{shape:>9} {n:>8,} rows  {command:<5} {state}: wall median {f['wall']:.2f} s "
                              f"({f['min']:.2f}-{f['max']:.2f}), CPU {f['cpu']:.2f} s, peak RSS {f['rss']:.0f} MB, "
                              f"exit {f['exit']:.0f}",
                              flush=True)
            low, high = min(args.rows), max(args.rows)
            if low != high:
                for command in args.commands:
                    for state in ("cold", "warm"):
                        if (command, state, low) in figures:
                            a, b = figures[command, state, low], figures[command, state, high]
                            print(f"{shape:>9} {command} {state}: {high:,}/{low:,} rows = wall {b['wall'] / a['wall']:.1f}x, "
                                  f"CPU {b['cpu'] / a['cpu']:.1f}x")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
