"""The scoring of one large answer: the reference auditor's findings on one large case, judged by the
prose rules.

    python benchmarks/bench_scoring_large.py [--case-dir DIR] [--shape campaigns] [--rows 100000] [--runs 5]
                                              [--source DIR]

Without ``--case-dir``, writes a one-case folder of ``large_accounts.py``'s ``--shape`` and ``--rows``
(100,000 rows of the ``campaigns`` shape: 3,334 campaigns, whose reference answer has about 1,956
findings and 10,500 figures). In a fresh process: loads the case, runs the rules backend for its answer,
scores it once (building what is kept per snapshot: the daily totals, the derived index without its
windows), then ``--runs`` times with the grounding index built again (its account-wide table, and every
range, derivation and row table the findings name: what a scoring worker builds per answer), timing
``score_case`` alone. Prints the CPU time (steadier than wall time on a shared machine) of each run, the
median and the time a finding. ``--source DIR`` runs another checkout's code on the same case, for a
before/after (e.g. ``git archive main | tar -x -C DIR``). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_eval_scale import write_case  # noqa: E402
from large_accounts import SHAPES, make_account  # noqa: E402

# One sitting, in a fresh interpreter: the answer, a first scoring, then the timed ones.
RUN = """
import asyncio, gc, statistics, sys, time
from reviewtui.backends.rules import RulesBackend
from reviewtui.caseset.cases import load_case_set
from reviewtui.scoring.score import score_case
case = load_case_set(sys.argv[1]).cases[0]
answer = asyncio.run(RulesBackend().run(case))
case = load_case_set(sys.argv[1]).cases[0]  # loaded again: nothing the audit computed is reused
first = score_case(case, answer)
kept = case.snapshot.data.cache._values
cpu = []
for _ in range(int(sys.argv[2])):
    for key in [k for k in kept if isinstance(k, tuple) and k and k[0] == "grounding index"]:
        del kept[key]
    gc.collect()
    start = time.process_time()
    score_case(case, answer)
    cpu.append(time.process_time() - start)
findings, figures = len(first.findings), len(first.figures)
median = statistics.median(cpu)
print(f"{findings} findings, {figures} figures; score_case CPU per run: " + " ".join(f"{c:.2f}" for c in cpu))
print(f"median {median:.2f} s (min {min(cpu):.2f} s): {median / max(findings, 1) * 1000:.2f} ms a finding")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case-dir", type=Path, help="a folder holding one case (default: one is generated)")
    parser.add_argument("--shape", default="campaigns", choices=sorted(SHAPES))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, help="another checkout whose code is timed instead")
    args = parser.parse_args()
    source = (args.source or ROOT).resolve()
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("ANTHROPIC_API_KEY", None)
    with tempfile.TemporaryDirectory() as tmp:
        cases = args.case_dir
        if cases is None:
            cases = Path(tmp) / "cases"
            case_id = f"c-{args.shape}-{args.rows}"
            write_case(cases, case_id, make_account(args.shape, args.rows), args.shape)
        print(f"{cases} ({source})", flush=True)
        subprocess.run([sys.executable, "-c", RUN, str(cases), str(args.runs)], check=True, env=env, cwd=source)


if __name__ == "__main__":
    main()
