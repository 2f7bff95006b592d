"""Hostile input through the real command line: no key leak, no terminal escape, no hang, no traceback.

Every fixture is built on disk in the test; every command runs as a
subprocess with a fake API key in its environment, and that key must appear
in no output and in no file the command leaves behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewtui.caseset.cases import load_case_set

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "app"
FAKE_KEY = "fake-hostile-key-5d1e77c0"
ESC = "\x1b"
# A window title, a clear screen, an OSC 52 clipboard write and an OSC 8 link.
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil.example\x07x\x1b]8;;\x07"
ESCAPES_IN_NAME = "\x1b]0;pwned\x07\x1b[2J"  # no "/" in a file name
CASE = "c01-shoes-tracking"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "repo"))


def run(repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``reviewtui <args>`` in ``repo`` with the fake key set; asserts no traceback and no key anywhere."""
    environ = {**os.environ, "ANTHROPIC_API_KEY": FAKE_KEY, "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "reviewtui", *args], cwd=repo, capture_output=True, text=True,
                          timeout=timeout, env=environ)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert FAKE_KEY not in out
    assert ESC not in out, "a raw escape reached the terminal"
    for path in repo.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert FAKE_KEY.encode() not in path.read_bytes(), f"the key landed in {path}"
    return proc


def expected(repo: Path, case: str = CASE) -> Path:
    return repo / "cases" / case / "expected.yaml"


def set_key(repo: Path, key: str, value: str, case: str = CASE) -> None:
    """Replace (or add) one top-level line of expected.yaml."""
    path = expected(repo, case)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith(f"{key}:")]
    lines.insert(2, f"{key}: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def check(repo: Path) -> subprocess.CompletedProcess:
    return run(repo, "check", "--cases", "cases")


def eval_replay(repo: Path, **options) -> subprocess.CompletedProcess:
    """``reviewtui eval --backend replay --replay-dir replay`` on the fixture set less its deliberately broken case."""
    shutil.rmtree(repo / "cases" / "c03-bikes-broken")
    return run(repo, "eval", "--backend", "replay", "--replay-dir", "replay", "--cases", "cases", **options)


# -- 1. paths read from files --------------------------------------------------------------


@pytest.mark.parametrize("source", ["/proc/self/environ", "../../../../etc/passwd", "writeups/../../../etc/hostname",
                                    "writeups/link.md"])
@pytest.mark.slow
def test_a_source_outside_writeups_is_refused_and_never_read(repo, source):
    (repo / "writeups" / "link.md").symlink_to("/proc/self/environ")  # a link inside writeups/ to outside
    set_key(repo, "source", json.dumps(source))
    proc = check(repo)
    assert proc.returncode == 2
    assert f"'source' {source!r} resolves outside the writeups/ folder" in proc.stdout
    case = load_case_set(repo / "cases").by_id(CASE)
    assert case.source_path() is None  # nothing downstream can open it


@pytest.mark.slow
def test_a_case_folder_linked_out_of_the_case_root_is_refused(repo, tmp_path):
    outside = Path(shutil.copytree(repo / "cases" / CASE, tmp_path / "elsewhere" / "c09-outside"))
    (repo / "cases" / "c09-outside").symlink_to(outside, target_is_directory=True)
    before = (outside / "expected.yaml").read_bytes()
    proc = check(repo)
    assert proc.returncode == 2
    assert "c09-outside is a link to" in proc.stdout and "outside the cases folder" in proc.stdout
    assert "c09-outside" not in [c.case_id for c in load_case_set(repo / "cases").cases]
    assert (outside / "expected.yaml").read_bytes() == before


@pytest.mark.slow
def test_a_replay_file_linked_outside_the_replay_folder_is_not_copied_into_the_results(repo, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(f"ANTHROPIC_API_KEY={FAKE_KEY}\n", encoding="utf-8")
    replay = repo / "replay"
    replay.mkdir()
    (replay / f"{CASE}.json").symlink_to(secret)
    proc = eval_replay(repo)
    assert proc.returncode == 3  # that case could not be obtained
    assert f"refused replay/{CASE}.json: it is a link to a file outside --replay-dir" in proc.stderr
    secret.unlink()  # the only file allowed to hold the key; run() scanned the repo, not tmp_path


# -- 3. terminal escapes -----------------------------------------------------------------------


def test_check_prints_escape_sequences_from_case_files_as_visible_characters(repo):
    shutil.copytree(repo / "cases" / "c02-garden-clean", repo / "cases" / f"c09-x{ESCAPES_IN_NAME}")  # refused, and printed
    set_key(repo, "kind", json.dumps(f"ordinary{ESCAPES}"))
    set_key(repo, "source", json.dumps(f"writeups/{ESCAPES}.md"))
    path = expected(repo)
    scoped = json.dumps(f"pacing.overspend@9{ESCAPES}")  # a campaign id used as scope
    path.write_text(path.read_text(encoding="utf-8").replace("pacing.overspend", scoped), encoding="utf-8")
    proc = check(repo)  # run() asserts no ESC byte in the output
    assert proc.returncode == 2
    assert "c09-x␛]0;pwned␇␛[2J/expected.yaml" in proc.stdout
    assert "'kind' is 'ordinary\\x1b]0;pwned" in proc.stdout  # quoted values keep their own escapes
    assert "scope '9\\x1b]0;pwned" in proc.stdout


@pytest.mark.slow
def test_eval_prints_escape_sequences_in_errors_as_visible_characters(repo):
    replay = repo / f"replay{ESCAPES_IN_NAME}"
    replay.mkdir()
    shutil.rmtree(repo / "cases" / "c03-bikes-broken")
    proc = run(repo, "eval", "--backend", "replay", "--replay-dir", replay.name, "--cases", "cases")
    assert proc.returncode == 3
    assert "error: no stored output replay␛]0;pwned␇" in proc.stderr


def test_printable_leaves_no_control_character_and_keeps_the_length():
    from reviewtui.files.untrusted import printable

    text = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x202E, 0x2066]) + "ok"
    one_line = printable(text, one_line=True)
    assert len(one_line) == len(text)
    assert all(ch.isprintable() for ch in one_line)
    assert printable("a\nb\tc") == "a\nb\tc" and printable("a\r\nb") == "a \nb"


