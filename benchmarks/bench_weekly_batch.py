"""The weekly run at agency scale: 500 accounts as one Message Batch, against the local fake Messages API.

Run: python benchmarks/bench_weekly_batch.py [--accounts 500] [--runs 3] [--poll 0.5] [--no-kills]

Set-up (not timed): the project's fifty cases get a passing stamp through the fake API
(tests/stamp_fixture.py, the tests' own), and ``--accounts`` accounts are made from the ten fixture
cases (tests/fixtures/cases), each with a new account id, each answered by the fake with the reference
auditor's findings for it (nine fixtures in ten are then ready to send; c09's is held for review).
Every run is a real ``python -m reviewtui weekly ACCOUNTS`` process in a fresh copy of the stamped
project (an empty response cache), timed from its start to its exit, its peak memory read from the
kernel (``wait4``'s ru_maxrss).

1. ``--batch``: batches made, requests in the batch and the size of the request that creates it; wall
   time, and how it splits: start to the batch asked for (the stamp check, the accounts read, the
   requests built), the wait (``--poll`` seconds between checks: the fake ends the batch at the second),
   the results asked for to exit (each account scored, audited by the reference auditor and its report
   written as its result is read); peak memory; the estimated cost (each token at half the price).
2. The same command again: every answer from the response cache, no batch, no request.
3. The direct run (no ``--batch``, concurrency 16) for comparison: requests and cost at the full price.
   The fake answers at once, so its wall time says nothing of the API's rate limits.
4. kill -9 at each step (starting, creating, waiting, collecting, writing reports: tests/batch_steps.py),
   then the same command rerun to the end: batches made, requests paid, requests paid twice, processes
   of the killed run still alive.

Medians of ``--runs`` runs for 1-3; the kill table is one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pytest  # noqa: E402 - MonkeyPatch, for the stamp kit's environment

from tests.batch_steps import STEPS, hold_step, kill_at, release_steps, survivors  # noqa: E402
from tests.fake_messages_api import FakeMessagesAPI, answer  # noqa: E402
from tests.stamp_fixture import KEY, StampKit, account_snapshot, auditor_text, make_stamp_kit  # noqa: E402
from tests.stub_backends import FIXTURE_CASES  # noqa: E402
from reviewtui.weekly.accounts import load_account  # noqa: E402

DAY = "2026-12-07"


def make_accounts(kit: StampKit, folder: Path, count: int) -> list[str]:
    """``count`` accounts from the fixture cases, each with its own id, planned with the auditor's answer."""
    fixtures = sorted(p for p in FIXTURE_CASES.iterdir() if p.is_dir())
    texts: dict[str, str] = {}
    markers = []
    for n in range(count):
        source = fixtures[n % len(fixtures)]
        marker = f"950-500-{n:04d}"
        path = account_snapshot(folder, f"client{n:03d}", source / "snapshot.json", marker,
                                name=f"Client {n:03d} ({source.name[4:]})")
        if source.name not in texts:  # the auditor's answer does not name the account id: one audit a fixture
            texts[source.name] = auditor_text(load_account(path.stem, path).as_case())
        kit.api.plan(marker, answer(texts[source.name]))
        markers.append(marker)
    return markers


class Bench:
    def __init__(self, api: FakeMessagesAPI, kit: StampKit, accounts: Path, root: Path) -> None:
        self.api, self.kit, self.accounts, self.root = api, kit, accounts, root
        self.copies = 0
        self.env = {**os.environ, **kit.env(), "REVIEWTUI_CACHE_DIR": str(root / "reviewtui-cache")}

    def fresh(self) -> Path:
        """A new copy of the stamped project: the stamp, the fifty cases, an empty weekly folder and cache."""
        self.copies += 1
        dest = self.root / f"run{self.copies}"
        self.kit.copy_to(dest)
        return dest

    def reset_fake(self) -> None:
        """No batch made, no request, nothing in the API's prompt cache: each run pays its own cache writes."""
        self.api.batches.clear()
        self.api.clear_requests()
        self.api.prompt_cache.clear()
        self.api.batch_polls = 1  # ended at the second retrieve
        self.api.create_batch_delay = self.api.results_delay = 0.0

    def weekly(self, cwd: Path, *extra: str) -> dict[str, Any]:
        """One ``reviewtui weekly`` process in ``cwd``: its wall time, peak memory, exit code and output."""
        out, err = cwd / "weekly.out", cwd / "weekly.err"
        with out.open("w") as stdout, err.open("w") as stderr:
            start = time.monotonic()
            proc = subprocess.Popen([sys.executable, "-m", "reviewtui", "weekly", str(self.accounts), "--date", DAY,
                                     *extra], cwd=cwd, env=self.env, stdout=stdout, stderr=stderr)
            _pid, status, usage = os.wait4(proc.pid, 0)
            wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        return {"start": start, "wall": wall, "rss_mb": usage.ru_maxrss / 1024, "code": proc.returncode,
                "err": err.read_text(), "run": json.loads((cwd / "results" / "weekly" / DAY / "weekly.json")
                                                          .read_text(encoding="utf-8"))}

    def paid(self) -> list[Any]:
        """The requests the fake answered as messages: inside a batch, or direct."""
        return [r for r in list(self.api.requests) if "#" in r.path or r.path == "/v1/messages"]


