"""The app tests' harness (Pilot and snapshot tests alike): the app built on a repository in a
temporary folder, and waits for a condition rather than for a fixed time.

Two repositories: a copy of tests/fixtures/app (``copy_fixture``: the authoring tests) and the
review case set with fixed runs (tests/app/review_fixture.py: the run, compare and review tests).
"""

from __future__ import annotations

import shutil
from pathlib import Path


from reviewtui.backends.base import Backend
from reviewtui.tui.screens.run_list import RunsScreen
from reviewtui.tui.app import ReviewApp
from reviewtui.authoring.support_checks import SupportVerdict

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "app"
SIZE = (140, 40)


def copy_fixture(dest: Path) -> Path:
    """A writable copy of the fixture repository (cases/, writeups/, disputed.md)."""
    shutil.copytree(FIXTURE, dest)
    return dest


def fixed_support(snapshot, finding_id: str, *, cancel=None) -> SupportVerdict:
    """A deterministic stand-in for the reference auditor's support check."""
    if finding_id.startswith("pacing."):
        return SupportVerdict(True, False, "spend is on the budget schedule")
    return SupportVerdict(True, True, "")


def make_app(repo: Path, **options) -> ReviewApp:
    """The app on ``repo/cases`` and ``repo/results``, with the fixed support check."""
    options.setdefault("support_check", fixed_support)
    options.setdefault("cursor_blink", False)
    return ReviewApp(repo / "cases", repo / "results", **options)


def make_review_app(root: Path, backend: Backend | None = None) -> ReviewApp:
    """The app on the relative ``cases`` and ``results`` (run it from ``root``, the working
    folder), with the reference auditor's support check; ``backend`` runs its new runs."""
    app = ReviewApp(Path("cases"), Path("results"), cursor_blink=False)
    if backend is not None:
        app.backend_factory = lambda settings: backend
    return app


async def wait_until(pilot, predicate, what: str, steps: int = 500) -> None:
    """Let the app run until ``predicate()`` holds; fail naming ``what`` if it never does."""
    for _ in range(steps):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


async def search_palette(pilot, text: str) -> None:
    """Type ``text`` into the open command palette and wait until the palette's search for exactly
    that text has finished and listed a match.

    Waiting for "the list is not empty" is not enough: each key starts a new search, and on a
    loaded machine the list can still show a shorter prefix's results (Textual refreshes it in
    batches) when the last search has not run yet, so enter would pick the wrong command.
    """
    from textual.command import CommandList, CommandPalette

    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette), palette
    searches: dict[str, object] = {}
    start_search = palette._gather_commands

    def recorded_search(value: str):
        worker = start_search(value)
        searches[value] = worker
        return worker

    palette._gather_commands = recorded_search  # type: ignore[method-assign]
    try:
        await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])
        await wait_until(pilot, lambda: text.strip() in searches, f"the palette searches for {text!r}")
        await searches[text.strip()].wait()  # type: ignore[attr-defined]
    finally:
        del palette._gather_commands
    await pilot.pause()
    await wait_until(pilot, lambda: palette.query_one(CommandList).option_count > 0, f"the palette lists a match for {text!r}")


async def settle(pilot) -> None:
    """Let workers finish and their messages be handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_case(pilot, case_id: str):
    """From the cases view, open a case the way a user does (move to its row, enter)."""
    from reviewtui.tui.screens.author import AuthorScreen

    await settle(pilot)
    pilot.app.screen.select_case(case_id)
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, AuthorScreen)
    return pilot.app.screen


def screen_text(app) -> str:
    """The characters on screen, line by line (read from an SVG screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    return "\n".join("".join(t for _x, t in sorted(parts)) for _y, parts in sorted(rows.items()))


async def open_runs_view(pilot) -> RunsScreen:
    await pilot.press("f3")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunsScreen)
    return pilot.app.screen
