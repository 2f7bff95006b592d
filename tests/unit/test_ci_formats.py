"""--junit read back by junitparser (as CI reporters read it), --format json, NO_COLOR on a real terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import junitparser
import pytest

from reviewtui.runs.ci_reports import colour_summary, use_colour
from reviewtui.commands.eval import main
from tests.fake_messages_api import answer, findings_json, overloaded, serving_in_env, write_case

KEY = "fake-anthropic-key-ci-formats"
FABRICATED = json.dumps({"findings": [{"id": "tracking.conversions_stopped", "scope": None,
                                       "claim": "Conversions stopped.", "severity": "high",
                                       "evidence": "Conversions are 0 on 2025-03-09 after 98,765 clicks."}]})
PLANS = {
    "c01-pass": ("ACCT-J01", answer(findings_json("tracking.conversions_stopped"))),
    "c02-missed": ("ACCT-J02", answer(findings_json("waste.zero_conv_campaign"))),
    "c03-fabricated": ("ACCT-J03", answer(FABRICATED)),
    "c04-error": ("ACCT-J04", overloaded()),
}


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    cases = tmp_path / "cases"
    for case_id, (marker, _) in PLANS.items():
        write_case(cases, case_id, marker)
    with serving_in_env(monkeypatch, KEY) as api:
        for marker, planned in PLANS.values():
            api.plan(marker, planned)
        junit = tmp_path / "junit.xml"
        code = main(["--backend", "claude", "--cases", str(cases), "--results-dir", str(tmp_path / "r"),
                     "--max-retries", "0", "--junit", str(junit), "--format", "json"])
    return code, junit, capsys.readouterr()


@pytest.mark.slow
def test_junit_has_one_testcase_per_case_with_failures_and_errors(run):
    code, junit, _ = run
    assert code == 3
    xml = junitparser.JUnitXml.fromfile(str(junit))
    [suite] = list(xml)
    cases = {case.name: case for case in suite}
    assert set(cases) == set(PLANS)
    assert suite.tests == 4 and suite.failures == 2 and suite.errors == 1
    assert cases["c01-pass"].is_passed
    [missed] = cases["c02-missed"].result
    assert isinstance(missed, junitparser.Failure) and "missed tracking.conversions_stopped" in missed.message
    [fabricated] = cases["c03-fabricated"].result
    assert isinstance(fabricated, junitparser.Failure) and "1 fabrication(s)" in fabricated.message
    assert 'figure "98,765"' in fabricated.text
    [error] = cases["c04-error"].result
    assert isinstance(error, junitparser.Error) and "HTTP 529" in error.message
    props = {p.name: p.value for p in suite.properties()}
    assert props["gate"] == "no verdict" and props["prompt_version"].startswith("audit-")


def test_format_json_is_the_only_thing_on_stdout(run):
    code, _, out = run
    summary = json.loads(out.out)
    assert summary["exit_code"] == code == 3
    assert summary["status"] == "incomplete" and summary["gate"]["passed"] is None
    assert [e["case_id"] for e in summary["summary"]["error_cases"]] == ["c04-error"]
    assert "results:" in out.err


def test_a_missing_junit_folder_is_refused_before_the_run(tmp_path, capsys):
    write_case(tmp_path / "cases", "c01-x", "ACCT-X")
    code = main(["--backend", "rules", "--cases", str(tmp_path / "cases"), "--results-dir", str(tmp_path / "r"),
                 "--junit", str(tmp_path / "no" / "such" / "junit.xml")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def _summary_on_a_terminal(tmp_path, **env) -> str:
    write_case(tmp_path / "cases", "c01-x", "ACCT-X")
    leader, follower = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ANTHROPIC_API_KEY")}
    proc = subprocess.run([sys.executable, "-m", "reviewtui.commands.eval", "--backend", "rules", "--cases",
                           str(tmp_path / "cases"), "--results-dir", str(tmp_path / "r")],
                          stdout=follower, stderr=subprocess.DEVNULL, env={**environ, **env}, timeout=120)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.returncode in (0, 1)
    return b"".join(chunks).decode()


@pytest.mark.slow
def test_colour_on_a_terminal_and_none_with_no_color(tmp_path):
    assert "\033[" in _summary_on_a_terminal(tmp_path / "a")
    plain = _summary_on_a_terminal(tmp_path / "b", NO_COLOR="1")
    assert "\033[" not in plain and "gate" in plain


def test_colour_rules():
    class Tty:
        def isatty(self):
            return True

    assert use_colour(Tty(), {}) and not use_colour(Tty(), {"NO_COLOR": ""}) and not use_colour(object(), {})
    coloured = colour_summary("mean recall     0.5     needs >= 0.90   FAIL\ngate            PASSED\nmodel ok\n")
    assert coloured == ("mean recall     0.5     needs >= 0.90   \033[31mFAIL\033[0m\n"
                        "gate            \033[32mPASSED\033[0m\nmodel ok\n")
