"""What the headless eval costs on its own: import, a 50-case replay run, the runner's overhead.

Run: python benchmarks/bench_eval.py [--copies 5] [--latency-ms 20]

1. ``import reviewtui.commands.eval`` in a fresh interpreter (median of 5): what CI pays
   before anything runs.
2. ``reviewtui eval --backend replay`` over the fixture set copied ``--copies``
   times (50 cases by default, like the real set), correct answers replayed:
   wall time of the whole command (loading, scoring, writing every file).
3. ``run_cases`` over 200 stub cases that each take ``--latency-ms``, at
   several concurrency limits: how close the run comes to cases x latency /
   concurrency, i.e. whether the bound is the only thing that limits it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewtui.backends.base import Backend, CaseOutput  # noqa: E402
from reviewtui.caseset.cases import load_case_set  # noqa: E402
from reviewtui.commands.eval import main as eval_main  # noqa: E402
from reviewtui.runs.runner import run_cases  # noqa: E402
from tests.stub_backends import FIXTURE_CASES, CorrectAssistant  # noqa: E402


def import_seconds(runs: int = 5) -> float:
    code = "import time; t = time.perf_counter(); import reviewtui.commands.eval; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(runs)]
    return statistics.median(times)


def copied_case_set(root: Path, copies: int) -> Path:
    """The fixture cases ``copies`` times over, each copy renamed (case id and folder)."""
    cases = root / "cases"
    for n in range(copies):
        for src in sorted(FIXTURE_CASES.iterdir()):
            case_id = f"{src.name}-{n}"
            dest = cases / case_id
            shutil.copytree(src, dest)
            expected = dest / "expected.yaml"
            expected.write_text(expected.read_text(encoding="utf-8").replace(f"case: {src.name}", f"case: {case_id}"),
                                encoding="utf-8")
    return cases


def replay_eval_seconds(copies: int) -> tuple[int, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = copied_case_set(root, copies)
        case_set = load_case_set(cases)
        replay = CorrectAssistant().write_replay_dir(case_set.cases, root / "replay")
        args = ["--backend", "replay", "--cases", str(cases), "--replay-dir", str(replay), "--results-dir", str(root / "results")]
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = eval_main(args)
        return len(case_set.cases), time.perf_counter() - start, code


class Sleepy(Backend):
    name = "bench-sleepy"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def run(self, case, *, repeat: int = 0) -> CaseOutput:
        await asyncio.sleep(self.latency)
        return CaseOutput(case.case_id, '{"findings": []}', input_tokens=1000, output_tokens=100)


def runner_seconds(latency: float, concurrency: int, jobs: int = 200) -> float:
    cases = load_case_set(FIXTURE_CASES).cases
    repeats = jobs // len(cases)
    start = time.perf_counter()
    asyncio.run(run_cases(cases, Sleepy(latency), concurrency=concurrency, repeats=repeats))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    args = parser.parse_args()

    print(f"import reviewtui.commands.eval (median of 5, fresh interpreter): {import_seconds() * 1000:.0f} ms")
    n, seconds, code = replay_eval_seconds(args.copies)
    print(f"reviewtui eval --backend replay, {n} cases (exit {code}): {seconds:.2f} s, {seconds / n * 1000:.0f} ms per case")
    latency = args.latency_ms / 1000
    for concurrency in (1, 8, 32):
        took = runner_seconds(latency, concurrency)
        ideal = 200 * latency / concurrency
        print(f"run_cases, 200 cases x {args.latency_ms:g} ms, concurrency {concurrency:>2}: {took:.2f} s "
              f"(ideal {ideal:.2f} s, overhead {max(took - ideal, 0) / 200 * 1000:.2f} ms per case)")


if __name__ == "__main__":
    main()
