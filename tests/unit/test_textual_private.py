"""Textual's private names the app reads are still where reviewtui/tui/textual_private.py expects them.

Textual is pinned exactly; this fails by name on an upgrade that moves one,
instead of a footer that silently stops updating.
"""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Footer

from reviewtui.tui import textual_private


@pytest.mark.parametrize(("module", "name"), textual_private.PRIVATE_MODULE_NAMES)
def test_the_private_module_names_exist(module, name):
    assert hasattr(importlib.import_module(module), name), f"{module}.{name} moved: update textual_private.py"


@pytest.mark.parametrize("attribute", textual_private.FOOTER_ATTRIBUTES)
def test_a_footer_has_the_private_attributes_read(attribute):
    assert hasattr(Footer(), attribute), f"Footer().{attribute} is gone: update textual_private.py"


@pytest.mark.parametrize("attribute", textual_private.FOOTER_KEY_ATTRIBUTES)
def test_a_footer_key_has_the_attributes_read(attribute):
    from textual.widgets._footer import FooterKey

    key = FooterKey("s", "s", "Save", "save")
    assert hasattr(key, attribute), f"FooterKey().{attribute} is gone: update textual_private.py"


@pytest.mark.parametrize("attribute", textual_private.APP_ATTRIBUTES)
def test_an_app_has_the_private_attributes_read(attribute):
    from textual.app import App

    assert hasattr(App(), attribute), f"App().{attribute} is gone: update textual_private.py"


def test_no_other_module_imports_textual_private_modules():
    package = Path(textual_private.__file__).resolve().parents[1]
    found = subprocess.run(["grep", "-rlE", r"textual\.[a-z_.]*\._[a-z]|\._screen_stacks", str(package), "--include=*.py"],
                           capture_output=True, text=True).stdout.split()
    assert [Path(f).name for f in found] == ["textual_private.py"], found
