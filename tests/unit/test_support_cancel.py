"""Stopping the author screen's support check: a real audit of a snapshot on disk, withdrawn while it
runs, stops at the auditor's next step, keeps nothing (no cache file, no temporary file, nothing in
memory) and leaves the next check to audit in full."""

from __future__ import annotations

import importlib
import threading
import time

import pytest

from reviewtui.auditor import support
from reviewtui.cancellation import Cancelled
from reviewtui.authoring.support_checks import CheckToken, SupportChecks, check_support
from tests.fixtures.auditor.helpers import fixture, on_disk

audit_module = importlib.import_module("reviewtui.auditor.audit")  # the package re-exports the function as `audit`
IDS = ["tracking.conversions_stopped@222", "pacing.overspend", "waste.zero_conv_campaign@333"]


class Detectors:
    """The auditor's real detectors, recording which ran; the one at ``hold`` first says it started and
    waits until ``release`` is set (the test withdraws the check meanwhile), then runs as it would."""

    def __init__(self, hold: int) -> None:
        self.real = audit_module.DETECTORS
        self.hold = hold
        self.ran: list[str] = []
        self.started = threading.Event()
        self.release = threading.Event()

    def wrapped(self) -> tuple:
        return tuple(self._wrap(i, detect) for i, detect in enumerate(self.real))

    def _wrap(self, index: int, detect):
        def run(ctx) -> None:
            if index == self.hold:
                self.started.set()
                assert self.release.wait(20), "the test never withdrew the check"
            self.ran.append(detect.__module__.rsplit(".", 1)[-1])
            detect(ctx)
        return run


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder and an empty memory of audits: the check must audit."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(folder))
    monkeypatch.setattr(support, "AUDITS", support.AuditCache())
    return folder


def files_in(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def check_in_thread(checks: SupportChecks, snapshot, token: CheckToken) -> tuple[threading.Thread, list]:
    found: list = []
    thread = threading.Thread(target=lambda: found.append(checks.verdicts(snapshot, IDS, token)), daemon=True)
    thread.start()
    return thread, found


@pytest.mark.parametrize("hold", range(len(audit_module.DETECTORS)))
def test_a_check_withdrawn_mid_audit_stops_at_the_next_step_and_keeps_nothing(tmp_path, cache, monkeypatch, hold):
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    detectors = Detectors(hold)
    monkeypatch.setattr(audit_module, "DETECTORS", detectors.wrapped())
    checks = SupportChecks(check_support)
    token = CheckToken()
    thread, found = check_in_thread(checks, snapshot, token)
    assert detectors.started.wait(20)
    checks.cancel(token)  # the screen closed: nobody else waits for this snapshot
    assert token.stop.is_set()
    detectors.release.set()
    thread.join(20)
    assert not thread.is_alive()
    names = [d.__module__.rsplit(".", 1)[-1] for d in detectors.real]
    last = hold == len(names) - 1
    # The detector under way finishes; none after it starts. After the last one there is no step left:
    # the audit is complete, and kept like any other
    assert detectors.ran == names[: hold + 1]
    if last:
        assert found == [None] and [p.rsplit(".", 1)[-1] for p in files_in(cache)] == ["pickle"]
        return
    assert found == [None]
    assert files_in(cache) == []  # no audit file, no temporary file
    # Nothing kept in memory either: the next check audits in full, and is kept on disk once
    detectors.release.set()
    again = SupportChecks(check_support).verdicts(snapshot, IDS, CheckToken())
    assert detectors.ran == names[: hold + 1] + names
    assert again == {fid: check_support(snapshot, fid) for fid in IDS}
    assert again["tracking.conversions_stopped@222"].supported is True  # the planted stop, found
    assert [p.rsplit(".", 1)[-1] for p in files_in(cache)] == ["pickle"]


def test_a_withdrawn_check_stops_waiting_for_another_caller_s_audit_which_goes_on(tmp_path, cache, monkeypatch):
    """The cases view's check of the set and an author screen audit the same snapshot once; the screen
    closing stops its wait at once, and the set's audit is not disturbed."""
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    detectors = Detectors(0)
    monkeypatch.setattr(audit_module, "DETECTORS", detectors.wrapped())
    audits: list = []
    first = threading.Thread(target=lambda: audits.append(support.audit_cached(snapshot)), daemon=True)
    first.start()
    assert detectors.started.wait(20)
    checks = SupportChecks(check_support)
    token = CheckToken()
    thread, found = check_in_thread(checks, snapshot, token)
    time.sleep(0.1)  # let it reach the wait for the audit under way (no event marks it)
    checks.cancel(token)
    thread.join(20)
    assert found == [None]
    detectors.release.set()
    first.join(20)
    assert len(audits) == 1 and detectors.ran == [d.__module__.rsplit(".", 1)[-1] for d in detectors.real]
    assert [p.rsplit(".", 1)[-1] for p in files_in(cache)] == ["pickle"]


def test_the_auditor_stops_only_between_its_steps(tmp_path):
    """``cancel`` already set: no step runs; the exception is not an Exception, so no detector guard
    reports it as a failure."""
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        audit_module.audit(snapshot.data, cancel=stop)
    assert not issubclass(Cancelled, Exception)
    assert audit_module.audit(snapshot.data, cancel=threading.Event()).findings  # not set: a full audit


def test_a_stop_while_the_rows_are_read_comes_before_the_series(tmp_path, monkeypatch):
    """The rows' reading and the series are the audit's two longest steps on a large snapshot: a stop
    between them is seen there, not after the series."""
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    stop, series = threading.Event(), []
    real_rows, real_series = audit_module.daily_rows, audit_module.build_series

    def rows_then_stop(data):
        found = real_rows(data)
        stop.set()  # the screen closes while the rows are read
        return found

    monkeypatch.setattr(audit_module, "daily_rows", rows_then_stop)
    monkeypatch.setattr(audit_module, "build_series", lambda data: series.append(1) or real_series(data))
    with pytest.raises(Cancelled):
        audit_module.audit(snapshot.data, cancel=stop)
    assert series == []


def test_a_newer_request_of_the_same_screen_lets_the_check_under_way_finish(tmp_path, cache, monkeypatch):
    """An edit while the check runs withdraws the older request without stopping its audit (the newer one
    reads the verdicts); closing the screen then stops that audit, though its request was the older one."""
    snapshot = on_disk(tmp_path, fixture("stop_account"))
    detectors = Detectors(1)
    monkeypatch.setattr(audit_module, "DETECTORS", detectors.wrapped())
    checks = SupportChecks(check_support)
    older, newer = CheckToken(), CheckToken()
    thread, found = check_in_thread(checks, snapshot, older)
    assert detectors.started.wait(20)
    checks.cancel(older, stop=False)  # an edit: a newer validation of the same snapshot
    assert not older.stop.is_set()
    second, found_second = check_in_thread(checks, snapshot, newer)
    time.sleep(0.1)  # the newer request waits for the older one's check (no event marks it)
    checks.cancel(newer)  # the screen closed: nobody waits for the audit under way any more
    assert older.stop.is_set()
    detectors.release.set()
    thread.join(20)
    second.join(20)
    assert found == [None] and found_second == [None]
    assert files_in(cache) == []
