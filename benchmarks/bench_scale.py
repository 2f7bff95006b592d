"""Scale and cost of a claude run, against the local fake Messages API in this process.

Run: python benchmarks/bench_scale.py [--runs 3] [--latency-ms 200] [--concurrency 16] [--repeats 3] [--startup-only]
     [--checkout PATH]

Each eval is a real `python -m reviewtui.commands.eval --backend claude` process; the
fake API (tests/fake_messages_api.py) answers every request after
``--latency-ms`` and stamps when each request arrived and each answer left.

1. Throughput: the fifty cases x ``--repeats`` at ``--concurrency``: the time
   from the first request's arrival to the last answer, against the ideal
   ceil(N*k / c) x latency; and the start-up (process start to the first
   request) less the anthropic SDK's import time, measured alone. The
   reference auditor's audits are kept in a fresh cache folder
   (``REVIEWTUI_CACHE_DIR``), so the first run audits the fifty (a cold
   start) and the later ones read them back; each run's start-up is printed.
   ``--startup-only`` runs just this part. Beside it, the runner's own
   schedule with no overhead at all (``run_cases`` over a backend that only
   sleeps the latency): a case's repeats wait for its first answer, which
   takes one round more than ceil(N*k / c).
   ``--answers reference`` answers each case with the reference auditor's
   findings for it (real figures to ground: scoring costs what it costs on a
   real run) instead of one plain "no material issues" answer for all.
   ``--checkout PATH`` runs the eval from another checkout of the project
   (its package and its cases) against this fake API, to compare two versions
   on the same machine at the same time.
2. The same run again: every answer from the response cache, 0 requests.
3. ``--batch``: one Message Batch (the fake ends it at the second poll).
4. Input size on the fifty: snapshot bytes raw against compact, and the
   estimated tokens (4 characters a token) of the whole request each way.
5. ``reviewtui eval --help`` against a bare ``python -c pass``.

Medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from reviewtui import assistant  # noqa: E402
from reviewtui.caseset.cases import load_case_set  # noqa: E402
from reviewtui.caseset.snapshot_compact import compact_text  # noqa: E402
from tests.fake_messages_api import FakeMessagesAPI, findings_json, slow_answer  # noqa: E402

KEY = "fake-anthropic-key-bench-scale"
CASES = REPO / "cases"


def seconds_of(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def help_seconds(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reviewtui.commands.main", "eval", "--help"], check=True, cwd=REPO,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sdk_import_seconds(runs: int) -> float:
    code = "import time; t = time.perf_counter(); import anthropic; print(time.perf_counter() - t)"
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True, cwd=REPO).stdout) for _ in range(runs))


def schedule_seconds(cases: int, repeats: int, concurrency: int, latency: float) -> float:
    """The runner's schedule alone: ``run_cases`` over a backend that answers after ``latency`` and does nothing else."""
    from reviewtui.backends.base import Backend, CaseOutput
    from reviewtui.runs.runner import run_cases

    class Sleeps(Backend):
        name, model = "sleeps", None

        async def run(self, case, *, repeat=0):  # type: ignore[no-untyped-def]
            await asyncio.sleep(latency)
            return CaseOutput(case.case_id, "{}")

    stand_ins = [SimpleNamespace(case_id=f"c{i:03d}") for i in range(cases)]
    started = time.perf_counter()
    asyncio.run(run_cases(stand_ins, Sleeps(), concurrency=concurrency, repeats=repeats))  # type: ignore[arg-type]
    return time.perf_counter() - started


def reference_answers(cases: list[Any]) -> list[tuple[Any, str]]:
    """Each case with the reference auditor's answer for it."""
    from reviewtui.backends.rules import RulesBackend

    backend = RulesBackend()

    async def all_of_them() -> list[tuple[Any, str]]:
        return [(case, (await backend.run(case)).raw_text or "") for case in cases]

    return asyncio.run(all_of_them())


