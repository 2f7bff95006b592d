"""Recording a run as it happens: the prompt guard first, each case as it lands, the CSV and manifest at the end.

The CSV and the manifest are written atomically in ``RunRecorder.finish``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..backends.base import CaseOutput
from ..caseset.cases import Case
from .files import ResultsError, RunPaths
from .manifest import build_manifest, check_prompt_guard, write_manifest
from .records import CaseRecord, read_case_record, score_record, write_case_record, write_csv
from .runner import Progress, redact_secrets
from .usage import add_kept_usage, usage_of


class RunRecorder:
    """Writes a run to disk as it happens: the guard first, each case as it lands, the rest at the end.

    Synchronous on purpose: ``finish`` must work after a KeyboardInterrupt has
    torn down the event loop.
    """

    def __init__(self, paths: RunPaths, header: dict[str, Any], cases: list[Case], *, figures: str,
                 repeats: int = 1) -> None:
        self.paths = paths
        self.header = header
        self.cases = {c.case_id: c for c in cases}
        self.figures = figures
        self.repeats = repeats
        self.previous = check_prompt_guard(paths, header["prompt_sha256"])
        self.outputs: dict[str, dict[int, CaseOutput]] = {}
        self.records: dict[str, CaseRecord] = {}
        self.progress: Progress | None = None
        self.on_record: Callable[[CaseRecord], None] | None = None
        self.kept_outputs: list[CaseOutput] = []  # answers a resumed run took from the interrupted one
        self.score: Callable[..., CaseRecord] = score_record  # a run from the API scores in a worker process (runs.scoring_pool)

    def start(self) -> None:
        """Clear the previous run of this version (its case files) and mark this one running."""
        self.paths.cases_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.paths.cases_dir.glob("*.json"):
            stale.unlink()
        write_manifest(self.paths, {**self.header, "status": "running"})

    def resume(self) -> list[str]:
        """Like ``start``, but keep the cases the previous run of this version finished.

        Kept only from a run with the same prompt text (the guard), backend,
        model and figures mode, and only cases whose every repeat came back
        (an API error is asked again). Their stored outputs are scored again
        against the current cases, so no backend call is made for them.
        Returns the ids of the cases kept.
        """
        kept: dict[str, list[CaseOutput]] = {}
        same_run = self.previous is not None and all(
            self.previous.get(key) == self.header.get(key) for key in ("backend", "model", "figures"))
        if same_run:
            for path in sorted(self.paths.cases_dir.glob("*.json")):
                try:
                    record = read_case_record(path)
                except ResultsError:
                    continue  # unreadable: run the case again
                if record.case_id in self.cases and record.obtained and record.runs >= self.repeats:
                    kept[record.case_id] = record.outputs[: self.repeats]
        self.start()
        for case_id, outputs in kept.items():
            for repeat, output in enumerate(outputs):
                self.case_done(self.cases[case_id], output, repeat)
                self.kept_outputs.append(output)
        return sorted(kept)

    def pending_cases(self) -> list[Case]:
        """The cases still to run: all of them, unless ``resume`` kept some."""
        return [case for case_id, case in self.cases.items() if len(self.outputs.get(case_id, {})) < self.repeats]

    def case_done(self, case: Case, output: CaseOutput, repeat: int) -> None:
        if output.error is not None:
            output.error = redact_secrets(output.error)
        self.outputs.setdefault(case.case_id, {})[repeat] = output
        got = self.outputs[case.case_id]
        record = self.score(case, [got[r] for r in sorted(got)], figures=self.figures)
        self.records[case.case_id] = record
        write_case_record(self.paths, record)
        if self.on_record is not None:
            self.on_record(record)

    def set_progress(self, progress: Progress) -> None:
        self.progress = progress

    def finish(self, status: str) -> dict[str, Any]:
        """Write the CSV and the final manifest; returns the manifest."""
        records = [self.records[i] for i in sorted(self.records)]
        not_run = [case.case_id for case in self.pending_cases()]
        if status == "complete" and any(not r.obtained for r in records):
            status = "incomplete"
        if status == "complete" and not_run:
            status = "cancelled"
        usage = add_kept_usage(usage_of(self.progress), self.kept_outputs)
        manifest = build_manifest(self.header, records, status=status, not_run=not_run,
                                  usage=usage, cases_total=len(self.cases))
        write_csv(self.paths, records)
        write_manifest(self.paths, manifest)
        return manifest
