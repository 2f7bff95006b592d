"""Settings for every test process."""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config) -> None:
    # The on-disk caches (parsed expected.yaml trees, audits) start empty in each test
    # process, so no test reads an entry that an earlier run, or the developer's own
    # `reviewtui` runs, left behind; subprocesses inherit the folder.
    os.environ["REVIEWTUI_CACHE_DIR"] = tempfile.mkdtemp(prefix="reviewtui-test-cache-")


# --------------------------------------------------------------------------
# A passing weekly stamp on the project's fifty cases, made through the fake Messages API
# --------------------------------------------------------------------------

import pytest  # noqa: E402 - the fixtures below, after the process settings


@pytest.fixture(scope="session")
def stamp_kit(tmp_path_factory):
    """The fake API and a template folder holding the fifty cases and their passing stamp (tests/stamp_fixture.py)."""
    from tests.fake_messages_api import FakeMessagesAPI
    from tests.stamp_fixture import KEY, make_stamp_kit

    with FakeMessagesAPI(api_key=KEY) as api, pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("stamp-kit-cwd"))
        yield make_stamp_kit(api, tmp_path_factory.mktemp("stamp-kit"), patch)


@pytest.fixture
def stamped(stamp_kit, tmp_path, monkeypatch):
    """This test's own copy of the template, as the working folder, with the fake API in the environment.

    The fake's plans are the stamp's again afterwards (a test may plan others for its cases).
    """
    root = stamp_kit.copy_to(tmp_path / "repo")
    for name, value in stamp_kit.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(root)
    stamp_kit.plan_cases()
    stamp_kit.api.clear_requests()
    yield root
    stamp_kit.plan_cases()
