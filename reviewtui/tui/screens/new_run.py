"""Start (or resume) a run from the app: a form, then live progress and the cases as they land.

The run is ``runs/session.run_eval``, the same run as ``reviewtui eval``,
executed in a thread worker with its own event loop so scoring and a large
snapshot never freeze the screen. Progress and finished cases come back as
messages. ``escape`` cancels: what finished is kept on disk (the run is
marked cancelled, no verdict). Starting again with "resume" ticked runs
only the cases not finished yet; the claude backend's response cache also
answers any request it has seen before without a paid call.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from ... import assistant
from ...backends import BACKEND_NAMES, Backend, BackendUsageError
from ...runs.identity import results_home_of
from ...runs.result_files import ResultsError, RunPaths
from ...runs.manifest import read_manifest
from ...runs.case_records import CaseRecord
from ...runs.runner import Progress, redact_secrets
from ...runs.session import make_backend, run_eval
from ...runs.settings import DEFAULT_CONCURRENCY, RunSettings, SettingsError, UsageError
from ...runs.stored_runs import Run, run_info
from ...caseset.cases import Problem
from ...runs.validation import validate
from ..messages import RecordLanded, RunEnded, RunProgressed
from ..commands import run_verdict
from ..plain import para
from ..widgets.review.case_table import ReviewCaseTable
from ..widgets.review.run_header import verdict_text
from ..widgets.review.run_progress import RunProgress
from .base import ReviewScreen
from .dialogs import ConfirmModal
from .help import register_help


BackendFactory = Callable[[RunSettings], Backend]
TABLE_REFRESH_SECONDS = 0.25  # how often the live case table catches up with the cases that landed

# The form's name of each setting it has a field for, in its problem sentences.
FIELD_LABELS = {"backend": "Backend", "model": "Model", "concurrency": "Concurrency", "cases_dir": "Cases",
                "replay_dir": "Replay dir", "resume": "Resume"}


HOW_TO_START = "enter or ctrl+r starts the run; escape cancels it and keeps what finished"


def case_set_refusal(problems: list[Problem]) -> str | None:
    """Why a case set with errors is not run (the first error named), or None when it can run."""
    errors = [p for p in problems if p.severity == "error"]
    if not errors:
        return None
    return f"The case set has {len(errors)} problem(s); nothing ran. First: {errors[0]} (reviewtui check lists them all)"


def backend_from_settings(settings: RunSettings) -> Backend:
    """Build the backend the way ``reviewtui eval`` does. Raises UsageError with a one-line reason."""
    name, _why = settings.chosen_backend()
    return make_backend(name, settings)


class NewRunScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("ctrl+r", "start", "Start / resume"),
        Binding("ctrl+o", "open_run", "Open run view"),
        Binding("escape", "cancel_or_back", "Cancel run / back"),
    ]
    DEFAULT_CSS = """
    NewRunScreen #new-run-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    NewRunScreen #new-run-form { grid-size: 3; grid-columns: 13 32 1fr; grid-rows: auto; grid-gutter: 0 1;
                                 height: auto; padding: 1 1 0 1; }
    NewRunScreen #new-run-form Label { color: $text-muted; }
    NewRunScreen #new-run-form .note { color: $text-muted; text-style: italic; }
    NewRunScreen Input { border: none; height: 1; padding: 0 1; background: $boost; }
    NewRunScreen Input:focus { border: none; background: $primary 30%; }
    NewRunScreen Select { height: 1; }
    NewRunScreen SelectCurrent { border: none; height: 1; padding: 0 1; background: $boost; }
    NewRunScreen Select:focus > SelectCurrent { border: none; background: $primary 30%; }
    NewRunScreen #new-run-options { height: auto; padding: 0 1; }
    NewRunScreen #resume > .toggle--button { color: $panel; }
    NewRunScreen #resume.-on > .toggle--button { color: $success; text-style: bold; }
    NewRunScreen #new-run-buttons { height: auto; padding: 1 1 0 1; }
    NewRunScreen #new-run-buttons Button { margin-right: 2; }
    NewRunScreen #new-run-error { height: auto; padding: 0 1; color: $error; }
    NewRunScreen #new-run-result { height: auto; padding: 0 1; }
    NewRunScreen ReviewCaseTable { height: 1fr; margin-top: 1; }
    """

    def __init__(self, cases_dir: str | Path, results_dir: str | Path) -> None:
        super().__init__()
        self.cases_dir = Path(cases_dir)
        self.results_dir = Path(results_dir)
        self.state = "idle"  # idle | running | cancelling | complete | incomplete | cancelled | failed
        self.records: dict[str, CaseRecord] = {}
        self.progress: Progress | None = None
        self.run: Run | None = None
        self.run_cases_dir = self.cases_dir  # the case folder of the last run started here
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancel: asyncio.Event | None = None
        self._cancel_requested = threading.Event()
        self._table_stale = False

    # -- the form -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        default_backend, why = self._default_backend()
        yield Static(f"New run of prompt {assistant.PROMPT_VERSION}", id="new-run-title")
        with Grid(id="new-run-form"):
            yield Label("Backend")
            yield Select([(name, name) for name in BACKEND_NAMES], value=default_backend, allow_blank=False,
                         id="backend")
            yield Label(why, classes="note")
            yield Label("Model")
            yield Input(assistant.DEFAULT_MODEL, id="model")
            yield Label(f"claude only; the cheap one is {assistant.CHEAP_MODEL}", classes="note")
            yield Label("Concurrency")
            yield Input(str(DEFAULT_CONCURRENCY), id="concurrency")  # text: "2.5" is refused, not read as 25
            yield Label("cases in flight at once", classes="note")
            yield Label("Cases")
            yield Input(str(self.cases_dir), id="cases")
            yield Label("the case set folder", classes="note")
            yield Label("Replay dir")
            yield Input("", id="replay-dir", placeholder="folder of <case_id>.json")
            yield Label("replay only", classes="note")
        with Vertical(id="new-run-options"):
            resume = self._previous_unfinished()
            yield Checkbox(self._resume_label(resume), value=resume, id="resume", compact=True)
        with Horizontal(id="new-run-buttons"):
            yield Button("Start", id="start", variant="primary", compact=True)
            yield Button("Open run view", id="open-run", disabled=True, compact=True)
        yield Static("", id="new-run-error")
        yield RunProgress(id="new-run-progress")
        yield Static("", id="new-run-result")
        yield ReviewCaseTable(id="new-run-table")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(TABLE_REFRESH_SECONDS, self._refresh_table)
        self.query_one(RunProgress).say(HOW_TO_START)
        self.query_one("#start", Button).focus()

    def _default_backend(self) -> tuple[str, str]:
        return RunSettings().chosen_backend()

    @property
    def _run_paths(self) -> RunPaths:
        """Where a run with the default backend goes: the auditor's runs have their own folder."""
        return self._run_paths_for(self._default_backend()[0])

    def _run_paths_for(self, backend_name: str, replay_dir: Path | None = None) -> RunPaths:
        """Where a run of ``backend_name`` writes. A backend the app was handed (``backend_factory``)
        writes the assistant's place whatever the form says, as ``identity`` documents."""
        if self.app.backend_factory is not None:
            return RunPaths(results_home_of(self.results_dir, None), assistant.PROMPT_VERSION)
        return RunPaths(results_home_of(self.results_dir, backend_name, replay_dir), assistant.PROMPT_VERSION)

    def _previous_unfinished(self) -> bool:
        """Resume by default when the last run of this prompt version did not finish."""
        try:
            manifest = read_manifest(self._run_paths.manifest)
        except ResultsError:
            return False
        return manifest.get("status") != "complete"

    def _resume_label(self, on: bool) -> str:
        # The words carry the state: the box's mark alone looks much the same ticked or not in many terminals.
        if on:
            return (f"Resume: ON · keep the cases the last run of {assistant.PROMPT_VERSION} finished "
                    "(same backend and model), run only the rest")
        return "Resume: OFF · ask every case again (space ticks it)"

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "resume":
            event.checkbox.label = self._resume_label(event.value)

    def read_form(self) -> RunSettings | None:
        """The settings, or None after showing what to fix.

        The values are checked by ``RunSettings`` itself, as for ``reviewtui eval``; the form adds
        that its folders exist, which the command line learns from loading them.
        """
        problems = []
        backend = str(self.query_one("#backend", Select).value)
        try:
            concurrency = int(self.query_one("#concurrency", Input).value)
        except ValueError:
            concurrency = 0  # not a whole number: refused by the settings' own range check
        cases_dir = Path(self.query_one("#cases", Input).value.strip() or str(self.cases_dir))
        replay_text = self.query_one("#replay-dir", Input).value.strip()
        replay_dir = Path(replay_text) if replay_text else None
        settings = None
        try:
            # The model and the replay folder are read by their backend only: the other backends get none.
            settings = RunSettings(backend=backend, cases_dir=cases_dir, results_dir=self.results_dir,
                                   replay_dir=replay_dir if backend == "replay" else None,
                                   model=(self.query_one("#model", Input).value.strip() or None)
                                   if backend == "claude" else None,
                                   concurrency=concurrency, resume=self.query_one("#resume", Checkbox).value)
        except SettingsError as exc:
            problems += [f"{p.sentence(FIELD_LABELS.get(p.setting))}." for p in exc.problems]
        if not cases_dir.is_dir():
            problems.append(f"Cases: folder {cases_dir} not found.")
        if backend == "replay" and (replay_dir is None or not replay_dir.is_dir()):
            problems.append("Replay dir: the replay backend needs a folder of <case_id>.json outputs.")
        self.query_one("#new-run-error", Static).update(para("\n".join(problems)))
        return None if problems else settings

    # -- starting and cancelling --------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "open-run":
            self.action_open_run()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    @property
    def running(self) -> bool:
        return self.state in ("running", "cancelling")

    def action_start(self) -> None:
        if self.running:
            self.notify("A run is already going; escape cancels it", severity="warning")
            return
        settings = self.read_form()
        if settings is None:
            return
        replaced = None if settings.resume else self._run_replaced(settings)
        if replaced is None:
            self._start(settings)
            return
        # A case set with errors runs nothing and so replaces nothing: it is checked before the question.
        self.query_one(RunProgress).say(f"checking the cases in {settings.cases_dir}…")
        self.check_then_ask(settings, replaced)

    @work(thread=True, exclusive=True, group="eval", exit_on_error=False)
    def check_then_ask(self, settings: RunSettings, replaced: str) -> None:
        _case_set, problems = validate(settings.cases_dir)
        refusal = case_set_refusal(problems)
        if refusal is not None:
            self.post_message(RunEnded(None, refusal))
            return
        self.app.call_from_thread(self._ask_replace, settings, replaced)

    def _ask_replace(self, settings: RunSettings, replaced: str) -> None:
        self.query_one(RunProgress).say(HOW_TO_START)
        self.app.push_screen(
            ConfirmModal("Replace a run?", f"{replaced}\n\nStarting without Resume replaces that run: its result "
                         "files are written over. Tick Resume to keep the cases it finished.",
                         [("c", "Keep it (cancel)"), ("r", "Replace it")]),
            lambda choice: self._start(settings) if choice == "r" else None,
        )

    def _run_replaced(self, settings: RunSettings) -> str | None:
        """The run of this prompt version a new run would write over, described; None when there is none."""
        paths = self._run_paths_for(settings.backend or self._default_backend()[0], settings.replay_dir)
        if not paths.manifest.exists():
            return None
        try:
            info = run_info(paths.run_dir, read_manifest(paths.manifest))
        except ResultsError as exc:
            return f"{paths.run_dir} holds a run whose manifest cannot be read: {exc}"
        verdict = run_verdict(info)
        when = (info.date or "?")[:16].replace("T", " ")
        return (f"{paths.run_dir} holds the run of {info.prompt_version}: backend {info.backend or '?'}, "
                f"model {info.model or '–'}, {when}, {verdict}, {info.cases if info.cases is not None else '?'} cases.")

    def _start(self, settings: RunSettings) -> None:
        self.records = {}
        self.progress = None
        self.run = None
        self._cancel_requested.clear()
        self.state = "running"
        self.run_cases_dir = settings.cases_dir
        self.query_one(ReviewCaseTable).show([])
        self.query_one("#new-run-result", Static).update("")
        self.query_one("#open-run", Button).disabled = True
        self.query_one(RunProgress).say(f"starting: loading the cases in {settings.cases_dir}…")
        self.run_in_background(settings)

    def action_cancel_or_back(self) -> None:
        if self.state == "running":
            self.cancel_run()
        elif self.state == "cancelling":
            self.notify("Cancelling: waiting for the cases in flight to stop")
        else:
            self.app.pop_screen()

    def cancel_run(self) -> None:
        """Stop starting cases and abandon those in flight; what finished stays on disk."""
        self.state = "cancelling"
        self._signal_cancel()
        self.query_one(RunProgress).say("cancelling…")

    def _signal_cancel(self) -> None:
        """Set the run's cancel event from the UI thread (the event lives on the worker's loop)."""
        self._cancel_requested.set()
        loop, cancel = self._loop, self._cancel
        if loop is not None and cancel is not None:
            loop.call_soon_threadsafe(cancel.set)

    def on_unmount(self) -> None:
        if self.running:
            self._signal_cancel()  # leaving the screen must not leave a run going

    # -- the worker ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="eval", exit_on_error=False)
    def run_in_background(self, settings: RunSettings) -> None:
        try:
            asyncio.run(self._run(settings))
        except Exception as exc:  # noqa: BLE001 - a bug must end the run visibly, not kill the app
            self.post_message(RunEnded(None, redact_secrets(f"the run failed: {type(exc).__name__}: {exc}")))

    def _post_progress(self, progress: Progress) -> None:  # from the run's thread
        self.post_message(RunProgressed(progress))

    def _post_record(self, record: CaseRecord) -> None:
        self.post_message(RecordLanded(record))

    async def _run(self, settings: RunSettings) -> None:
        # The same validation as `reviewtui check` and `reviewtui eval`: a set they refuse is not run here.
        case_set, problems = validate(settings.cases_dir)
        refusal = case_set_refusal(problems)
        if refusal is not None:
            self.post_message(RunEnded(None, refusal))
            return
        factory: BackendFactory = self.app.backend_factory or backend_from_settings
        try:
            backend = factory(settings)
        except (UsageError, BackendUsageError) as exc:
            self.post_message(RunEnded(None, str(exc)))
            return
        self._cancel = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        if self._cancel_requested.is_set():
            self._cancel.set()
        try:
            run = await run_eval(case_set, backend, settings, cancel=self._cancel,
                                 on_progress=self._post_progress, on_record=self._post_record)
        except (ResultsError, UsageError) as exc:
            self.post_message(RunEnded(None, str(exc)))
            return
        finally:
            self._loop = None
            await backend.aclose()
        self.post_message(RunEnded(run))

    # -- messages back on the UI thread ----------------------------------------------------

    @property
    def kept(self) -> int:
        """Cases kept from the earlier run (they land as records without a progress step)."""
        return max(0, len(self.records) - (self.progress.done if self.progress else 0))

    def on_run_progressed(self, message: RunProgressed) -> None:
        self.progress = message.progress
        self.query_one(RunProgress).show(message.progress, self.state, self.kept)

    def on_record_landed(self, message: RecordLanded) -> None:
        self.records[message.record.case_id] = message.record
        self._table_stale = True  # shown by the next tick, so fifty quick cases do not mean fifty redraws

    def _refresh_table(self) -> None:
        if self._table_stale:
            self._table_stale = False
            self.query_one(ReviewCaseTable).show(sorted(self.records.values(), key=lambda r: r.case_id))

    def on_run_ended(self, message: RunEnded) -> None:
        self._refresh_table()
        if message.run is None:
            self.state = "failed"
            self.query_one(RunProgress).say("not run")
            self.query_one("#new-run-error", Static).update(para(message.error or "the run could not start"))
            return
        self.run = message.run
        if message.run.note:  # nothing ran: the records are the stored run's
            self.records = dict(message.run.records)
            self._table_stale = True
            self._refresh_table()
        manifest = message.run.manifest
        self.state = str(manifest.get("status") or "incomplete")
        progress = self.progress or Progress(0, 0, 0, 0, 0, 0.0)
        self.query_one(RunProgress).show(progress, self.state, self.kept)
        summary = manifest.get("summary") or {}
        mean = summary.get("mean_recall")
        if message.run.note:  # a resume that found nothing to run: the run is shown as it was
            self.query_one(RunProgress).say(message.run.note)
        line = Text.assemble(verdict_text(manifest), f"  {len(self.records)} of {summary.get('cases')} cases scored",
                             f" · mean recall {'n/a' if mean is None else f'{mean:.3f}'}",
                             f" · fabrications {summary.get('fabrications', 0)}")
        if self.state != "complete":
            line.append("  · start again (resume ticked) to finish the rest", style="yellow")
            self.query_one("#resume", Checkbox).value = True
        line.append("  · ctrl+o opens the run view", style="dim")
        self.query_one("#new-run-result", Static).update(line)
        self.query_one("#open-run", Button).disabled = False
        self.query_one("#start", Button).label = "Resume" if self.state != "complete" else "Start"

    def action_open_run(self) -> None:
        if self.run is None:
            self.notify("No run to open yet", severity="warning")
            return
        from .run_review import RunScreen

        self.app.push_screen(RunScreen(self.run.run_dir, self.run_cases_dir))


register_help("New run", NewRunScreen, also=[("enter", "Start (in a field)")])
