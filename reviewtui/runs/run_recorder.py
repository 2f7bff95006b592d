"""Recording a run as it happens: the lock and the prompt guard first, each case as it lands, the record at the end.

The run writes its own folder (``run_folder.RunFolder``: ``<home>/.work/<version>/``)
and takes the place of the version's record only when it ends: the CSV and
the manifest are written, then the folder is swapped in (``finish``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..backends.base import CaseOutput
from ..caseset.cases import Case
from .result_files import ResultsError, RunPaths
from .manifest import build_manifest, check_prompt_guard, write_manifest
from .manifest_fields import Manifest, RunStatus
from ..backends.provenance import snapshot_sha256
from .case_records import CaseRecord, read_case_record, score_record, write_case_record, write_csv
from .run_folder import RunFolder
from .runner import Progress, redact_secrets
from .usage import add_kept_usage, usage_of


class NothingToResume(Exception):
    """A resume found every case of a complete run answered, for the snapshots as they are: the run stays as it is."""


class RunRecorder:
    """Writes a run to disk as it happens: the guard first, each case as it lands, the rest at the end.

    ``paths`` is where the record of the version is (and where it will be once the run ends);
    ``work`` is where this run writes meanwhile. Building a recorder takes the version's
    lock (RunLockedError when another run holds it) and checks the prompt-hash guard under
    it; ``finish`` swaps the run in and releases the lock, ``abandon`` releases it alone.

    Synchronous on purpose: ``finish`` must work after a KeyboardInterrupt has
    torn down the event loop.
    """

    def __init__(self, paths: RunPaths, header: Manifest, cases: list[Case], *, figures: str,
                 repeats: int = 1, top: Path | None = None) -> None:
        self.paths = paths
        self.folder = RunFolder(paths, top=top)
        self.work = self.folder.work
        self.header = header
        self.cases = {c.case_id: c for c in cases}
        self.figures = figures
        self.repeats = repeats
        self.folder.acquire()
        try:
            self.previous = check_prompt_guard(paths, header["prompt_sha256"])
        except BaseException:
            self.folder.release()
            raise
        self.outputs: dict[str, dict[int, CaseOutput]] = {}
        self.records: dict[str, CaseRecord] = {}
        self.progress: Progress | None = None
        self.on_record: Callable[[CaseRecord], None] | None = None
        self.kept_outputs: list[CaseOutput] = []  # answers a resumed run took from the interrupted one
        self.score: Callable[..., CaseRecord] = score_record  # a run from the API scores in a worker process (runs.scoring_pool)
        self.sign: Callable[[Any], None] | None = None  # signs the finished folder (runs/signature.py) before the swap

    def start(self) -> None:
        """Start this run's own folder (empty) and mark it running; the version's record stays as it is."""
        self.folder.start()
        write_manifest(self.work, {**self.header, "status": "running"})

    def resume(self) -> list[str]:
        """Like ``start``, but keep the cases the previous run of this version finished.

        Kept only from a run with the same prompt text (the guard), backend,
        model and figures mode, and only cases whose every repeat came back
        (an API error is asked again) for the snapshot as it is now (a case
        whose snapshot changed since is asked again). Their stored outputs are
        scored again against the current cases, so no backend call is made for
        them. Returns the ids of the cases kept.

        Raises NothingToResume (and releases the lock), before anything is
        written, when the previous run is complete and every case would be
        kept: there is nothing to run, and the run stays as it is, verdict and all.
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
                case = self.cases.get(record.case_id)
                if case is None or not record.obtained or record.runs < self.repeats:
                    continue
                outputs = record.outputs[: self.repeats]
                current = snapshot_sha256(case)
                if all(o.snapshot_sha256 == current for o in outputs):
                    kept[record.case_id] = outputs
        if len(kept) == len(self.cases) and (self.previous or {}).get("status") == "complete":
            self.folder.release()
            raise NothingToResume(f"nothing to resume: the run of {self.paths.version} in {self.paths.run_dir} is "
                                  f"complete, every case answered for its snapshot as it is; it is kept as it is")
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
        if output.snapshot_sha256 is None:  # a new answer: to the snapshot this run read
            output.snapshot_sha256 = snapshot_sha256(case)
        self.outputs.setdefault(case.case_id, {})[repeat] = output
        got = self.outputs[case.case_id]
        record = self.score(case, [got[r] for r in sorted(got)], figures=self.figures)
        self.records[case.case_id] = record
        write_case_record(self.work, record)
        if self.on_record is not None:
            self.on_record(record)

    def set_progress(self, progress: Progress) -> None:
        self.progress = progress

    def finish(self, status: RunStatus) -> Manifest:
        """Write the CSV and the final manifest, swap the run in as the version's record; returns the manifest.

        Whatever fails here (a full disk, a read-only folder) leaves the previous record as it was.
        """
        records = [self.records[i] for i in sorted(self.records)]
        not_run = [case.case_id for case in self.pending_cases()]
        if status == "complete" and any(not r.obtained for r in records):
            status = "incomplete"
        if status == "complete" and not_run:
            status = "cancelled"
        usage = add_kept_usage(usage_of(self.progress), self.kept_outputs)
        manifest = build_manifest(self.header, records, status=status, not_run=not_run,
                                  usage=usage, cases_total=len(self.cases))
        try:
            write_csv(self.work, records)
            write_manifest(self.work, manifest)
            if self.sign is not None:
                self.sign(self.work.run_dir)
            self.folder.swap_in()
        finally:
            self.folder.release()
        return manifest

    def abandon(self) -> None:
        """The run ends without a record (it could not start): the version's record stays, the lock is released."""
        self.folder.release()
