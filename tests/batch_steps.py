"""The steps of a weekly batch run as a watcher sees them, and a real run killed (SIGKILL) at one of them.

Shared by tests/test_weekly_batch.py and benchmarks/bench_weekly_batch.py. A step is seen from outside the
process only: the fake Messages API's record of what it was asked, and the files in the run's work folder.
The fake holds the step open where the run would pass it too quickly to catch (``hold_step``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.processes import alive, children

STEPS = ("starting", "creating", "waiting", "collecting", "writing reports")
HOLD_SECONDS = 60.0  # how long the fake holds back an answer the run is killed waiting for


def hold_step(api: Any, step: str) -> None:
    """Set the fake so that the run stays in ``step`` long enough to be killed there."""
    api.batch_polls = 0 if step in ("collecting", "writing reports") else None  # None: in progress until ended
    api.create_batch_delay = HOLD_SECONDS if step == "creating" else 0.0
    api.results_delay = HOLD_SECONDS if step == "collecting" else 0.0


def release_steps(api: Any) -> None:
    """Nothing held back any more, and every batch ends at its next retrieve (the rerun's)."""
    api.create_batch_delay = api.results_delay = 0.0
    api.end_batches()


def at_step(step: str, api: Any, work: Path) -> bool:
    """Whether the run writing ``work`` has reached ``step``."""
    if step == "starting":  # the run's folder is there; the batch is not asked for yet
        return (work / "weekly.json").exists()
    if step == "creating":  # the API made the batch; its answer (the id) is held back
        return bool(api.batches)
    if step == "waiting":
        return bool(api.batches) and next(iter(api.batches.values()))["retrieves"] >= 2
    if step == "collecting":  # the results were asked for; they are held back
        return any(r.path.endswith("/results") for r in list(api.requests))
    if step == "writing reports":  # answers are being scored and their reports written
        return any(work.glob("accounts/*/report.md"))
    raise ValueError(step)


def kill_at(step: str, argv: list[str], *, env: dict[str, str], cwd: Path, api: Any, work: Path,
            deadline_seconds: float = 300.0) -> list[int]:
    """Run ``python -m reviewtui *argv`` in ``cwd``, SIGKILL it at ``step``; its process and children then.

    Raises AssertionError when the run ends before the step (with its stderr) or the deadline passes
    (a guard against hanging, not a speed assertion).
    """
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui", *argv], env=env, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + deadline_seconds
        while not at_step(step, api, work):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the run ended before {step}: " + proc.communicate()[1][-2000:])
            time.sleep(0.001)
        started = [proc.pid, *children(proc.pid)]
        proc.kill()  # SIGKILL: no clean-up of any kind
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    return started


def survivors(started: list[int], wait_seconds: float = 30.0) -> list[int]:
    """The processes of ``started`` still running once ``wait_seconds`` have passed (or none are left)."""
    deadline = time.monotonic() + wait_seconds
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in started if alive(pid)]