def batch_run(bench: Bench, poll: float) -> dict[str, Any]:
    bench.reset_fake()
    cwd = bench.fresh()
    result = bench.weekly(cwd, "--batch", "--batch-poll", str(poll))
    [create] = [r for r in bench.api.requests if r.method == "POST" and r.path == "/v1/messages/batches"]
    [results] = [r for r in bench.api.requests if r.path.endswith("/results")]
    result.update(batches=len(bench.api.batches), requests=len(bench.paid()), cwd=cwd,
                  body_mb=len(json.dumps(create.body)) / 1e6, to_create=create.received_at - result["start"],
                  wait=results.received_at - create.received_at,
                  collect=result["start"] + result["wall"] - results.received_at)
    bench.api.clear_requests()
    warm = bench.weekly(cwd, "--batch", "--batch-poll", str(poll))
    result.update(warm_wall=warm["wall"], warm_requests=len(bench.paid()), warm_batches=len(bench.api.batches) - 1,
                  warm_rss_mb=warm["rss_mb"])
    shutil.rmtree(cwd)
    return result


def direct_run(bench: Bench) -> dict[str, Any]:
    bench.reset_fake()
    cwd = bench.fresh()
    result = bench.weekly(cwd, "--concurrency", "16")
    result.update(requests=len(bench.paid()))
    shutil.rmtree(cwd)
    return result


def kill_row(bench: Bench, step: str, markers: list[str], poll: float) -> dict[str, Any]:
    bench.reset_fake()
    cwd = bench.fresh()
    hold_step(bench.api, step)
    argv = ["weekly", str(bench.accounts), "--date", DAY, "--batch", "--batch-poll", str(poll)]
    started = kill_at(step, argv, env=bench.env, cwd=cwd, api=bench.api,
                      work=cwd / "results" / "weekly" / ".work" / DAY)
    left = survivors(started)
    release_steps(bench.api)
    rerun = bench.weekly(cwd, "--batch", "--batch-poll", str(poll))
    paid = [r.marker for r in bench.paid()]
    shutil.rmtree(cwd)
    return {"step": step, "batches": len(bench.api.batches), "paid": len(paid),
            "twice": len(paid) - len(set(paid)), "missing": len(set(markers) - set(paid)), "orphans": len(left),
            "code": rerun["code"], "resumed": "resuming batch" in rerun["err"] or "found batch" in rerun["err"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poll", type=float, default=0.5, help="--batch-poll of each run (seconds)")
    parser.add_argument("--no-kills", action="store_true", help="leave out the kill -9 table")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="bench-weekly-batch-"))
    try:
        with FakeMessagesAPI(api_key=KEY) as api, pytest.MonkeyPatch.context() as patch:
            patch.chdir(root)
            kit = make_stamp_kit(api, root / "kit", patch)
            accounts = root / "accounts"
            markers = make_accounts(kit, accounts, args.accounts)
            bench = Bench(api, kit, accounts, root)
            report(bench, markers, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def report(bench: Bench, markers: list[str], args: argparse.Namespace) -> None:
    def med(values: Any) -> float:
        return statistics.median(list(values))

    batched = [batch_run(bench, args.poll) for _ in range(args.runs)]
    first = batched[0]
    counts = first["run"]["counts"]
    print(f"{args.accounts} accounts, --batch, {args.runs} run(s), polled every {args.poll:g} s "
          "(the fake ends the batch at the second poll):")
    print(f"  batches made {first['batches']}, requests in it {first['requests']}, creating request "
          f"{first['body_mb']:.1f} MB; exit {first['code']}; "
          + ", ".join(f"{n} {status}" for status, n in counts.items() if n))
    walls = ", ".join(f"{r['wall']:.1f}" for r in batched)
    print(f"  wall {med(r['wall'] for r in batched):.1f} s (runs: {walls}): "
          f"start to the batch asked for {med(r['to_create'] for r in batched):.1f} s, the wait "
          f"{med(r['wait'] for r in batched):.1f} s, results to exit (scoring, second opinion, reports) "
          f"{med(r['collect'] for r in batched):.1f} s")
    print(f"  peak memory {med(r['rss_mb'] for r in batched):.0f} MB")
    cost = first["run"]["usage"]["cost_usd"]
    print(f"  estimated cost ${cost:,.2f} (each token at half the price)")
    print(f"  rerun, every answer from the cache: {med(r['warm_wall'] for r in batched):.1f} s, "
          f"{first['warm_requests']} request(s), {first['warm_batches']} batch(es), peak memory "
          f"{med(r['warm_rss_mb'] for r in batched):.0f} MB")

    direct = [direct_run(bench) for _ in range(args.runs)]
    d_cost = direct[0]["run"]["usage"]["cost_usd"]
    print(f"direct (no --batch, concurrency 16, the fake answering at once): {direct[0]['requests']} requests, "
          f"estimated cost ${d_cost:,.2f} (batch/direct {cost / d_cost:.2f}), wall "
          f"{med(r['wall'] for r in direct):.1f} s, peak memory {med(r['rss_mb'] for r in direct):.0f} MB")

    if args.no_kills:
        return
    print()
    print("kill -9 at each step, then the same command rerun to the end:")
    print("| step | batches made | requests paid | paid twice | not paid | orphan processes | rerun |")
    print("|---|---|---|---|---|---|---|")
    for step in STEPS:
        row = kill_row(bench, step, markers, args.poll)
        print(f"| {row['step']} | {row['batches']} | {row['paid']} | {row['twice']} | {row['missing']} | "
              f"{row['orphans']} | exit {row['code']}{', resumed the batch' if row['resumed'] else ''} |", flush=True)


if __name__ == "__main__":
    main()
