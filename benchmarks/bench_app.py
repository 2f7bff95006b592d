"""How fast the app feels: first paint, opening cases, key latency while a large snapshot loads.

Runs the real app headless (Textual's test driver, 140x40) and prints figures; nothing is asserted.

    python benchmarks/bench_app.py [--cases DIR] [--repeat 3] [--datatable]

- first paint: from starting the app to the cases view on screen (the case set still loading), and to the
  table filled with every case validated;
- opening a case, for a 450-row and a 100,000-row case: from ``enter`` to the author screen's first frame
  (write-up and expectations, usable while the snapshot loads), to the first frame that shows the snapshot
  table (what a user waits for), and to the app being idle again (Textual's test driver also waits for
  animations, such as the 0.3 s slide of the tab underline that follows the tables' first frame);
- key latency: ``down`` in the write-up while the 100,000-row snapshot is still loading in its worker;
- ``--datatable``: for comparison, the time Textual's built-in DataTable takes to take 100,000 rows.

Uses ``cases/`` when it holds the fifty cases, else fifty generated ones; the large cases are generated
in a temporary folder. Nothing is written inside the repository.
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

from reviewtui.tui.app import ReviewApp  # noqa: E402
from reviewtui.tui.screens.author import AuthorScreen  # noqa: E402
from tests.app.casegen import make_case_set, make_large_case, snapshot, write_case  # noqa: E402

SIZE = (140, 40)
WRITEUP = ROOT / "tests" / "fixtures" / "app" / "writeups" / "wu01-shoes.md"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


async def wait_until(pilot, condition, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("condition not met")
        await pilot.pause(0.002)


async def first_paint(cases_dir: Path) -> tuple[float, float, int]:
    started = time.perf_counter()
    app = ReviewApp(cases_dir, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        painted = time.perf_counter() - started
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False))
        await pilot.pause()
        filled = time.perf_counter() - started
        count = len(app.screen.rows)
    return painted, filled, count


def tables_shown(app) -> bool:
    """The author screen is current and its snapshot table has been laid out on screen."""
    screen = app.screen
    if not isinstance(screen, AuthorScreen) or screen.panel is None or not screen.panel.is_mounted:
        return False
    table = screen.panel.active_table
    return table is not None and table.is_mounted and table.region.height > 0


def first_frame_when(app, condition) -> list[float]:
    """Record the time of the first frame the app renders once ``condition(app)`` holds.

    Wraps the app's ``_display`` (called with each rendered update of the screen; in a terminal the
    update is then written out), so the figure is the moment the frame is ready, not when the test
    driver next looks.
    """
    seen: list[float] = []
    display = app._display

    def recording(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is not None and not seen and condition(app):
            seen.append(time.perf_counter())

    app._display = recording
    return seen


async def open_case(repo: Path, case_id: str) -> tuple[float, float, float, float | None]:
    """Seconds from enter to the author screen's first frame (write-up and expectations, the tables
    perhaps still loading), to the first frame showing the tables, to the app idle; and the worker's
    load time."""
    app = ReviewApp(repo / "cases", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False))
        app.screen.select_case(case_id)
        await pilot.pause(0.2)
        screen_frames = first_frame_when(app, lambda app: isinstance(app.screen, AuthorScreen))
        frames = first_frame_when(app, tables_shown)
        started = time.perf_counter()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AuthorScreen) and app.screen.panel is not None)
        await wait_until(pilot, lambda: bool(frames))
        await pilot.pause()
        idle = time.perf_counter() - started
        return screen_frames[0] - started, frames[0] - started, idle, app.screen.snapshot_seconds


async def key_latency_while_loading(repo: Path, case_id: str, loads: int = 5) -> tuple[list[float], int]:
    """Latency of ``down``/``up`` in the write-up while the snapshot worker parses the big snapshot.

    A key is posted as the terminal driver would post it, and its latency is the time until the
    write-up's sentence cursor has moved. Opening the case loads the snapshot once; to get enough
    keys inside a load, the worker is started again ``loads`` times (the same work: parse
    snapshot.json and build the table model) and keys are sent until it finishes. Returns the
    latencies and how many keys were sent while a load was running.
    """
    app = ReviewApp(repo / "cases", cursor_blink=False)
    latencies: list[float] = []
    inside = 0
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "loaded", False))
        app.screen.select_case(case_id)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        await wait_until(pilot, lambda: screen.panel is not None)
        view = screen.query_one("#writeup")
        view.focus()
        await pilot.pause()
        for _ in range(loads):
            worker = screen.load_snapshot()
            i = 0
            while worker.is_running:
                before = view.cursor
                started = time.perf_counter()
                app.simulate_key("up" if i % 2 else "down")
                while view.cursor == before:
                    await asyncio.sleep(0.0002)
                latencies.append(time.perf_counter() - started)
                inside += 1
                i += 1
            await app.workers.wait_for_complete()
            await pilot.pause()
    return latencies, inside


async def datatable_100k(rows: int) -> float:
    from textual.app import App
    from textual.widgets import DataTable

    data = snapshot(rows, campaigns=3)["daily"]
    columns = list(data[0])

    class Plain(App):
        def compose(self):
            yield DataTable()

    app = Plain()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(DataTable)
        started = time.perf_counter()
        table.add_columns(*columns)
        table.add_rows([[str(r[c]) for c in columns] for r in data])
        await pilot.pause()
        return time.perf_counter() - started


def build_repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    (repo / "writeups").mkdir(parents=True)
    shutil.copy(WRITEUP, repo / "writeups" / WRITEUP.name)
    cases = repo / "cases"
    source = f"source: writeups/{WRITEUP.name}\n"
    expected = lambda cid: f"case: {cid}\nkind: ordinary\n{source}must_find: []\n"  # noqa: E731
    write_case(cases, "c450-medium", "ordinary", snapshot(450, campaigns=3, stop_from=8), expected("c450-medium"))
    make_large_case(cases, "c100k-large", rows=100_000)
    (cases / "c100k-large" / "expected.yaml").write_text(expected("c100k-large"))
    return repo


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases_dir = Path(args.cases) if args.cases else ROOT / "cases"
        if not cases_dir.is_dir() or sum(1 for p in cases_dir.iterdir() if p.is_dir()) < 50:
            cases_dir = make_case_set(tmp / "fifty", 50)
            print("cases: fifty generated cases (the real set is not complete)")
        else:
            print(f"cases: {cases_dir}")
        repo = build_repo(tmp)

        paints, fills = [], []
        for _ in range(args.repeat):
            painted, filled, count = await first_paint(cases_dir)
            paints.append(painted)
            fills.append(filled)
        print(f"first paint ({count} cases):          median {ms(statistics.median(paints))}  (runs: {', '.join(ms(p) for p in paints)})")
        print(f"table filled, all {count} validated:  median {ms(statistics.median(fills))}")

        for case_id, label in (("c450-medium", "450-row case"), ("c100k-large", "100,000-row case")):
            screens, frames, idles, loads = [], [], [], []
            for _ in range(args.repeat):
                screen, frame, idle, load = await open_case(repo, case_id)
                screens.append(screen)
                frames.append(frame)
                idles.append(idle)
                loads.append(load or 0.0)
            print(f"open {label}: enter -> write-up on screen median {ms(statistics.median(screens))};"
                  f" -> first frame with the tables median {ms(statistics.median(frames))}"
                  f" (runs: {', '.join(ms(f) for f in frames)}); -> idle {ms(statistics.median(idles))}"
                  f"  (worker: parse + table model {ms(statistics.median(loads))})")

        latencies, inside = await key_latency_while_loading(repo, "c100k-large")
        if latencies:
            p95 = sorted(latencies)[int(0.95 * (len(latencies) - 1))]
            print(f"key latency while the 100,000-row snapshot loads: {inside} keys during 5 loads, "
                  f"median {ms(statistics.median(latencies))}, p95 {ms(p95)}, max {ms(max(latencies))}"
                  " (the longest waits are keys that arrive while json.loads holds the interpreter lock, or while the"
                  " tables are mounted)")
        else:
            print("key latency while loading: every load finished before the first key (too fast to measure)")

        if args.datatable:
            print(f"built-in DataTable, 100,000 rows added: {ms(await datatable_100k(100_000))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="case folder for the first-paint figure (default: cases/)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--datatable", action="store_true", help="also time the built-in DataTable at 100,000 rows")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
