"""Import hygiene: the headless commands never pay for the UI or the SDK (DESIGN.md section 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("textual", "anthropic")


def heavy_modules_after_import(module: str) -> list[str]:
    """Which of HEAVY a fresh interpreter has loaded after ``import module``."""
    code = f"import sys, {module}\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [m for m in proc.stdout.strip().split(",") if m]


@pytest.mark.parametrize("module", ["reviewtui.eval", "reviewtui.check", "reviewtui.runs", "reviewtui.cli",
                                    "reviewtui.compare", "reviewtui.stats", "reviewtui.run_stats", "reviewtui.identity",
                                    "reviewtui.weekly.cli", "reviewtui.weekly.run", "reviewtui.weekly.reports",
                                    "reviewtui.accounts.importer", "reviewtui.accounts.mapped",
                                    "reviewtui.accounts.redact"])
def test_headless_modules_import_neither_textual_nor_anthropic(module):
    assert heavy_modules_after_import(module) == []


def test_the_probe_sees_a_heavy_import():
    assert heavy_modules_after_import("textual.app") == ["textual"]
    assert heavy_modules_after_import("anthropic") == ["anthropic"]
