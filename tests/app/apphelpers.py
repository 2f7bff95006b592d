"""Helpers for the app's Pilot and snapshot tests: a temporary copy of tests/fixtures/app, the app built on it."""

from __future__ import annotations

import shutil
from pathlib import Path

from reviewtui.tui.app import ReviewApp
from reviewtui.tui.support import SupportVerdict

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "app"
SIZE = (140, 40)


def copy_fixture(dest: Path) -> Path:
    """A writable copy of the fixture repository (cases/, writeups/, disputed.md)."""
    shutil.copytree(FIXTURE, dest)
    return dest


def fixed_support(snapshot, finding_id: str) -> SupportVerdict:
    """A deterministic stand-in for the reference auditor's support check."""
    if finding_id.startswith("pacing."):
        return SupportVerdict(True, False, "spend is on the budget schedule")
    return SupportVerdict(True, True, "")


def make_app(repo: Path, **options) -> ReviewApp:
    options.setdefault("support_check", fixed_support)
    options.setdefault("cursor_blink", False)
    return ReviewApp(repo / "cases", repo / "results", **options)


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
