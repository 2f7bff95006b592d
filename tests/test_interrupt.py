"""Ctrl-C at any moment of `reviewtui eval`, start-up included: a real process, a real SIGINT, exit 3, no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.fake_messages_api import findings_json, hang, serving_in_env, slow_answer, write_case

KEY = "fake-anthropic-key-interrupt"
REPO = Path(__file__).resolve().parents[1]


def started_reviewtui(proc: subprocess.Popen, stderr: list[str], limit: float = 10.0) -> None:
    """Wait until the interpreter has imported the ``reviewtui`` package (``-X importtime`` prints a
    line for each import as it completes; the package's comes before its command runs).

    Before that the interpreter is still starting (``site``, ``runpy``): Ctrl-C there ends any
    Python program with a traceback, before reviewtui's code can hear it. The test is of what
    reviewtui does once it can, so the delays count from there.
    """
    deadline = time.monotonic() + limit
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        while seen < len(stderr):
            if stderr[seen].rsplit("|", 1)[-1].strip() == "reviewtui":  # nested under reviewtui.commands
                return
            seen += 1
        time.sleep(0.002)
    raise AssertionError("the process never imported reviewtui: " + "".join(stderr[-5:]))


def _read_lines(stream, into: list[str]) -> None:
    for line in stream:
        into.append(line)


@pytest.mark.parametrize("delay", [0.15, 0.4, 0.8, 1.5, 3.0])
@pytest.mark.slow
def test_sigint_at_any_moment_exits_3_cleanly(delay, tmp_path, monkeypatch):
    cases = tmp_path / "cases"
    for i in range(6):
        write_case(cases, f"c0{i}-int", f"ACCT-I0{i}")
    with serving_in_env(monkeypatch, KEY) as api:
        for i in range(6):
            api.plan(f"ACCT-I0{i}", hang(60))
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}

        def started_then_wait(proc: subprocess.Popen, lines: list[str]) -> None:
            started_reviewtui(proc, lines)
            time.sleep(delay)

        proc, out, err = _interrupt(["eval", "--backend", "claude", "--cases", str(cases), "--results-dir",
                                     str(tmp_path / "r")], started_then_wait, env)
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err
    assert "cancelled" in err



@pytest.mark.parametrize("module", ["reviewtui", "reviewtui.commands.main", "reviewtui.commands.eval"])
@pytest.mark.slow
def test_a_ctrl_c_caught_from_a_string_exec_keeps_the_exit_code_under_python_m(module, tmp_path):
    """Under ``python -m``, CPython exits by SIGINT after a KeyboardInterrupt ended a string exec,
    even a caught one, unless a later string exec completes (dataclasses build their methods
    that way, so a Ctrl-C during start-up's imports often lands in one). The probe raises it
    from inside a string exec at the moment eval reads its arguments, after every import."""
    (tmp_path / "probe.py").write_text(
        "import runpy, sys\n"
        "import reviewtui.commands.args\n"
        "def interrupted(parser, argv):\n"
        "    exec('raise KeyboardInterrupt', {})\n"
        "reviewtui.commands.args.parse_args = interrupted\n"
        f"sys.argv = [{module!r}] + ['eval'] * ({module!r} != 'reviewtui.commands.eval')\n"
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "probe"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "cancelled before the run started" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("gap", [0.05, 0.2, 0.4])
@pytest.mark.slow
def test_a_second_ctrl_c_while_the_run_stops_waits_for_it_and_exits_3(gap, tmp_path, monkeypatch):
    """The first Ctrl-C stops the run; what came back is scored and written and the process ends.
    A second one in that time waits: it neither breaks the writing nor ends the process by SIGINT."""
    cases = tmp_path / "cases"
    for i in range(12):
        write_case(cases, f"c{i:02d}-twice", f"ACCT-T{i:02d}")
    with serving_in_env(monkeypatch, KEY) as api:
        for i in range(12):
            api.plan(f"ACCT-T{i:02d}", slow_answer(findings_json("tracking.conversions_stopped"), 0.3))
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}
        proc = subprocess.Popen([sys.executable, "-m", "reviewtui.commands.main", "eval", "--backend", "claude", "--cases",
                                 str(cases), "--results-dir", str(tmp_path / "r"), "--concurrency", "2",
                                 "--repeats", "2"], cwd=REPO, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while len(api.requests) < 5 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)  # the run is under way: answers have come back and are being scored
            proc.send_signal(signal.SIGINT)
            time.sleep(gap)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 3, (proc.returncode, err[-2000:])
    assert "Traceback" not in err
    assert "cancelled: what finished is kept" in err


def _interrupt(argv: list[str], wait: Callable[[subprocess.Popen, list[str]], None],
               env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str, str]:
    """Start ``reviewtui ARGV`` in a real process, ``wait`` (it reads the process's stderr lines as they come),
    send one SIGINT; the process, its stdout and its stderr less the import-time lines."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "reviewtui.commands.main", *argv], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=_read_lines, args=(proc.stderr, lines), daemon=True)
    reader.start()  # read as it comes: the import lines would fill the pipe and stall the process
    try:
        wait(proc, lines)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    return proc, out, "".join(line for line in lines if not line.startswith("import time:"))


def _until(text: str) -> Callable[[subprocess.Popen, list[str]], None]:
    """Wait until a stderr line holds ``text``."""

    def wait(proc: subprocess.Popen, lines: list[str]) -> None:
        deadline = time.monotonic() + 60  # a guard against hanging the suite, not a speed assertion
        while not any(text in line for line in lines):
            assert proc.poll() is None and time.monotonic() < deadline, "".join(lines[-5:])
            time.sleep(0.002)

    return wait


@pytest.mark.slow
def test_ctrl_c_stops_a_run_of_the_reference_auditor_and_exits_3(tmp_path):
    """The reference auditor computes its answers without ever waiting: Ctrl-C must still stop the run."""
    from reviewtui import assistant

    results = tmp_path / "r"
    cases = len(list((REPO / "cases").glob("*/expected.yaml")))
    proc, out, err = _interrupt(["eval", "--backend", "rules", "--results-dir", str(results)], _until(f"[2/{cases}]"))
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err and "cancelled: what finished is kept" in err
    assert "gate            PASSED" not in out
    manifest = json.loads((results / "reference" / assistant.PROMPT_VERSION / "manifest.json").read_text())
    assert manifest["status"] == "cancelled" and manifest["gate"]["passed"] is None  # no verdict


def test_ctrl_c_in_another_subcommand_exits_3_without_a_traceback(tmp_path):
    proc, out, err = _interrupt(["check"], _until("| reviewtui.commands.check"))
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err
    assert "reviewtui check: cancelled (Ctrl-C) before it finished" in err