# -- 4. hangs and blow-ups ---------------------------------------------------------------------

ALIAS_BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
case: c01-shoes-tracking
kind: *i
"""


@pytest.mark.slow
def test_a_yaml_alias_bomb_is_refused_before_it_expands(repo):
    expected(repo).write_text(ALIAS_BOMB, encoding="utf-8")
    proc = check(repo)
    assert proc.returncode == 2
    assert f"{expected(repo).relative_to(repo)}:1: YAML anchors and aliases (&name, *name) are not allowed" in proc.stdout
    assert "2 case(s) checked" in proc.stdout  # the other cases still load


@pytest.mark.slow
def test_a_catastrophic_says_pattern_runs_in_linear_time(repo):
    path = expected(repo)
    path.write_text(path.read_text(encoding="utf-8").replace('says: ["overspend"]', 'says: ["(a+)+$", "(x+x+)+y"]'),
                    encoding="utf-8")
    replay = repo / "replay"
    replay.mkdir()
    claim = "a" * 200_000 + "!"  # minutes per pattern with backtracking
    (replay / f"{CASE}.json").write_text(json.dumps({"findings": [
        {"id": "tracking.conversions_stopped", "scope": "222", "claim": claim, "evidence": "x" * 100_000 + "z",
         "severity": "high"}]}), encoding="utf-8")
    proc = eval_replay(repo, timeout=60)
    assert f"] {CASE}: recall" in proc.stderr


@pytest.mark.slow
def test_check_refuses_a_pattern_the_safe_engine_cannot_run(repo):
    path = expected(repo)
    path.write_text(path.read_text(encoding="utf-8").replace('says: ["overspend"]', r'says: ["(a)\\1", "(?<=x)y"]'),
                    encoding="utf-8")
    proc = check(repo)
    assert proc.returncode == 2
    assert "'says' pattern '(a)\\\\1' refused: not a pattern the safe regex engine (RE2) can run" in proc.stdout
    assert "'says' pattern '(?<=x)y' refused" in proc.stdout


@pytest.mark.parametrize("period, message", [
    ({"start": "0001-01-01", "end": "9999-12-31", "as_of": "9999-12-31"}, "'period.start' 0001-01-01 is outside the years 2000 to 2100"),
    ({"start": "2025-01-01", "end": "2026-12-31", "as_of": "2026-12-31"}, "spans 730 days; the limit is 366 days"),
    ({"start": "2025-03-31", "end": "2025-03-01", "as_of": "2025-03-19"}, "'period.end' 2025-03-01 is before 'period.start'"),
])
@pytest.mark.slow
def test_an_extreme_period_is_refused_by_check_and_eval(repo, period, message):
    for path in (repo / "cases" / CASE / "snapshot.json", repo / "writeups" / "wu01-shoes.snapshot.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["period"] = {**period, "last_complete_date": period["as_of"]}
        path.write_text(json.dumps(data), encoding="utf-8")
    proc = check(repo)
    assert proc.returncode == 2 and message in proc.stdout
    shutil.rmtree(repo / "cases" / "c03-bikes-broken")
    proc = run(repo, "eval", "--backend", "rules", "--cases", "cases")
    assert proc.returncode == 2 and message in proc.stderr


# -- 5. crashes become messages ------------------------------------------------------------------


@pytest.mark.parametrize("where, content, message", ids=["yaml-nesting", "yaml-huge-int", "json-nesting", "json-huge-int",
                                                         "source-mapping", "source-list"], argvalues=[
    ("expected.yaml", "case: c01-shoes-tracking\nnotes: " + "[" * 400 + "]" * 400 + "\n", "nesting deeper than 8 levels"),
    ("expected.yaml", "case: c01-shoes-tracking\nnotes: " + "9" * 5000 + "\n", "a value cannot be read (Exceeds the limit (4300 digits)"),
    ("snapshot.json", "[" * 1_000_000 + "]" * 1_000_000, "nesting deeper than 32 levels"),
    ("snapshot.json", '{"a": ' + "9" * 5000 + "}", "a value cannot be read (Exceeds the limit (4300 digits)"),
    ("expected.yaml", "case: c01-shoes-tracking\nkind: ordinary\nsource: {a: 1}\n", "'source' must be a path such as"),
    ("expected.yaml", "case: c01-shoes-tracking\nkind: ordinary\nsource: [writeups/wu01-shoes.md]\n", "'source' must be a path"),
])
@pytest.mark.slow
def test_malformed_input_gives_a_message_naming_the_file_and_the_rest_still_loads(repo, where, content, message):
    (repo / "cases" / CASE / where).write_text(content, encoding="utf-8")
    proc = check(repo)
    assert proc.returncode == 2
    line = next(line for line in proc.stdout.splitlines() if message in line)
    assert line.startswith(f"cases/{CASE}/{where}:")
    assert "3 case(s) checked" in proc.stdout or "2 case(s) checked" in proc.stdout


@pytest.mark.slow
def test_a_write_up_that_is_not_utf8_is_a_message(repo):
    (repo / "writeups" / "wu01-shoes.md").write_bytes("Caf\xe9 sales fell.\n".encode("latin-1"))
    proc = check(repo)
    assert proc.returncode == 2
    assert "source write-up writeups/wu01-shoes.md: not UTF-8 text (byte 3" in proc.stdout.replace(str(repo) + "/", "")


@pytest.mark.slow
def test_a_bad_base_url_is_bad_usage(repo):
    shutil.rmtree(repo / "cases" / "c03-bikes-broken")
    proc = run(repo, "eval", "--backend", "claude", "--cases", "cases", env={"ANTHROPIC_BASE_URL": "http://[::1"})
    assert proc.returncode == 2
    assert "cannot set up the Messages API client" in proc.stderr and "ANTHROPIC_BASE_URL (http://[::1)" in proc.stderr


# -- size limits ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_files_and_values_over_the_limits_fail_fast_naming_the_limit(repo):
    big = "case: c01-shoes-tracking\nkind: ordinary\nnotes: |\n" + ("  " + "x" * 100 + "\n") * 3000
    expected(repo).write_text(big, encoding="utf-8")
    snapshot = repo / "cases" / "c02-garden-clean" / "snapshot.json"
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    data["campaigns"][0]["name"] = "n" * 5000
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    many = "case: c03-bikes-broken\nkind: broken_data\nmust_find:\n" + "  - {id: data.duplicate_rows, evidence: e}\n" * 600
    expected(repo, "c03-bikes-broken").write_text(many, encoding="utf-8")
    proc = check(repo)
    assert proc.returncode == 2
    assert "expected.yaml is 3" in proc.stdout and "bytes; the limit is 262,144 bytes" in proc.stdout
    assert "the string at /campaigns/0/name is 5,000 characters; the limit is 2,000" in proc.stdout
    assert "a list or mapping has more than 500 entries; the limit is 500" in proc.stdout
