"""The author screen's support check: once per snapshot content, never two at once, stopped when its
screen closes."""

from __future__ import annotations

import pytest
import threading
import time

from reviewtui.authoring.support_checks import CheckCancelled, SupportVerdict
from tests.app.apphelpers import SIZE, make_app, open_case, settle
from tests.app.review_fixture import wait_until

CASE = "c01-shoes-tracking"


class SlowCheck:
    """A support check that takes as long as the test says, counting calls and calls at once."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.stopped = 0
        self.lock = threading.Lock()

    def __call__(self, snapshot, finding_id: str) -> SupportVerdict:
        with self.lock:
            self.calls.append(finding_id)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        deadline = time.monotonic() + 20  # a test that fails must not leave the thread waiting for ever
        try:
            while not self.go.is_set() and time.monotonic() < deadline:  # Python-level waiting, like an audit's loops
                time.sleep(0.005)
            return SupportVerdict(True, True, "")
        except CheckCancelled:
            self.stopped += 1
            raise
        finally:
            with self.lock:
                self.running -= 1


async def open_while_checking(pilot, check: SlowCheck) -> None:
    """Open the case from the cases view and come back while its support check is still running."""
    await settle(pilot)
    pilot.app.screen.select_case(CASE)
    await pilot.press("enter")
    await wait_until(pilot, lambda: check.running == 1, "the check is under way")


@pytest.mark.slow
async def test_reopening_an_unchanged_case_reuses_the_verdicts(repo):
    check = SlowCheck()
    check.go.set()
    app = make_app(repo, support_check=check)
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, CASE)
        first = len(check.calls)
        assert first == 1  # the case's one must_find id
        await pilot.press("escape")
        await open_case(pilot, CASE)
        assert len(check.calls) == first  # nothing asked again
        (repo / "cases" / CASE / "snapshot.json").write_text(
            (repo / "cases" / CASE / "snapshot.json").read_text().replace('"clicks": 310', '"clicks": 311', 1))
        await pilot.press("escape")
        await open_case(pilot, CASE)
        assert len(check.calls) == first + 1  # the snapshot changed: checked again


@pytest.mark.slow
async def test_edits_during_a_check_do_not_start_a_second_one(repo):
    check = SlowCheck()
    app = make_app(repo, support_check=check)
    async with app.run_test(size=SIZE) as pilot:
        await open_while_checking(pilot, check)
        screen = app.screen
        screen.query_one("#expectations").focus()
        await pilot.press("delete", "ctrl+z", "delete", "ctrl+z")  # four validations while it runs
        await pilot.pause(0.2)  # a window for a second check to start (it must not): no event to wait for
        assert check.most_at_once == 1
        check.go.set()
        await settle(pilot)
        assert check.calls == ["tracking.conversions_stopped@222"] and check.most_at_once == 1
        assert screen.support_problems == []


@pytest.mark.slow
async def test_closing_the_screen_stops_its_check(repo):
    check = SlowCheck()
    app = make_app(repo, support_check=check)
    async with app.run_test(size=SIZE) as pilot:
        await open_while_checking(pilot, check)
        await pilot.press("escape")
        await wait_until(pilot, lambda: check.stopped == 1 and check.running == 0, "the check stopped")
        assert not check.go.is_set()


def test_two_threads_asking_for_the_same_snapshot_s_audit_share_one_audit(monkeypatch):
    """The cases view's check and an author screen may ask at once: one audit, both get its result."""
    import json

    from reviewtui.auditor import support
    from reviewtui.caseset.snapshot import Snapshot
    from tests.app.apphelpers import FIXTURE

    text = (FIXTURE / "cases" / CASE / "snapshot.json").read_text()
    snapshot = Snapshot(FIXTURE / "cases" / CASE / "snapshot.json", json.loads(text), text + " ")  # a new content
    audits: list[int] = []
    real = support.audit

    def slow_audit(data, *args, **kwargs):
        audits.append(1)
        time.sleep(0.3)
        return real(data, *args, **kwargs)

    monkeypatch.setattr(support, "audit", slow_audit)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(support.audit_cached(snapshot))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(audits) == 1 and len(results) == 3 and results[0] is results[1] is results[2]
