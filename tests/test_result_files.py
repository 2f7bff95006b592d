"""The files a run leaves: never outside results/, never mixed with another run, never lost to a kill, a full
disk or a read-only folder; no credentials printed.

Real files in tmp_path, real processes where a kill or a file system is the point (a small tmpfs, and the
same mounted read-only, in a user namespace of their own: ``unshare -Urm``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.commands.main import main as cli_main
from reviewtui.commands.eval import main as eval_main
from reviewtui.runs.result_files import RunPaths
from reviewtui.runs.run_folder import FolderLock, RunFolder
from tests.fake_messages_api import answer, findings_json, hang, serving_in_env, write_cases
from tests.stub_backends import FIXTURE_CASES

VERSION = assistant.PROMPT_VERSION
REPO = Path(__file__).resolve().parents[1]
KEY = "fake-anthropic-key-result-files-test-5e1a"


def rules_eval(results: Path, *extra: str) -> int:
    return eval_main(["--backend", "rules", "--cases", str(FIXTURE_CASES), "--results-dir", str(results), *extra])


def reference_dir(results: Path) -> Path:
    return results / "reference" / VERSION


@pytest.mark.slow
def test_a_run_never_deletes_through_a_link_out_of_results(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text("{}", encoding="utf-8")
    results = tmp_path / "results"
    reference_dir(results).mkdir(parents=True)
    (reference_dir(results) / "cases").symlink_to(outside, target_is_directory=True)
    rules_eval(results)
    assert (outside / "keep.json").read_text(encoding="utf-8") == "{}"  # the link went, not what it pointed at
    assert not (reference_dir(results) / "cases").is_symlink()
    assert len(list((reference_dir(results) / "cases").glob("*.json"))) == 10

    shutil.rmtree(reference_dir(results))
    reference_dir(results).symlink_to(outside, target_is_directory=True)  # the whole run folder a link
    rules_eval(results)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.json"]
    assert not reference_dir(results).is_symlink() and (reference_dir(results) / "manifest.json").is_file()


def test_results_inside_the_case_set_are_refused(tmp_path, capsys):
    cases = shutil.copytree(FIXTURE_CASES, tmp_path / "cases")
    assert eval_main(["--backend", "rules", "--cases", str(cases), "--results-dir", str(cases / "results")]) == 2
    err = capsys.readouterr().err
    assert f"--results-dir {cases / 'results'} is inside the case set {cases}" in err
    assert not (cases / "results").exists()
    (tmp_path / "accounts").mkdir()
    assert cli_main(["weekly", str(tmp_path / "accounts"), "--cases", str(cases), "--results-dir", str(cases)]) == 2
    assert f"--results-dir {cases} is inside the case set {cases}" in capsys.readouterr().err


def test_a_second_writer_is_refused_with_who_holds_the_run(tmp_path, capsys):
    results = tmp_path / "results"
    assert rules_eval(results) in (0, 1)
    before = (reference_dir(results) / "manifest.json").read_bytes()
    held = RunFolder(RunPaths(results / "reference", VERSION))
    held.acquire()  # another run of this version, writing now
    try:
        assert rules_eval(results) == 3
    finally:
        held.release()
    err = capsys.readouterr().err
    assert f"cannot write the results of {VERSION} in {results / 'reference'}: another run of {VERSION} (process " \
        f"{os.getpid()}, since " in err and "wait for it to end (or stop it), then run again" in err
    assert (reference_dir(results) / "manifest.json").read_bytes() == before


@pytest.mark.slow
def test_a_run_killed_midway_leaves_the_previous_record_as_it_was(tmp_path, monkeypatch):
    markers = {f"c{i:02d}-kill": f"ACCT-KR{i:02d}" for i in range(1, 5)}
    cases = write_cases(tmp_path / "cases", markers)
    results = tmp_path / "results"
    good = findings_json("tracking.conversions_stopped")
    with serving_in_env(monkeypatch, KEY) as api:
        for marker in markers.values():
            api.plan(marker, answer(good))
        args = ["--backend", "claude", "--cases", str(cases), "--results-dir", str(results)]
        assert eval_main(args) == 0
        record = {p: p.read_bytes() for p in results.glob(f"{VERSION}*") if p.is_file()}
        record.update({p: p.read_bytes() for p in (results / VERSION).rglob("*") if p.is_file()})
        api.plan("ACCT-KR04", hang(60))
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}
        proc = subprocess.Popen([sys.executable, "-m", "reviewtui.commands.eval", *args, "--no-cache"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60  # a guard against hanging the suite, not a speed assertion
            while len(list((results / ".work" / VERSION / "cases").glob("*.json"))) < 3:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
        finally:
            proc.kill()
            proc.wait(timeout=30)
    now = {p: p.read_bytes() for p in results.glob(f"{VERSION}*") if p.is_file()}
    now.update({p: p.read_bytes() for p in (results / VERSION).rglob("*") if p.is_file()})
    assert now == record


@pytest.mark.slow
def test_a_stale_folder_in_a_weekly_run_folder_is_no_crash(stamp_kit, stamped, capsys):
    from tests.test_weekly import DAY, account, weekly

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    assert weekly(accounts, "--date", DAY) == 0
    (stamped / "results" / "weekly" / DAY / "accounts" / "outdoor" / "left-behind").mkdir()
    assert weekly(accounts, "--date", DAY) == 0


@pytest.mark.slow
def test_a_weekly_run_never_deletes_through_a_link_and_refuses_a_second_writer(stamp_kit, stamped, capsys):
    from tests.test_weekly import DAY, account, weekly

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    outside = stamped.parent / "outside"
    (outside / "accounts" / "outdoor").mkdir(parents=True)
    (outside / "accounts" / "outdoor" / "report.md").write_text("someone else's", encoding="utf-8")
    (outside / "weekly.json").write_text(json.dumps({"accounts_dir": str(accounts.resolve())}), encoding="utf-8")
    weekly_dir = stamped / "results" / "weekly"
    weekly_dir.mkdir(parents=True)
    (weekly_dir / DAY).symlink_to(outside, target_is_directory=True)
    assert weekly(accounts, "--date", DAY) == 0
    assert (outside / "accounts" / "outdoor" / "report.md").read_text(encoding="utf-8") == "someone else's"
    assert not (weekly_dir / DAY).is_symlink()

    lock = FolderLock(weekly_dir / ".work" / f"{DAY}.lock", f"weekly run {DAY}")
    lock.acquire("test")
    try:
        stamp_kit.api.clear_requests()
        assert weekly(accounts, "--date", DAY) == 3
    finally:
        lock.release()
    assert f"cannot write the weekly run {Path('results') / 'weekly' / DAY}: another weekly run {DAY}" \
        in capsys.readouterr().err
    assert stamp_kit.api.count() == 0


def _victim(root: Path, name: str) -> Path:
    """A folder outside results/ holding what a run there would clear: ``<name>/x.txt``."""
    (root / "victim" / name).mkdir(parents=True)
    (root / "victim" / name / "x.txt").write_text("not results'", encoding="utf-8")
    return root / "victim"


@pytest.mark.parametrize("linked", ["reference/.work", "reference"])
def test_an_eval_refuses_a_link_on_the_way_to_its_folder(tmp_path, capsys, linked):
    results = tmp_path / "results"
    victim = _victim(tmp_path, VERSION)
    link = results / linked
    link.parent.mkdir(parents=True)
    link.symlink_to(victim, target_is_directory=True)
    assert rules_eval(results) == 2
    assert f"{link} is a link (to {victim})" in capsys.readouterr().err
    assert (victim / VERSION / "x.txt").is_file() and [p.name for p in victim.iterdir()] == [VERSION]


@pytest.mark.parametrize("linked", ["weekly/.work", "weekly"])
@pytest.mark.slow
def test_a_weekly_run_refuses_a_link_on_the_way_to_its_folder(stamp_kit, stamped, capsys, linked):
    from tests.test_weekly import DAY, account, weekly

    accounts = stamped / "accounts"
    stamp_kit.plan_account(account(accounts, "outdoor", "c01-tracking-stopped", "900-000-0001"), "900-000-0001")
    victim = _victim(stamped.parent, DAY)
    link = stamped / "results" / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim, target_is_directory=True)
    stamp_kit.api.clear_requests()
    assert weekly(accounts, "--date", DAY) == 2
    assert f"{Path('results') / linked} is a link (to {victim})" in capsys.readouterr().err
    assert stamp_kit.api.count() == 0
    assert (victim / DAY / "x.txt").is_file() and [p.name for p in victim.iterdir()] == [DAY]


# --------------------------------------------------------------------------
# A full disk and a read-only folder: a tmpfs of our own
# --------------------------------------------------------------------------


def _unshare_works() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs tmpfs /tmp && true"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


SCRIPT = """
set -u
R="$1"; shift
mount -t tmpfs -o size=16m tmpfs "$R"
run() { "$PY" -m reviewtui.commands.eval --backend rules --cases "$CASES" --results-dir "$R" > "$OUT/$1.out" 2> "$OUT/$1.err"; echo "$1 $?"; }
snap() { (cd "$R" && find . -type f ! -path '*/.work/*' | sort | xargs sha256sum) > "$OUT/$1.sum"; }
run first; snap first
mount -o remount,ro "$R"
run readonly; snap readonly
mount -o remount,rw "$R"
head -c 64m /dev/zero > "$R/filler" 2>/dev/null
run full; rm "$R/filler"; snap full
"""


@pytest.mark.skipif(not _unshare_works(), reason="needs `unshare -Urm` (user and mount namespaces) to mount a tmpfs")
@pytest.mark.slow
def test_a_full_disk_and_a_read_only_folder_exit_3_with_the_reason_and_keep_the_record(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    mount = tmp_path / "mnt"
    mount.mkdir()
    env = {**os.environ, "PY": sys.executable, "CASES": str(FIXTURE_CASES), "OUT": str(out),
           "PYTHONPATH": str(REPO)}
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", SCRIPT, "sh", str(mount)], env=env, capture_output=True,
                          text=True, timeout=300)
    codes = dict(line.split() for line in done.stdout.split("\n") if line.strip())
    assert codes["first"] in ("0", "1"), (done.stdout, done.stderr, (out / "first.err").read_text())
    assert codes == {"first": codes["first"], "readonly": "3", "full": "3"}, done.stdout
    for name, why in (("readonly", "Read-only file system"), ("full", "No space left on device")):
        err = (out / f"{name}.err").read_text(encoding="utf-8")
        assert "Traceback" not in err
        assert f"reviewtui eval: cannot write the results under {mount}" in err and f": {why}" in err, err
        assert f"the previous results of {VERSION} are kept as they were; the run is incomplete" in err
        assert (out / f"{name}.sum").read_text() == (out / "first.sum").read_text()  # not a byte changed


# --------------------------------------------------------------------------
# Credentials in ANTHROPIC_BASE_URL
# --------------------------------------------------------------------------


SECRET = "pr0xy-s3cret-Pa55"


def test_credentials_in_the_base_url_are_never_printed_or_written(tmp_path, capsys, monkeypatch):
    cases = write_cases(tmp_path / "cases", {"c01-creds": "ACCT-CR01"})
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    args = ["--backend", "claude", "--cases", str(cases), "--results-dir", str(tmp_path / "r"), "--timeout", "2",
            "--max-retries", "0"]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://proxy-user:{SECRET}@[::1")  # cannot be parsed
    assert eval_main(args) == 2
    first = capsys.readouterr()
    assert "check ANTHROPIC_BASE_URL ((a URL that cannot be parsed))" in first.err
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://proxy-user:{SECRET}@127.0.0.1:9/?token={SECRET}")
    assert eval_main(args) == 3  # nothing listens there: the case's error
    second = capsys.readouterr()
    for text in (first.out, first.err, second.out, second.err):
        assert SECRET not in text and "proxy-user" not in text
    for path in (tmp_path / "r").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes() and b"proxy-user" not in path.read_bytes()
