"""How the review screens feel: a run from the app, key latency while it runs, opening and re-scoring a run.

Runs the real app headless (Textual's test driver, 130x36) on fifty generated cases and prints
figures; nothing is asserted.

    python benchmarks/bench_review.py [--latency 0.05] [--large]

- a run from the new-run form: the stub assistant answers each case after ``--latency`` seconds (an
  API call stand-in; no network), four cases in flight; the cases are scored for real as they land;
- key latency during that run: ``tab`` / ``shift+tab`` sent as the terminal driver would, timed until
  the focus has moved (the run and its scoring happen in a worker thread);
- opening the run view (``enter`` in the runs view until the case table is filled), stepping to the
  next failing case in the case review, re-scoring every stored output (``R`` until the changes panel
  shows), and opening the compare view against the run as it was before the re-score;
- ``--large`` adds a case with a 100,000-row snapshot, whose scoring is the heaviest work in a run.

Everything happens in a temporary folder; nothing is written inside the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewtui import assistant  # noqa: E402
from reviewtui.backends.base import Backend, CaseOutput  # noqa: E402
from reviewtui.caseset.cases import Case  # noqa: E402
from reviewtui.tui.app import ReviewApp  # noqa: E402
from reviewtui.tui.screens.case_review import CaseReviewScreen  # noqa: E402
from reviewtui.tui.screens.compare import CompareScreen  # noqa: E402
from reviewtui.tui.screens.new_run import NewRunScreen  # noqa: E402
from reviewtui.tui.screens.run_review import RunScreen  # noqa: E402
from reviewtui.tui.widgets.review.case_table import ReviewCaseTable  # noqa: E402
from tests.app.casegen import make_case_set, make_large_case  # noqa: E402
from tests.stub_backends import CorrectAssistant  # noqa: E402

SIZE = (130, 36)


class SlowCorrectAssistant(Backend):
    """The senior's must_find as the answer (one case with a made-up figure), after a delay."""

    name = "stub-slow"
    model = "stub"

    def __init__(self, delay: float, made_up_case: str) -> None:
        self.delay = delay
        self.inner = CorrectAssistant(made_up=(made_up_case, "$48,213.77"))

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        await asyncio.sleep(self.delay)
        return CaseOutput(case.case_id, self.inner.text_for(case), input_tokens=9000, output_tokens=700)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def summary(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    return (f"{len(ordered)} keys, median {ms(statistics.median(ordered))}, "
            f"p95 {ms(ordered[max(0, int(len(ordered) * 0.95) - 1)])}, max {ms(ordered[-1])}")


async def until(pilot, condition, timeout: float = 600.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("condition not met")
        await pilot.pause(0.002)


async def focus_moved_after(app, key: str) -> float:
    before = app.focused
    started = time.perf_counter()
    app.simulate_key(key)
    while app.focused is before:
        await asyncio.sleep(0.0002)
    return time.perf_counter() - started


async def bench(repo: Path, delay: float) -> None:
    cases = sorted(p.name for p in (repo / "cases").iterdir())
    app = ReviewApp(Path("cases"), Path("results"), cursor_blink=False)
    app.backend_factory = lambda settings: SlowCorrectAssistant(delay, cases[0])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3", "n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        idle = [await focus_moved_after(app, "tab" if i % 2 else "shift+tab") for i in range(30)]
        print(f"key latency with nothing running (the baseline): {summary(idle)}")
        started = time.perf_counter()
        await pilot.press("ctrl+r")
        latencies = []
        while screen.state in ("idle", "running"):
            latencies.append(await focus_moved_after(app, "tab" if len(latencies) % 2 else "shift+tab"))
            await asyncio.sleep(0.01)
        await until(pilot, lambda: screen.state not in ("idle", "running"))
        run_seconds = time.perf_counter() - started
        print(f"run of {len(cases)} cases from the app ({delay:g} s per answer, 4 in flight, scored as they land): "
              f"{run_seconds:.2f} s, status {screen.state}")
        if latencies:
            print(f"key latency during the run: {summary(latencies)}")

        run_dir = repo / "results" / assistant.PROMPT_VERSION
        before_dir = repo / "results" / f"{assistant.PROMPT_VERSION}-before"
        shutil.copytree(run_dir, before_dir)

        await pilot.press("escape")  # back to the runs view
        await pilot.pause()
        app.screen.action_reload()
        app.screen.query_one("DataTable").move_cursor(row=[r.run_dir.name for r in app.screen.runs].index(run_dir.name))
        started = time.perf_counter()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen)
                    and len(app.screen.query_one(ReviewCaseTable).shown_case_ids) == len(cases))
        print(f"open the run view ({len(cases)} cases): {ms(time.perf_counter() - started)}")
        run_screen = app.screen
        await pilot.press("f")
        started = time.perf_counter()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, CaseReviewScreen))
        print(f"open the case review of a failing case: {ms(time.perf_counter() - started)}")
        review = app.screen
        first = review.result.case_id
        started = time.perf_counter()
        await pilot.press("n")
        await until(pilot, lambda: review.result.case_id != first or len(review.case_ids) < 2)
        print(f"n (next failing case): {ms(time.perf_counter() - started)}")
        await pilot.press("escape")
        await pilot.pause()

        started = time.perf_counter()
        await pilot.press("R")
        await until(pilot, lambda: run_screen.changes)
        print(f"re-score {len(cases)} stored outputs (R until the changes show): {ms(time.perf_counter() - started)}")

        await pilot.press("escape")
        await pilot.pause()
        runs = app.screen
        runs.action_reload()
        names = [r.run_dir.name for r in runs.runs]
        table = runs.query_one("DataTable")
        table.move_cursor(row=names.index(before_dir.name))
        await pilot.press("space")
        table.move_cursor(row=names.index(run_dir.name))
        started = time.perf_counter()
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.pause()
        print(f"open the compare view ({len(cases)} cases): {ms(time.perf_counter() - started)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds before each stub answer (default 0.05)")
    parser.add_argument("--large", action="store_true", help="add a case with a 100,000-row snapshot")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        make_case_set(repo / "cases", 50)
        if args.large:
            make_large_case(repo / "cases")
        os.chdir(repo)
        asyncio.run(bench(repo, args.latency))
        os.chdir(ROOT)


if __name__ == "__main__":
    main()
