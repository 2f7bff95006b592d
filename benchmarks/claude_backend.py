"""How long the claude backend takes against the local fake Messages API, cold and from the cache.

Run: python benchmarks/claude_backend.py [--cases 50] [--concurrency 8]

Prints the SDK's import time, then a first run (every case a request to the
fake server on 127.0.0.1, so network and model time are left out) and a
second run answered from the response cache. The fake answers at once; the
figures are the harness's own overhead, not what a real run costs in time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewtui.caseset.cases import load_case  # noqa: E402
from reviewtui.runs.runner import run_cases  # noqa: E402
from tests.fake_messages_api import FakeMessagesAPI, answer, findings_json, write_case  # noqa: E402

KEY = "fake-anthropic-key-benchmark-not-a-key"


def sdk_import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import anthropic; print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


async def timed_run(cases, cache_dir: Path, concurrency: int) -> tuple[float, int]:
    from reviewtui.backends.claude import ClaudeBackend

    backend = ClaudeBackend(cache_dir=cache_dir)
    start = time.perf_counter()
    try:
        outcome = await run_cases(cases, backend, concurrency=concurrency)
    finally:
        await backend.aclose()
    assert outcome.status == "complete", outcome.status
    return time.perf_counter() - start, backend.api_calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    print(f"import anthropic: {sdk_import_seconds():.2f}s (paid only by --backend claude)")
    with tempfile.TemporaryDirectory() as tmp, FakeMessagesAPI(api_key=KEY) as api:
        os.environ["ANTHROPIC_API_KEY"] = KEY
        os.environ["ANTHROPIC_BASE_URL"] = api.base_url
        cases = []
        for i in range(args.cases):
            marker = f"BENCH-{i:04d}"
            api.plan(marker, answer(findings_json("tracking.conversions_stopped")))
            cases.append(load_case(write_case(Path(tmp) / "cases", f"c{i:03d}-bench", marker)))
        cache_dir = Path(tmp) / "cache"
        for label in ("first run (all requests)", "rerun (cache)"):
            seconds, calls = asyncio.run(timed_run(cases, cache_dir, args.concurrency))
            print(f"{label}: {args.cases} cases, concurrency {args.concurrency}: {seconds:.2f}s, {calls} API requests")
        print(f"fake server saw {api.count()} requests in total")


if __name__ == "__main__":
    main()
