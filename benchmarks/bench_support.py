"""The author screen's support check on a 100,000-row case: CPU it costs, and key latency meanwhile.

Runs the real app headless (140x40) on a generated 100,000-row case whose expected.yaml has three
must_find ids, with the reference auditor's real support check, and prints figures; nothing is asserted.

    python benchmarks/bench_support.py [--repeat 3]

- first open: CPU seconds of the whole process (every thread) from ``enter`` until the support check's
  warnings are on screen and the process is idle again (under 0.08 s of CPU in a second), and wall
  seconds from ``enter`` until the warnings are on screen;
- reopen: the same for opening the same, unchanged case again (the first open and the reopen find the
  snapshot the cases view loaded, and the audit it made on disk);
- four quick opens: open, ``escape`` at once, four times, then wait until the process is idle: the CPU
  seconds spent on checks nobody sees any more;
- first open after the file changed: the snapshot is parsed again and, its content being new, audited;
- key latency: ``down`` / ``up`` in the write-up while the first open's check runs (median, max), and
  while the changed file's does;
- cancellation: the same case's check, with nothing audited before (an empty cache folder), withdrawn
  0.25 s to 3 s after it starts, as closing the screen withdraws it: wall seconds from ``cancel`` until
  the check has returned (the auditor stops at its next step: before the series, between detectors).

CPU time is ``time.process_time()``, which counts every thread of the process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_app import SIZE, build_repo, wait_until  # noqa: E402
from reviewtui.tui.app import ReviewApp  # noqa: E402
from reviewtui.tui.screens.author import AuthorScreen  # noqa: E402

CASE = "c100k-large"
EXPECTED = (
    f"case: {CASE}\nkind: ordinary\nsource: writeups/wu01-shoes.md\nmust_find:\n"
    "  - id: tracking.conversions_stopped@222\n    evidence: conversions 0 from 2025-03-09\n"
    "  - id: pacing.overspend\n    evidence: spend ahead of plan\n"
    "  - id: waste.zero_conv_campaign@333\n    evidence: no conversions\n"
)


@contextlib.contextmanager
def cache_folder(folder: str) -> Iterator[None]:
    """The on-disk caches in ``folder`` (empty: a machine that has audited nothing) while the block runs."""
    saved = os.environ.get("REVIEWTUI_CACHE_DIR")
    os.environ["REVIEWTUI_CACHE_DIR"] = folder
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("REVIEWTUI_CACHE_DIR", None)
        else:
            os.environ["REVIEWTUI_CACHE_DIR"] = saved


def fresh_auditor_cache() -> None:
    """Each measurement starts with nothing remembered in the process (as a newly started app)."""
    from reviewtui.auditor import support

    support.AUDITS.clear()


async def threads_done(pilot, baseline: int) -> None:
    """Wait until the process is idle: no CPU used over a second (a check nobody waits for any more
    still uses CPU in its thread; idle pool threads stay alive, so counting threads would not do)."""
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        before = time.process_time()
        await pilot.pause(1.0)
        if time.process_time() - before < 0.08:
            return
    raise TimeoutError("the process never went idle")


def checked(screen: AuthorScreen) -> bool:
    return screen.is_mounted and bool(screen.support_problems)


async def open_and_check(pilot, app) -> tuple[float, float, list[float]]:
    """CPU seconds of one open until the process is idle again, wall seconds until the check is shown;
    key latencies meanwhile."""
    baseline = threading.active_count()
    app.screen.select_case(CASE)
    cpu, wall = time.process_time(), time.perf_counter()
    await pilot.press("enter")
    screen = app.screen
    assert isinstance(screen, AuthorScreen)
    view = screen.query_one("#writeup")
    latencies: list[float] = []
    i = 0
    while not checked(screen):
        if screen.panel is not None:
            before = view.cursor
            started = time.perf_counter()
            app.simulate_key("up" if i % 2 else "down")
            while view.cursor == before and not checked(screen):
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - started)
            i += 1
        else:
            await pilot.pause(0.01)
        if time.perf_counter() - wall > 600:
            raise TimeoutError("the support check never finished")
    shown = time.perf_counter() - wall
    await threads_done(pilot, baseline)
    return time.process_time() - cpu, shown, latencies


async def measure() -> dict[str, object]:
    fresh_auditor_cache()
    with tempfile.TemporaryDirectory() as tmp_name, cache_folder(str(Path(tmp_name) / "cache")):
        repo = build_repo(Path(tmp_name))
        (repo / "cases" / CASE / "expected.yaml").write_text(EXPECTED, encoding="utf-8")
        app = ReviewApp(repo / "cases", cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            # the cases view's own check of the set (it audits every case, this one included) is done first,
            # then the auditor's memory of it is dropped: the open below pays for its check as a first open does
            await wait_until(pilot, lambda: getattr(app.screen, "loaded", False) and getattr(app.screen, "checked", True))
            await threads_done(pilot, 0)
            fresh_auditor_cache()
            first_cpu, first_wall, latencies = await open_and_check(pilot, app)
            await pilot.press("escape")
            await pilot.pause()
            again_cpu, again_wall, _ = await open_and_check(pilot, app)
            await pilot.press("escape")
            await pilot.pause()
            # four quick opens of a case whose content nobody has checked yet in this process
            fresh_auditor_cache()
            if hasattr(app, "support_checks"):  # the app's own verdicts per content (from this change on)
                app.support_checks = type(app.support_checks)(app.support_check)
            baseline = threading.active_count()
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(4):
                app.screen.select_case(CASE)
                await pilot.press("enter")
                screen = app.screen
                await wait_until(pilot, lambda screen=screen: screen.panel is not None)
                await pilot.pause(0.05)
                await pilot.press("escape")
                await pilot.pause()
            await threads_done(pilot, baseline)
            quick_cpu, quick_wall = time.process_time() - cpu, time.perf_counter() - wall
            # the file changed since the cases view loaded it (a new import): parsed again and audited
            path = repo / "cases" / CASE / "snapshot.json"
            path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            changed_cpu, changed_wall, changed_latencies = await open_and_check(pilot, app)
    return {"first": (first_cpu, first_wall), "again": (again_cpu, again_wall), "quick": (quick_cpu, quick_wall),
            "changed": (changed_cpu, changed_wall), "latencies": latencies, "changed_latencies": changed_latencies}


def measure_cancel(delays: list[float]) -> list[tuple[float, float, bool]]:
    """(delay, seconds from cancel to the check's return, whether it had stopped) for each delay: a cold
    check of the 100,000-row case in a thread, withdrawn ``delay`` seconds after it started."""
    from reviewtui.auditor import support
    from reviewtui.caseset.snapshot import Snapshot
    from reviewtui.authoring.support_checks import CheckToken, SupportChecks, check_support

    found = []
    with tempfile.TemporaryDirectory() as tmp_name:
        repo = build_repo(Path(tmp_name))
        snapshot = Snapshot.load(repo / "cases" / CASE / "snapshot.json")
        ids = ["tracking.conversions_stopped@222", "pacing.overspend", "waste.zero_conv_campaign@333"]
        for delay in delays:
            with cache_folder(tempfile.mkdtemp(dir=tmp_name)):  # nothing audited yet
                fresh_auditor_cache()
                checks, token, answer = SupportChecks(check_support), CheckToken(), []
                thread = threading.Thread(target=lambda c=checks, s=snapshot, t=token, a=answer: a.append(c.verdicts(s, ids, t)))
                thread.start()
                time.sleep(delay)
                cancelled = time.perf_counter()
                checks.cancel(token)
                thread.join()
                found.append((delay, time.perf_counter() - cancelled, answer == [None]))
            snapshot = Snapshot.load(snapshot.path)  # nothing computed from the rows carried to the next run
    support.AUDITS.clear()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cancel-only", action="store_true", help="measure only how long a withdrawn check takes to stop")
    args = parser.parse_args()
    stops = measure_cancel([0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0] * args.repeat)
    waits = [wait for _, wait, stopped in stops if stopped]
    print(f"cancellation of a cold check: {len(waits)} of {len(stops)} stopped before the end; cancel to return "
          f"median {statistics.median(waits) * 1000:.0f} ms, max {max(waits) * 1000:.0f} ms "
          f"(by delay: {', '.join(f'{d:g} s: {w * 1000:.0f} ms' for d, w, _ in stops[:7])})" if waits else
          "cancellation of a cold check: every check ended before it was withdrawn")
    if args.cancel_only:
        return
    runs = [asyncio.run(measure()) for _ in range(args.repeat)]

    def line(key: str, label: str) -> None:
        cpus = [r[key][0] for r in runs]
        walls = [r[key][1] for r in runs]
        until = "until idle" if key == "quick" else "until the check is shown"
        print(f"{label}: CPU median {statistics.median(cpus):.2f} s (runs: {', '.join(f'{c:.2f}' for c in cpus)});"
              f" wall {until} median {statistics.median(walls):.2f} s (runs: {', '.join(f'{w:.2f}' for w in walls)})")

    line("first", "first open, until the check is shown and the process is idle")
    line("again", "reopen of the unchanged case")
    line("quick", "four quick opens (escape at once), until the process is idle")
    line("changed", "first open after the file changed (parsed again, audited: its content is new)")
    for key, label in (("latencies", "the first open's check"), ("changed_latencies", "the changed file's open")):
        latencies = [x for r in runs for x in r[key]]
        if latencies:
            print(f"key latency during {label}: {len(latencies)} keys, median "
                  f"{statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
