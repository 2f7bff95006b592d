"""Time the whole offline evaluation: ``reviewtui eval --backend rules`` on the case set, process start to exit.

Runs the real command in a fresh process several times (results go to a temporary folder), prints each
wall-clock time and the median against the 2-second goal, and, when the median is above it (or with
``--profile``), the top entries of a cProfile run so the reader sees where the time goes.

    python benchmarks/bench_eval_offline.py [--cases DIR] [--runs 5] [--profile]
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 2.0


def command(cases: Path, results: Path) -> list[str]:
    return [sys.executable, "-m", "reviewtui.commands.eval", "--backend", "rules", "--cases", str(cases), "--results-dir", str(results)]


def offline_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}


def time_once(cases: Path) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        done = subprocess.run(command(cases, Path(tmp)), cwd=ROOT, env=offline_env(), capture_output=True, text=True)
        elapsed = time.perf_counter() - start
    return elapsed, done.returncode, done.stdout + done.stderr


def profile(cases: Path, top: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = Path(tmp) / "eval.prof"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats_path), *command(cases, Path(tmp) / "results")[1:]],
                       cwd=ROOT, env=offline_env(), capture_output=True, text=True)
        print(f"\ncProfile, top {top} by cumulative time:")
        pstats.Stats(str(stats_path), stream=sys.stdout).sort_stats("cumulative").print_stats(top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(ROOT / "cases"), help="the case set (default: the shipped cases)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="also print where the time goes")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    cases = Path(args.cases).resolve()
    n_cases = sum(1 for p in cases.iterdir() if (p / "snapshot.json").is_file()) if cases.is_dir() else 0
    times = []
    for run in range(1, args.runs + 1):
        elapsed, code, output = time_once(cases)
        if code not in (0, 1):  # 2: invalid case set, 3: incomplete: nothing to time
            print(f"run {run}: reviewtui eval exited {code}; nothing was scored:\n{output}", file=sys.stderr)
            return 2
        times.append(elapsed)
        print(f"run {run}: {elapsed:.3f} s (exit {code})")
    median = statistics.median(times)
    verdict = "within" if median <= GOAL_SECONDS else "ABOVE"
    print(f"offline eval of {n_cases} cases, {os.cpu_count()} CPU(s): median {median:.3f} s over {len(times)} runs "
          f"(min {min(times):.3f}, max {max(times):.3f}); {verdict} the {GOAL_SECONDS:.0f}-second goal")
    if args.profile or median > GOAL_SECONDS:
        profile(cases, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
