from pathlib import Path

import pytest

from tests.app.apphelpers import copy_fixture


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A writable copy of tests/fixtures/app (cases/, writeups/, disputed.md)."""
    return copy_fixture(tmp_path / "repo")
