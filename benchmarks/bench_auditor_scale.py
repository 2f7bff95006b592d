"""The reference auditor on large snapshots: 10,000 and 100,000 daily rows (30 days x 334 / 3,334 campaigns).

Run: python benchmarks/bench_auditor_scale.py [--runs 3]

Prints the median wall time of ``audit()`` and its median CPU time (steadier on a shared machine) (the series built once, every
detector) and the number of findings; the snapshots are bench_scoring's
synthetic accounts, each audited ``--runs`` times as a loaded snapshot (the first run also builds the derived index,
which later runs find kept on the snapshot).
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
        # As Snapshot.load gives it: the derived index the detectors quote is kept on it after the first run
        snapshot = SnapshotData(make_snapshot(campaigns, 30))
        times, cpu, findings = [], [], 0
        for _ in range(args.runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            findings = len(audit(snapshot).findings)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        print(f"auditor, {len(snapshot['daily']):,} rows x {campaigns:,} campaigns: median {statistics.median(times):.2f} s "
              f"({', '.join(f'{t:.2f}' for t in times)}), CPU median {statistics.median(cpu):.2f} s, {findings} findings")


if __name__ == "__main__":
    main()
