"""`reviewtui import` on a large Meta Ads Manager export: wall time, CPU time and peak memory.

Run: python benchmarks/bench_import.py [--mb 200] [--runs 3] [--keep DIR]

Writes a Meta ad-level daily export of about ``--mb`` megabytes (one month, its
summary row first, as Ads Manager writes it) into a temporary folder, then runs
``python -m reviewtui import --format meta`` on it ``--runs`` times, each in its
own process, and prints the median wall time, CPU time and peak resident memory
(the process's own maximum, from ``wait4``) with the range over the runs. The
import's per-campaign costs are checked against sums made here while writing
the file. Goal: a 200 MB export in under 60 s and under 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEADER = ("Reporting starts,Reporting ends,Campaign name,Ad set name,Ad name,Day,Campaign ID,Ad set ID,Ad ID,"
          "Delivery status,Delivery level,Impressions,Reach,Link clicks,Amount spent (USD),Results,Result indicator,"
          "Purchases,Purchases conversion value")


def write_export(path: Path, megabytes: float, seed: int = 7) -> dict[str, Decimal]:
    """A month of ad-level rows, about ``megabytes`` big; returns the cost per campaign id."""
    rng = random.Random(seed)
    row_bytes = 244
    per_day = max(1, int(megabytes * 1e6 / row_bytes / 31))
    ads = [(f"1202{c:04d}00000000001", f"Campaign {c} | Prospecting | US", f"1203{c:04d}{a // 20:04d}0000001",
            f"Ad set {a // 20}", f"1204{c:04d}{a:06d}00001", f"Ad {a} | Video")
           for c in range(60) for a in range(max(1, per_day // 60))]
    costs: dict[str, Decimal] = defaultdict(Decimal)
    totals = [0, 0, Decimal(0), 0, Decimal(0)]
    lines = []
    for day in range(1, 32):
        iso = f"2023-08-{day:02d}"
        for cid, cname, sid, sname, aid, aname in ads:
            impressions = rng.randint(50, 9000)
            clicks = rng.randint(0, impressions // 40 + 1)
            cost = Decimal(f"{rng.uniform(0.5, 80):.9f}")
            purchases = rng.randint(0, 3)
            value = Decimal(f"{purchases * rng.uniform(20, 90):.9f}")
            costs[cid] += cost
            for i, v in enumerate((impressions, clicks, cost, purchases, value)):
                totals[i] += v
            lines.append(f"{iso},{iso},{cname},{sname},{aname},{iso},{cid},{sid},{aid},active,ad,{impressions},"
                         f"{int(impressions * 0.8)},{clicks},{cost},{purchases},"
                         f"actions:offsite_conversion.fb_pixel_purchase,{purchases},{value}\n")
    summary = (f"2023-08-01,2023-08-31,,,,,,,,,,{totals[0]},,{totals[1]},{totals[2]},,,{totals[3]},{totals[4]}\n")
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(HEADER + "\n")
        fh.write(summary)
        fh.writelines(lines)
    return costs


def run_import(src: Path, out: Path) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak resident bytes and stderr of one import process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui", "import", "--format", "meta", str(src), "-o", str(out),
                             "--force", "--account-id", "act_1", "--time-zone", "UTC"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"import failed ({proc.returncode}):\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the export here and keep it")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-import-"))
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "meta-ad-level-month.csv"
    costs = write_export(src, args.mb)
    size = src.stat().st_size
    print(f"export: {size / 1e6:,.1f} MB, {sum(1 for _ in src.open('rb')) - 2:,} ad rows, {len(costs)} campaigns")
    walls, cpus, peaks = [], [], []
    for _ in range(args.runs):
        wall, cpu, peak, _err = run_import(src, folder / "snapshot.json")
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
        print(f"  run: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 1e6:,.0f} MB")
    snapshot = json.loads((folder / "snapshot.json").read_text(encoding="utf-8"))
    got: dict[str, Decimal] = defaultdict(Decimal)
    for row in snapshot["daily"]:
        got[row["campaign_id"]] += Decimal(repr(row["cost"]))
    wrong = [c for c in costs if got[c].quantize(Decimal("0.01")) != costs[c].quantize(Decimal("0.01"))]
    print(f"per-campaign cost against the sums written: {len(costs) - len(wrong)} of {len(costs)} agree to the cent")
    print(f"import of {size / 1e6:,.0f} MB: median {statistics.median(walls):.1f} s wall "
          f"({min(walls):.1f}-{max(walls):.1f}), {statistics.median(cpus):.1f} s CPU, peak memory median "
          f"{statistics.median(peaks) / 1e6:,.0f} MB ({min(peaks) / 1e6:,.0f}-{max(peaks) / 1e6:,.0f}) "
          f"over {args.runs} runs; goal under 60 s and under 1,000 MB")
    if not args.keep:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
