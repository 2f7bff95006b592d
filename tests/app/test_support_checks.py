"""The author screen's support check: once per snapshot content, never two at once, stopped when its
screen closes."""

from __future__ import annotations

import pytest
import threading
import time

from reviewtui.cancellation import Cancelled, stop_if_set
from reviewtui.authoring.support_checks import SupportVerdict
from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, settle
from tests.app.review_fixture import wait_until

CASE = "c01-shoes-tracking"


class SlowCheck:
    """A support check that takes as long as the test says, counting calls and calls at once; it looks
    at its ``cancel`` event while it waits, as the reference auditor does between its steps."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.stopped = 0
        self.lock = threading.Lock()

    def __call__(self, snapshot, finding_id: str, *, cancel=None) -> SupportVerdict:
        with self.lock:
            self.calls.append(finding_id)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        deadline = time.monotonic() + 20  # a test that fails must not leave the thread waiting for ever
        try:
            while not self.go.is_set() and time.monotonic() < deadline:
                stop_if_set(cancel)
                time.sleep(0.005)
            return SupportVerdict(True, True, "")
        except Cancelled:
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


async def test_opening_another_case_while_a_real_audit_runs_stops_that_audit(repo, tmp_path, monkeypatch):
    """The reference auditor's real check, as the app runs it: open one case, and while its audit runs go
    back and open another. The first audit stops at its next step (nothing of it kept on disk); the second
    case's verdicts show."""
    import importlib

    from reviewtui.auditor import support
    from reviewtui.authoring.support_checks import check_support

    audit_module = importlib.import_module("reviewtui.auditor.audit")
    other = "c02-garden-clean"
    cache = tmp_path / "cache"
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(cache))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    with (repo / "cases" / other / "expected.yaml").open("a") as fh:  # an id the rows do not support: a visible verdict
        fh.write("  - id: pacing.overspend\n    evidence: spend ahead of plan\n")

    held, release, outcomes = threading.Event(), threading.Event(), []
    detectors = audit_module.DETECTORS

    def hold_once(ctx) -> None:  # the first audit to get here waits, as a long step would
        if not held.is_set():
            held.set()
            assert release.wait(20)
        detectors[1](ctx)

    def recorded_audit(data, thresholds=None, **options):
        try:
            result = real_audit(data, thresholds, **options)
        except Cancelled:
            outcomes.append("stopped")
            raise
        outcomes.append("done")
        return result

    real_audit = support.audit
    app = make_app(repo, support_check=check_support)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "checked", False), "the cases view checked the set")
        for case in (CASE, other):  # new contents (as after an import): audited by no one yet
            path = repo / "cases" / case / "snapshot.json"
            path.write_text(path.read_text() + "\n")
        before = sorted(cache.rglob("*"))
        monkeypatch.setattr(audit_module, "DETECTORS", (detectors[0], hold_once, *detectors[2:]))
        monkeypatch.setattr(support, "audit", recorded_audit)

        app.screen.select_case(CASE)
        await pilot.press("enter")
        await wait_until(pilot, held.is_set, f"{CASE}'s audit is under way")
        await pilot.press("escape")
        app.screen.select_case(other)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "pacing.overspend" in screen_text(app), f"{other}'s verdict is on screen")
        assert outcomes == ["done"]  # the other case's audit; the first one still waits in its step
        release.set()
        await wait_until(pilot, lambda: len(outcomes) == 2, f"{CASE}'s audit ended")
        assert outcomes == ["done", "stopped"]
        new = [p for p in sorted(cache.rglob("*")) if p not in before]
        assert [p.suffix for p in new] == [".pickle"]  # the other case's audit; no file of the stopped one, no temporary file
