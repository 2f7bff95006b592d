"""The row pipeline every `reviewtui check` and eval pays before the detectors run, step by step.

    python benchmarks/bench_rows.py [--runs 5] [--shapes campaigns wide ads] [--rows 100000]

For each shape of account (``large_accounts.py``) writes its snapshot.json to a temporary folder and, in
one process, times each step on a freshly loaded snapshot ``--runs`` times: the load (read, JSON parse,
the limits check), the shared reading of the rows (``caseset/daily_rows.py``), the row check
(``caseset/rowcheck.py``), the auditor's series (``auditor/series.build_series``) and the derived
index's daily totals (``scoring/daily_totals.py``). Prints the lowest CPU time of each step (steadier
than the median on a shared machine) and the sum of the steps after the load. The cyclic garbage
collector is held while the steps run, as ``reviewtui check`` holds it. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from large_accounts import SHAPES, make_account  # noqa: E402

from reviewtui.auditor.series import build_series  # noqa: E402
from reviewtui.caseset.daily_rows import daily_rows  # noqa: E402
from reviewtui.caseset.rowcheck import daily_problems  # noqa: E402
from reviewtui.caseset.snapshot import Snapshot  # noqa: E402
from reviewtui.scoring.daily_totals import daily_totals  # noqa: E402

STEPS = ("load", "rows", "row check", "series", "daily totals")


def lowest_times(path: Path, runs: int) -> dict[str, float]:
    best = dict.fromkeys(STEPS, float("inf"))
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            marks = [time.process_time()]
            snapshot = Snapshot.load(path)
            marks.append(time.process_time())
            for step in (daily_rows, daily_problems, build_series, daily_totals):
                step(snapshot.data)
                marks.append(time.process_time())
        finally:
            gc.enable()
        for name, start, end in zip(STEPS, marks, marks[1:]):
            best[name] = min(best[name], end - start)
        del snapshot
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for shape in args.shapes:
            path = Path(work) / f"{shape}.json"
            path.write_text(json.dumps(make_account(shape, args.rows)), encoding="utf-8")
            best = lowest_times(path, args.runs)
            steps = " ".join(f"{name} {seconds:.3f} s," for name, seconds in best.items())
            print(f"{shape} {args.rows:,} rows, lowest CPU of {args.runs}: {steps} "
                  f"the steps after the load {sum(best.values()) - best['load']:.3f} s")


if __name__ == "__main__":
    main()
