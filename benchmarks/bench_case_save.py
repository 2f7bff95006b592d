"""A save's cost on a 100,000-row case: what the cases view pays to show the saved case again.

Runs the real app headless (140x40) on a copy of a case set holding one large case (default
``/tmp/scale/campaigns-100000``, made by ``benchmarks/large_accounts.py``) in a temporary folder, with an
empty cache folder, and prints figures; nothing is asserted.

    python benchmarks/bench_case_save.py [--cases /tmp/scale/campaigns-100000] [--saves 5]

The cases view loads and checks the set and the process goes idle; the case is opened and the process goes
idle. Then, ``--saves`` times: an edit of expected.yaml (``x``, ``delete`` the first entry, or ``ctrl+z``
to bring it back), idle, then ``ctrl+s``, measured: wall seconds from ``ctrl+s`` until the cases view lists
the saved case, and CPU seconds of the whole process (every thread, ``time.process_time()``) from ``ctrl+s``
until it is idle again (under 0.08 s of CPU in a second). A save writes expected.yaml only; the cases view
re-reads the case (docs/app.md, "The support check on open").
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_app import SIZE, wait_until  # noqa: E402
from benchmarks.bench_support import cache_folder, threads_done  # noqa: E402
from reviewtui.tui.app import ReviewApp  # noqa: E402
from reviewtui.tui.screens.author import AuthorScreen  # noqa: E402


async def measure(source: Path, saves: int) -> list[tuple[float, float]]:
    """(wall to the cases view's row, CPU until idle) of each save."""
    found: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp_name, cache_folder(str(Path(tmp_name) / "cache")):
        cases = Path(tmp_name) / "cases"
        shutil.copytree(source, cases)
        for path in cases.rglob("*"):  # the generated set may be read-only: the copy is saved to
            path.chmod(path.stat().st_mode | 0o200)
        (case_id,) = [p.name for p in cases.iterdir() if p.is_dir()]
        app = ReviewApp(cases, cursor_blink=False)

        def listed():
            return next(c for c in app.case_set.cases if c.case_id == case_id)

        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: getattr(app.screen, "loaded", False) and getattr(app.screen, "checked", True),
                             timeout=600)
            await threads_done(pilot, 0)
            app.screen.select_case(case_id)
            await pilot.press("enter")
            screen = app.screen
            assert isinstance(screen, AuthorScreen)
            await wait_until(pilot, lambda: screen.panel is not None, timeout=600)
            await threads_done(pilot, 0)
            for n in range(saves):
                await pilot.press(*(("x", "delete") if n % 2 == 0 else ("ctrl+z",)))
                await threads_done(pilot, 0)
                before = listed()
                cpu, wall = time.process_time(), time.perf_counter()
                await pilot.press("ctrl+s")
                await wait_until(pilot, lambda before=before: listed() is not before or screen.dirty, timeout=600)
                if screen.dirty:
                    raise RuntimeError(f"not saved: {[n.message for n in app._notifications]}")
                shown = time.perf_counter() - wall
                await threads_done(pilot, 0)
                found.append((shown, time.process_time() - cpu))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=Path("/tmp/scale/campaigns-100000"),
                        help="a case set of one case (default: /tmp/scale/campaigns-100000)")
    parser.add_argument("--saves", type=int, default=5)
    args = parser.parse_args()
    found = asyncio.run(measure(args.cases, args.saves))
    walls, cpus = [w for w, _ in found], [c for _, c in found]
    print(f"save of expected.yaml, {args.cases.name}, {len(found)} saves")
    print(f"  wall from ctrl+s until the cases view lists the saved case: median {statistics.median(walls):.3f} s "
          f"({min(walls):.3f}-{max(walls):.3f})")
    print(f"  CPU from ctrl+s until idle: median {statistics.median(cpus):.3f} s ({min(cpus):.3f}-{max(cpus):.3f})")


if __name__ == "__main__":
    main()
