"""A claude run's whole cost, start to exit, beside promptfoo and Inspect AI on the same requests, against the fake API.

Run: python benchmarks/bench_tools.py [--runs 5] [--latency-ms 200] [--concurrency 16]
     [--tools reviewtui,promptfoo,inspect] [--promptfoo PATH [--node-dir DIR]] [--inspect PATH]

One sitting: every round runs each tool once cold (nothing in its response
cache) and then once warm (the same command again, every answer cached), so
the tools share the machine's state; the table gives medians over
``--runs`` rounds. Each run is a whole process timed from its start to its
exit (``os.wait4`` gives its CPU and peak memory). The fake Messages API
(tests/fake_messages_api.py, on 127.0.0.1 in this process) answers every
request after ``--latency-ms`` with the same JSON answer and stamps when each
request arrived and each answer left, so a run splits into start to the
first request, first request to last answer (against the ideal
ceil(N/c) x latency), and last answer to exit.

The requests are the fifty cases' own: the audit system prompt and the
user message with the compact snapshot (``assistant.system_prompt``,
``assistant.user_message``). reviewtui sends them with ``reviewtui eval
--backend claude`` (and scores the answers); promptfoo (0.123, its anthropic
provider, an ``is-json`` assertion) and Inspect AI (0.3, its anthropic
provider, a JSON-parsing scorer) send the same system prompt and user
messages at the same concurrency. The fake accepts each tool's own request
shape here (their headers and parameters differ from the SDK's; the tests'
checks of reviewtui's requests are in tests/), and answers all of them alike.

Neither tool is a dependency of the project: a tool that is not found is
skipped. Install them outside the project, for example::

    npm install --prefix /tmp/pf promptfoo@0.123           # needs node >= 22.22 on PATH (or --node-dir)
    python3 -m venv /tmp/inspect && /tmp/inspect/bin/pip install 'inspect-ai==0.3.*' anthropic

and pass ``--promptfoo /tmp/pf/node_modules/.bin/promptfoo --inspect /tmp/inspect/bin/inspect``.
``--tools reviewtui --latency-ms 2000`` is the same run at a slower API (the
request phase against its ideal).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from reviewtui import assistant  # noqa: E402
from reviewtui.caseset.cases import load_case_set  # noqa: E402
from reviewtui.caseset.snapshot_compact import compact_text  # noqa: E402
from tests.fake_messages_api import FakeMessagesAPI, Planned, findings_json, slow_answer  # noqa: E402

KEY = "fake-anthropic-key-bench-tools"
MODEL = assistant.DEFAULT_MODEL
TOOLS = ("reviewtui", "promptfoo", "inspect")


class AnyClientAPI(FakeMessagesAPI):
    """The fake, answering every tool's message requests: the SDK's Bearer key or an x-api-key, any parameters."""

    def _check_and_plan(self, method: str, path: str, headers: dict[str, str], body: Any) -> Planned:
        if headers.get("x-api-key") == self.api_key and "authorization" not in headers:
            headers = {**headers, "authorization": f"Bearer {self.api_key}"}
        headers.setdefault("anthropic-version", "2023-06-01")
        if (method, path.split("?")[0]) == ("POST", "/v1/messages") and isinstance(body, dict):
            if headers.get("authorization") != f"Bearer {self.api_key}":
                return super()._check_and_plan(method, path, headers, body)
            return self._next_response(None) or super()._check_and_plan(method, path, headers, body)
        return super()._check_and_plan(method, path, headers, body)


@dataclass
class Timing:
    wall: float  # process start to exit
    start: float | None  # process start to the first request (None: no request)
    span: float | None  # first request to last answer
    tail: float | None  # last answer to exit
    requests: int
    cpu: float  # user + system CPU of the process and the children it waited for
    peak_mb: float  # the process's own peak resident memory
    code: int


def timed(api: FakeMessagesAPI, argv: list[str], env: dict[str, str], cwd: Path) -> Timing:
    api.clear_requests()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.monotonic()
    proc.returncode = os.waitstatus_to_exitcode(status)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    messages = [r for r in api.requests if r.path.split("?")[0] == "/v1/messages"]
    if proc.returncode not in (0, 1):
        print(f"  exit {proc.returncode}: {' '.join(argv[:3])} ...\n{err.decode(errors='replace')[-1500:]}", file=sys.stderr)
    if not messages:
        return Timing(ended - started, None, None, None, 0, cpu, usage.ru_maxrss / 1024, proc.returncode)
    first = min(r.received_at for r in messages)
    last = max((r.answered_at or r.received_at) for r in messages)
    return Timing(ended - started, first - started, last - first, ended - last, len(messages), cpu,
                  usage.ru_maxrss / 1024, proc.returncode)


class Tool:
    name = ""

    def __init__(self, work: Path, api: FakeMessagesAPI, concurrency: int) -> None:
        self.work = work
        self.api = api
        self.concurrency = concurrency
        self.env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url}

    def fresh(self) -> None:
        """Forget the response cache: the next run is cold."""

    def run(self) -> Timing:
        raise NotImplementedError


class Reviewtui(Tool):
    name = "reviewtui"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        # The on-disk caches of the case set (parsed expected.yaml, the reference auditor's audits,
        # compact snapshots) outlive a run as they do on a user's machine; the first run fills them.
        self.env["REVIEWTUI_CACHE_DIR"] = str(self.work / "disk-cache")
        self.results = self.work / "results"

    def fresh(self) -> None:
        shutil.rmtree(self.results, ignore_errors=True)

    def run(self) -> Timing:
        return timed(self.api, [sys.executable, "-m", "reviewtui.commands.main", "eval", "--backend", "claude", "--cases",
                                str(REPO / "cases"), "--results-dir", str(self.results), "--concurrency",
                                str(self.concurrency)], self.env, REPO)


class Promptfoo(Tool):
    name = "promptfoo"

    def __init__(self, work: Path, api: FakeMessagesAPI, concurrency: int, binary: str, node_dir: str | None,
                 cases: list[tuple[str, str]]) -> None:
        super().__init__(work, api, concurrency)
        self.binary = binary
        if node_dir:
            self.env["PATH"] = f"{node_dir}{os.pathsep}{self.env.get('PATH', '')}"
        self.env.update(PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1",
                        PROMPTFOO_CONFIG_DIR=str(work / "home"), PROMPTFOO_CACHE_PATH=str(work / "cache"))
        (work / "prompt.json").write_text(
            '[{"role": "system", "content": {{ system | dump }}}, {"role": "user", "content": {{ user | dump }}}]\n',
            encoding="utf-8")
        config = {
            "description": "the fifty cases, as reviewtui eval sends them",
            "prompts": ["file://prompt.json"],
            "providers": [{"id": f"anthropic:messages:{MODEL}",
                           "config": {"apiBaseUrl": api.base_url, "apiKey": KEY, "max_tokens": 20000}}],
            "defaultTest": {"vars": {"system": assistant.system_prompt()}, "assert": [{"type": "is-json"}]},
            "tests": [{"description": case_id, "vars": {"user": user}} for case_id, user in cases],
        }
        (work / "promptfooconfig.yaml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML

    def fresh(self) -> None:
        shutil.rmtree(self.work / "cache", ignore_errors=True)

    def run(self) -> Timing:
        return timed(self.api, [self.binary, "eval", "-c", "promptfooconfig.yaml", "--max-concurrency",
                                str(self.concurrency), "--no-progress-bar", "--no-table", "-o",
                                str(self.work / "out.json")], self.env, self.work)


INSPECT_TASK = '''
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem
from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer
from inspect_ai.solver import generate, solver

DATA = json.loads(Path(__file__).with_name("cases.json").read_text(encoding="utf-8"))


@solver
def audit_prompt():
    async def solve(state, generate):
        state.messages.insert(0, ChatMessageSystem(content=DATA["system"]))
        return state
    return solve


@scorer(metrics=[accuracy()])
def is_json():
    async def score(state, target):
        try:
            json.loads(state.output.completion)
        except ValueError:
            return Score(value=INCORRECT)
        return Score(value=CORRECT)
    return score


@task
def audit():
    samples = [Sample(id=case_id, input=user, target="") for case_id, user in DATA["cases"]]
    return Task(dataset=MemoryDataset(samples), solver=[audit_prompt(), generate()], scorer=is_json())
'''


class Inspect(Tool):
    name = "inspect"

    def __init__(self, work: Path, api: FakeMessagesAPI, concurrency: int, binary: str,
                 cases: list[tuple[str, str]]) -> None:
        super().__init__(work, api, concurrency)
        self.binary = binary
        self.env.update(INSPECT_CACHE_DIR=str(work / "cache"), INSPECT_LOG_DIR=str(work / "logs"))
        (work / "cases.json").write_text(json.dumps({"system": assistant.system_prompt(), "cases": cases}),
                                         encoding="utf-8")
        (work / "task.py").write_text(INSPECT_TASK, encoding="utf-8")

    def fresh(self) -> None:
        shutil.rmtree(self.work / "cache", ignore_errors=True)

    def run(self) -> Timing:
        return timed(self.api, [self.binary, "eval", "task.py", "--model", f"anthropic/{MODEL}", "--max-connections",
                                str(self.concurrency), "--max-samples", str(self.concurrency), "--max-tokens", "20000",
                                "-M", "streaming=false", "--cache", "--display", "none", "--log-dir",
                                str(self.work / "logs")], self.env, self.work)


def found(path: str | None, name: str) -> str | None:
    candidate = path or shutil.which(name)
    return candidate if candidate and Path(candidate).exists() else None


def fmt(values: list[float | None], unit: str = "s", digits: int = 2) -> str:
    got = [v for v in values if v is not None]
    if not got:
        return "-"
    return f"{statistics.median(got):.{digits}f}{unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--tools", default=",".join(TOOLS), help="which of reviewtui, promptfoo, inspect")
    parser.add_argument("--promptfoo", help="the promptfoo executable (default: on PATH)")
    parser.add_argument("--node-dir", help="a folder with the node (>= 22.22) promptfoo runs on, put first on its PATH")
    parser.add_argument("--inspect", help="Inspect AI's `inspect` executable (default: on PATH)")
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    case_set = load_case_set(REPO / "cases")
    cases = [(c.case_id, assistant.user_message(compact_text(c.snapshot.text)))
             for c in case_set.cases if c.snapshot is not None]
    ideal = math.ceil(len(cases) / args.concurrency) * latency
    wanted = [t.strip() for t in args.tools.split(",") if t.strip()]

    with tempfile.TemporaryDirectory(prefix="bench-tools-") as tmp, \
            AnyClientAPI(api_key=KEY, default=slow_answer(findings_json("summary.no_material_issues"), latency)) as api:
        root = Path(tmp)
        tools: list[Tool] = []
        for name in wanted:
            (root / name).mkdir()
            if name == "reviewtui":
                tools.append(Reviewtui(root / name, api, args.concurrency))
            elif name == "promptfoo":
                binary = found(args.promptfoo, "promptfoo")
                if binary is None:
                    print("promptfoo: not found (--promptfoo PATH); skipped")
                    continue
                tools.append(Promptfoo(root / name, api, args.concurrency, binary, args.node_dir, cases))
            elif name == "inspect":
                binary = found(args.inspect, "inspect")
                if binary is None:
                    print("inspect: not found (--inspect PATH); skipped")
                    continue
                tools.append(Inspect(root / name, api, args.concurrency, binary, cases))
            else:
                parser.error(f"unknown tool {name!r}; use {', '.join(TOOLS)}")
        for tool in tools:  # one untimed run each: caches of the case set, node's and Python's compiled files
            tool.fresh()
            first = tool.run()
            print(f"{tool.name}: first run {first.wall:.2f} s, {first.requests} requests, exit {first.code} (untimed)")
        cold: dict[str, list[Timing]] = {t.name: [] for t in tools}
        warm: dict[str, list[Timing]] = {t.name: [] for t in tools}
        sdk: list[float] = []  # the floor of a claude run's start-up on this machine, in this sitting
        for _ in range(args.runs):
            started = time.monotonic()
            subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
            sdk.append(time.monotonic() - started)
            for tool in tools:
                tool.fresh()
                cold[tool.name].append(tool.run())
            for tool in tools:
                warm[tool.name].append(tool.run())

    print(f"\n{len(cases)} requests at {args.latency_ms:g} ms, concurrency {args.concurrency}; ideal request phase "
          f"{ideal:.2f} s (ceil({len(cases)}/{args.concurrency}) x {latency:g} s); medians of {args.runs} runs")
    header = ("tool", "cold wall", "start->1st request", "request phase", "vs ideal", "last answer->exit",
              "CPU", "peak RSS", "warm rerun", "warm requests")
    print(" | ".join(header))
    for tool in tools:
        c, w = cold[tool.name], warm[tool.name]
        spans = [t.span for t in c]
        ratio = [s / ideal for s in spans if s is not None]
        print(" | ".join((tool.name, fmt([t.wall for t in c]), fmt([t.start for t in c]), fmt(spans),
                          f"{statistics.median(ratio):.2f}x" if ratio else "-", fmt([t.tail for t in c]),
                          fmt([t.cpu for t in c]), fmt([t.peak_mb for t in c], " MB", 0), fmt([t.wall for t in w]),
                          str(max(t.requests for t in w)))))
        print(f"    runs: cold {', '.join(f'{t.wall:.2f}' for t in c)}; warm {', '.join(f'{t.wall:.2f}' for t in w)}; "
              f"request phase {', '.join(f'{s:.2f}' for s in spans if s is not None)}; "
              f"requests {sorted({t.requests for t in c})}; exit codes {sorted({t.code for t in c + w})}")
    print(f"python -c 'import anthropic' (a whole process, the SDK import alone): median {statistics.median(sdk):.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in sdk)})")
    if "reviewtui" in cold:
        starts = [t.start for t in cold["reviewtui"] if t.start is not None]
        if starts:
            print(f"reviewtui start to first request beyond that: {statistics.median(starts) - statistics.median(sdk):.2f} s")
    if "reviewtui" in cold and len(cold) > 1:
        ours = statistics.median(t.wall for t in cold["reviewtui"])
        ours_warm = statistics.median(t.wall for t in warm["reviewtui"])
        for name in cold:
            if name != "reviewtui":
                theirs = statistics.median(t.wall for t in cold[name])
                theirs_warm = statistics.median(t.wall for t in warm[name])
                print(f"cold wall: {name} {theirs:.2f} s / reviewtui {ours:.2f} s = {theirs / ours:.2f}x; "
                      f"warm rerun {theirs_warm / ours_warm:.2f}x")


if __name__ == "__main__":
    main()
