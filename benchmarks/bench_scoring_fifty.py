"""Time the scoring of the case set's answers: every case's snapshot indexed and its answer scored.

    python benchmarks/bench_scoring_fifty.py [--cases cases] [--runs 5] [--replay-dir DIR ...]

Sets of answers, each scored in a fresh process per run (so nothing is kept in memory
between runs; the on-disk caches are warm, as on a rerun):

- ``reference``: the reference auditor's answer for every case (``--backend rules``), prose, scored
  against the snapshots loaded again (so the timing does not depend on the audit's disk cache);
- ``honest``: the independent auditor's prose answers, ``--honest`` (25 cases; skipped when absent);
- ``honest_prose``: the same kind of answers kept in ``tests/fixtures/honest_prose`` (25 cases);
- ``honest_declared``: the declared answers of ``tests/fixtures/honest_declared`` (51 cases,
  audit-v4: every figure declared and recomputed);
- ``declared``: the hand-written declared answers of ``tests/fixtures/declared`` (5 cases);
- each ``--replay-dir DIR``: a folder of ``<case_id>.json`` raw answers, as ``reviewtui eval
  --backend replay`` reads. ``--sets NAME ...`` keeps only the named sets.

``--source DIR`` runs another checkout's code (e.g. ``git archive main | tar -x -C DIR``) on the same cases,
for a before/after. The output schema validator's import (jsonschema, once a process) is timed apart.

For each: the answers scored, the median wall and CPU seconds of ``--runs`` runs (the time to
index each case's snapshot and score its answer, ``scoring.score.score_case``; loading the case
set is not counted), and the median against the 1-second goal for the fifty cases.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 1.0

# One run, in a fresh interpreter: load the cases and the answers, then time the scoring alone.
RUN = """
import asyncio, json, sys, time
from pathlib import Path
from reviewtui.backends.base import CaseOutput
from reviewtui.caseset.cases import load_case_set
from reviewtui.scoring.score import score_case

cases_dir, answers = sys.argv[1], sys.argv[2]
case_set = load_case_set(cases_dir)
if answers == "reference":
    from reviewtui.backends.rules import RulesBackend
    backend = RulesBackend()
    answers = [asyncio.run(backend.run(case)) for case in case_set.cases]
    # Scored against freshly loaded snapshots: what the audit computed on its own (the derived index it
    # quotes from, when its disk cache was cold) is not left for the scoring to reuse.
    outputs = list(zip(load_case_set(cases_dir).cases, answers))
else:
    by_id = {case.case_id: case for case in case_set.cases}
    outputs = [(by_id[path.stem], CaseOutput(path.stem, path.read_text(encoding="utf-8")))
               for path in sorted(Path(answers).glob("c*.json")) if path.stem in by_id]
started = time.perf_counter()
try:
    from reviewtui.assistant import _validator  # the schema validator's import: a start-up cost, timed apart
    _validator(True), _validator(False)
except ImportError:
    pass
imports = time.perf_counter() - started
wall, cpu = time.perf_counter(), time.process_time()
scores = [score_case(case, output) for case, output in outputs]
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"answers": len(scores), "wall": wall, "cpu": cpu, "imports": imports,
                  "fabrications": sum(s.fabrication for s in scores), "unparseable": sum(s.status != "ok" for s in scores)}))
"""


def one_run(cases: Path, answers: str, source: Path = ROOT) -> dict:
    proc = subprocess.run([sys.executable, "-c", RUN, str(cases.resolve()), answers], cwd=source, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"a run of {answers} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "cases")
    parser.add_argument("--honest", type=Path, default=ROOT.parent / "shared" / "honest-answers")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout whose reviewtui is timed")
    parser.add_argument("--replay-dir", type=Path, action="append", default=[],
                        help="a folder of <case_id>.json raw answers to time too (repeatable)")
    parser.add_argument("--sets", nargs="+", help="time only these sets (reference, honest, honest_prose, "
                        "honest_declared, declared, or a --replay-dir folder's name)")
    args = parser.parse_args()
    fixtures = ROOT / "tests" / "fixtures"
    sets = {"reference": "reference", "honest": str(args.honest), "honest_prose": str(fixtures / "honest_prose"),
            "honest_declared": str(fixtures / "honest_declared"), "declared": str(fixtures / "declared")}
    sets.update((folder.name, str(folder.resolve())) for folder in args.replay_dir)
    for name, answers in sets.items():
        if args.sets and name not in args.sets:
            continue
        if answers != "reference" and not Path(answers).is_dir():
            print(f"{name}: {answers} not found, skipped")
            continue
        runs = [one_run(args.cases, answers, args.source) for _ in range(args.runs)]
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        n = runs[0]["answers"]
        print(f"{name}: {n} answers scored ({runs[0]['fabrications']} fabrications, {runs[0]['unparseable']} unparseable); "
              f"median of {len(runs)} runs: wall {wall:.3f} s, CPU {cpu:.3f} s "
              f"(+ validator import {statistics.median(r['imports'] for r in runs):.3f} s) "
              f"(runs {', '.join(format(r['wall'], '.3f') for r in runs)}); per answer {1000 * wall / max(n, 1):.1f} ms; "
              f"goal {GOAL_SECONDS:.0f} s for the fifty: ratio {wall / GOAL_SECONDS:.2f}"
              + (f" (x {50 / n:.1f} for fifty: {wall * 50 / n:.2f} s)" if n < 50 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
