"""Time the statistics a run and a comparison carry: the task-level bootstrap and the paired figures.

    python benchmarks/bench_stats.py [--runs N]

Prints medians over N runs (default 5) of: the bootstrap of mean recall and
precision alone (10,000 resamples of 50 cases); everything ``build_manifest``
adds for a 50-case run with 3 repeats (consistency, intervals, recall by
kind); and ``paired_comparison`` of two such runs (paired bootstrap, sign
test, McNemar per kind with BH). Times are CPU time of this process
(``time.process_time``), so other work on a shared machine does not blur them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from reviewtui.runs import inference
from reviewtui.backends.base import CaseOutput
from reviewtui.runs.result_files import RunPaths
from reviewtui.runs.gate import THRESHOLDS, summarize
from reviewtui.runs.case_records import CaseRecord
from reviewtui.runs.run_statistics import run_statistics
from reviewtui.runs.stored_runs import Run
from reviewtui.scoring.score import CaseScore
from reviewtui.runs.compare import paired_comparison

KINDS = ["tracking.conversions_stopped", "pacing.overspend", "waste.zero_conv_search_terms",
         "budget.lost_is_budget", "efficiency.off_target", "status.disapproved_ads"]


def make_run(seed: int, cases: int = 50, repeats: int = 3) -> Run:
    """A run of ``cases`` cases x ``repeats``, each case with 3 must_find ids, each found with chance 0.9."""
    rng = random.Random(seed)
    records = {}
    for c in range(cases):
        case_id = f"c{c:02d}"
        ids = [f"{KINDS[(c + i) % len(KINDS)]}@{c}{i}" for i in range(3)]
        scores = []
        for _ in range(repeats):
            found = [i for i in ids if rng.random() < 0.9]
            missed = [i for i in ids if i not in found]
            scores.append(CaseScore(case_id, "ok", len(found) / len(ids), rng.choice([1.0, 0.75, 1.0]), 0,
                                    missed_ids=missed, matched_ids=found))
        records[case_id] = CaseRecord(case_id, "ordinary", [CaseOutput(case_id, "{}")] * repeats, scores)
    manifest = {"prompt_version": f"bench-{seed}", "status": "complete",
                "summary": summarize(list(records.values()), cases_total=cases, not_run=[])}
    return Run(RunPaths.of_run_dir(f"/nonexistent/bench-{seed}"), manifest, records)


def cpu_median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    a, b = make_run(1), make_run(2)
    records = list(a.records.values())
    columns = [[r.recall for r in records], [r.precision for r in records]]
    boot = cpu_median(lambda: inference.bootstrap_means(columns), args.runs)
    manifest_stats = cpu_median(lambda: run_statistics(records, THRESHOLDS), args.runs)
    paired = cpu_median(lambda: paired_comparison(a, b), args.runs)
    print(f"bootstrap of mean recall and precision, {inference.DEFAULT_RESAMPLES:,} resamples x 50 cases: "
          f"median {boot * 1000:.0f} ms CPU over {args.runs} runs")
    print(f"run statistics of a 50-case run with 3 repeats (what build_manifest adds): median {manifest_stats * 1000:.0f} ms")
    print(f"paired comparison of two such runs: median {paired * 1000:.0f} ms")


if __name__ == "__main__":
    main()
