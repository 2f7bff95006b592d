"""Start-up cost: the headless commands never load the UI or the SDK.

Which module may import what is checked statically by the import-linter
contracts in pyproject.toml (run by .ci/run). Those count deferred imports
(inside functions) as imports too, so they cannot tell whether a deferred
import stays deferred; this test can: it imports the entry points in a fresh
interpreter and looks at what was loaded.
"""

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


# The entry point, and the commands whose modules import the run's whole core (the app and the
# Claude backend only on use).
@pytest.mark.parametrize("module", ["reviewtui.commands.main", "reviewtui.commands.eval", "reviewtui.backends",
                                    "reviewtui.commands.weekly"])
def test_headless_entry_points_load_neither_textual_nor_anthropic(module):
    assert heavy_modules_after_import(module) == []


@pytest.mark.slow
def test_the_probe_sees_a_heavy_import():
    assert heavy_modules_after_import("textual.app") == ["textual"]
    assert heavy_modules_after_import("anthropic") == ["anthropic"]