def eval_run(api: FakeMessagesAPI, results: Path, *extra: str, checkout: Path = REPO) -> tuple[float, float, int, int]:
    """(start-up to first request, first request to last answer, requests, exit code)."""
    api.clear_requests()
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "reviewtui.commands.eval", "--backend", "claude", "--cases",
                           str(checkout / "cases"), "--results-dir", str(results), *extra], env=env, cwd=checkout,
                          capture_output=True, text=True)
    ended = time.monotonic()
    messages = [r for r in api.requests if r.path == "/v1/messages" or "#" in r.path]  # direct, or a batch's
    if not messages:
        return 0.0, ended - started, 0, proc.returncode
    first = min(r.received_at for r in messages)
    last = max((r.answered_at or r.received_at) for r in messages)
    return first - started, last - first, len(messages), proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--startup-only", action="store_true", help="only the throughput run and its start-up")
    parser.add_argument("--answers", choices=("plain", "reference"), default="plain",
                        help="every answer 'no material issues' (plain) or each case's reference-auditor findings")
    parser.add_argument("--checkout", type=Path, default=REPO,
                        help="run the eval from this checkout of the project (default: this one)")
    args = parser.parse_args()
    os.environ["REVIEWTUI_CACHE_DIR"] = cache = tempfile.mkdtemp(prefix="bench-scale-cache-")  # inherited by each eval
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    latency = args.latency_ms / 1000
    med = statistics.median

    cases = load_case_set(CASES).cases
    raw = sum(len(c.snapshot.text.encode()) for c in cases)
    compact = sum(len(compact_text(c.snapshot.text).encode()) for c in cases)
    shared = len(assistant.system_prompt()) + len(json.dumps(assistant.output_schema(), separators=(",", ":")))
    raw_tokens = statistics.mean((shared + len(assistant.user_message(c.snapshot.text))) / 4 for c in cases)
    compact_tokens = statistics.mean((shared + len(assistant.user_message(compact_text(c.snapshot.text)))) / 4
                                     for c in cases)
    print(f"input on the fifty: snapshots {raw:,} bytes raw, {compact:,} compact ({compact / raw:.0%}); "
          f"request about {raw_tokens:,.0f} tokens a case raw, {compact_tokens:,.0f} compact")

    pass_s, help_s = seconds_of("pass", args.runs), help_seconds(args.runs)
    print(f"reviewtui eval --help: {help_s * 1000:.0f} ms; python -c pass: {pass_s * 1000:.0f} ms "
          f"(+{(help_s - pass_s) * 1000:.0f} ms)")
    sdk = sdk_import_seconds(args.runs)

    answer = slow_answer(findings_json("summary.no_material_issues"), latency)
    jobs = len(cases) * args.repeats
    ideal = math.ceil(jobs / args.concurrency) * latency
    with FakeMessagesAPI(api_key=KEY, default=answer) as api:
        api.batch_polls = 1
        if args.answers == "reference":
            for case, text in reference_answers(cases):  # the account id is in the request's snapshot
                api.plan(str(case.snapshot.data["account"]["id"]), slow_answer(text, latency))
        starts, spans, warm, batch = [], [], [], []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                results = Path(tmp)
                start, span, n, code = eval_run(api, results, "--concurrency", str(args.concurrency),
                                                "--repeats", str(args.repeats), checkout=args.checkout)
                assert n == jobs, f"expected {jobs} requests, got {n} (exit {code})"
                starts.append(start)
                spans.append(span)
                if args.startup_only:
                    continue
                t = time.monotonic()
                _, _, n_warm, _ = eval_run(api, results, "--concurrency", str(args.concurrency),
                                           "--repeats", str(args.repeats), checkout=args.checkout)
                warm.append((time.monotonic() - t, n_warm))
            if args.startup_only:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                t = time.monotonic()
                _, _, n_batch, code = eval_run(api, Path(tmp), "--batch", "--batch-poll", "0.5",
                                               "--repeats", str(args.repeats), checkout=args.checkout)
                batch.append((time.monotonic() - t, n_batch, code))
    span = med(spans)
    schedule = schedule_seconds(len(cases), args.repeats, args.concurrency, latency)
    print(f"throughput ({args.answers} answers): {len(cases)} cases x {args.repeats} at {args.latency_ms:g} ms, concurrency "
          f"{args.concurrency}: first request to last answer {span:.2f} s (runs: "
          f"{', '.join(f'{s:.2f}' for s in spans)}; ratios {', '.join(f'{s / ideal:.2f}' for s in spans)}), "
          f"ideal {ideal:.2f} s, ratio {span / ideal:.2f}; the runner's schedule with no overhead "
          f"{schedule:.2f} s (ratio {schedule / ideal:.2f})")
    print(f"start-up to the first request: {med(starts):.2f} s (runs: {', '.join(f'{s:.2f}' for s in starts)}; the "
          f"first audits the fifty, the rest read the audits back); the SDK import alone {sdk:.2f} s; "
          f"beyond it {med(starts) - sdk:.2f} s")
    if args.startup_only:
        return
    print(f"warm-cache rerun: {med(w[0] for w in warm):.2f} s, {max(w[1] for w in warm)} request(s)")
    print(f"--batch: {med(b[0] for b in batch):.2f} s for {batch[0][1]} batched request(s) (poll every 0.5 s), "
          f"exit {batch[0][2]}")


if __name__ == "__main__":
    main()
