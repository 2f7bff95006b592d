"""Settings for every test process."""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config) -> None:
    # The on-disk caches (parsed expected.yaml trees, audits) start empty in each test
    # process, so no test reads an entry that an earlier run, or the developer's own
    # `reviewtui` runs, left behind; subprocesses inherit the folder.
    os.environ["REVIEWTUI_CACHE_DIR"] = tempfile.mkdtemp(prefix="reviewtui-test-cache-")
