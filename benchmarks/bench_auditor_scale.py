"""The reference auditor on large snapshots: 10,000 and 100,000 daily rows (30 days x 334 / 3,334 campaigns).

Run: python benchmarks/bench_auditor_scale.py [--runs 3]

Each run loads the snapshot afresh (a new ``SnapshotData``, as ``Snapshot.load`` gives it: nothing read
or computed from it yet) and audits it twice: the first audit, what ``reviewtui check`` pays (the shared
reading of the rows, the series, every detector, the derived-index figures the findings quote), and a
second audit of the same loaded snapshot (what is kept on the snapshot read again). Prints the median
wall and CPU time of each (CPU is steadier on a shared machine) and the number of findings; the
snapshots are bench_scoring's synthetic accounts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scoring import make_snapshot  # noqa: E402

from reviewtui.auditor.audit import audit  # noqa: E402
from reviewtui.caseset.snapshot_cache import SnapshotData  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for campaigns in (334, 3334):
        raw = make_snapshot(campaigns, 30)
        first: list[tuple[float, float]] = []
        again: list[tuple[float, float]] = []
        findings = 0
        for _ in range(args.runs):
            snapshot = SnapshotData(raw)  # as Snapshot.load gives it: a cache of its own, empty
            for times in (first, again):
                start, start_cpu = time.perf_counter(), time.process_time()
                findings = len(audit(snapshot).findings)
                times.append((time.perf_counter() - start, time.process_time() - start_cpu))
        for label, times in (("first audit", first), ("again", again)):
            walls = [w for w, _ in times]
            print(f"auditor, {len(raw['daily']):,} rows x {campaigns:,} campaigns, {label}: median "
                  f"{statistics.median(walls):.2f} s ({', '.join(f'{w:.2f}' for w in walls)}), CPU median "
                  f"{statistics.median(c for _, c in times):.2f} s, {findings} findings")

if __name__ == "__main__":
    main()
