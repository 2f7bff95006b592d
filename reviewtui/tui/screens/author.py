"""The author screen: the write-up, the snapshot and the expectations of one case.

Left, the write-up with a sentence cursor and, below it, the expectations
and the live validation. Right, the snapshot, one tab per section. Keys
``1`` / ``2`` / ``3`` tag the current sentence and the marked rows as
must_find / may_find / must_not_say; ``d`` disputes the sentence (or reopens
a disputed one); ``ctrl+s`` saves expected.yaml through the round-trip API.

expected.yaml loads at once. A snapshot.json of up to ``LOAD_IN_WORKER_BYTES``
(every case in the set is under 60 KB) is parsed while the screen is built,
a few milliseconds, so the tables are in the screen's first frame; a larger
one (a 100,000-row snapshot is about 15 MB) loads in a worker while the
write-up and the expectations are already usable.

What the keys do to the files (tags, disputes, undo, saving, the external-change
guard) is the case's ``AuthoringSession`` (reviewtui/authoring/session.py); the
screen turns keys into its calls and shows the result.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from ...caseset import disputes
from ...authoring.session import AuthoringSession
from ...caseset.cases import Case, CaseFileError, ExternalChangeError, Problem
from ...caseset.daily_rows import daily_rows
from ...authoring.drafts import DisputeDraft, TagDraft
from ...authoring.history import History, StepRefused
from ...caseset.snapshot import Snapshot, SnapshotError
from ...caseset.writeup import Writeup
from ..messages import CaseSaved, SnapshotFailed, SnapshotLoaded, ValidationDone
from ..plain import safe
from ...authoring.snapshot_sections import snapshot_sections
from ...authoring.support_checks import CheckToken
from ..widgets.expectations import ExpectationList, entry_key
from ..widgets.snapshot_panel import SnapshotPanel
from ..widgets.virtual_table import VirtualTable
from ..widgets.writeup_view import WriteupView
from .base import ReviewScreen
from .dialogs import ConfirmModal
from .dispute import DisputeModal
from .help import KeysFooter, register_help
from .tag import TagModal

# Up to this size snapshot.json is parsed on the spot (about 12 ms per MB here): building the screen once
# with its tables costs far less than building it, then mounting the tables in a second layout pass.
LOAD_IN_WORKER_BYTES = 1_000_000
ENTRY_REF = re.compile(r"^(must_find|may_find|must_not_say)\[(\d+)\]")


def problem_entry_key(problem: Problem) -> str | None:
    m = ENTRY_REF.match(problem.message)
    return entry_key(m.group(1), int(m.group(2))) if m else None


TAG_KEYS = Binding.Group("Tag must/may/not")  # the footer shows "1 2 3 Tag must/may/not"; help lists each key


class AuthorScreen(ReviewScreen[None]):
    # The footer must keep esc, ? and the view keys on screen at 160 columns even with the snapshot
    # table focused (its keys come first): the tag keys share one label, undo and redo are in the help only.
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("1", "tag('must_find')", "Tag must_find", group=TAG_KEYS),
        Binding("2", "tag('may_find')", "Tag may_find", group=TAG_KEYS),
        Binding("3", "tag('must_not_say')", "Tag must_not_say", group=TAG_KEYS),
        Binding("d", "dispute", "Dispute", tooltip="Dispute / reopen"),
        Binding("ctrl+z", "undo", "Undo", show=False),
        Binding("ctrl+y", "redo", "Redo", show=False),
        Binding("w", "focus('writeup')", "Write-up", show=False),
        Binding("x", "focus('expectations')", "Expectations", show=False),
        Binding("t", "focus_table", "Table", show=False),
        # Back to wherever the case was opened from: the cases view, a case review, the runs view.
        Binding("escape", "leave", "Back"),
    ]
    # Below 120 columns (KeysFooter): the tag keys' label shortened, so that ? Help stays on an 80-column
    # screen with the snapshot table or the expectations focused.
    FOOTER_COMPACT = {"tag('must_find')": "Tag"}

    def __init__(self, case_dir: Path) -> None:
        super().__init__()  # no id from the folder name: a space, an accent or a bracket is no widget id
        self.session = AuthoringSession(case_dir)
        self.snapshot: Snapshot | None = None
        self.panel: SnapshotPanel | None = None
        self.problems: list[Problem] = []
        self.support_problems: list[Problem] = []
        self._validation = 0
        self.snapshot_seconds: float | None = None
        self._pending_rows: list[str] | None = None  # rows to show once the snapshot has loaded
        self._rows_from_outside = False  # rows shown for a case review, not for an entry of the list
        self._support_token: CheckToken | None = None  # the support check asked for last
        self._tables: list | None = None  # the snapshot's sections, when parsed here rather than in the worker
        if self._snapshot_size() <= LOAD_IN_WORKER_BYTES:
            self._load_now()

    @property
    def case(self) -> Case:
        return self.session.case

    @property
    def history(self) -> History:
        return self.session.history

    @property
    def writeup(self) -> Writeup | None:
        return self.session.writeup

    @property
    def dirty(self) -> bool:
        return self.session.dirty

    def _snapshot_size(self) -> int:
        path = self.case.snapshot_path
        return path.stat().st_size if path.exists() else 0

    def _load_now(self) -> None:
        """Parse a small snapshot.json here; on any problem leave it to the worker, which reports it."""
        started = time.perf_counter()
        try:
            snapshot = self.app.loaded_snapshot(self.case.snapshot_path) or Snapshot.load(self.case.snapshot_path)
        except SnapshotError:
            return
        if not isinstance(snapshot.data, dict):
            return
        self._tables = snapshot_sections(snapshot.data)
        self.snapshot = self.case.snapshot = snapshot
        self.snapshot_seconds = time.perf_counter() - started

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="author-title")
        with Horizontal(id="author-body"):
            with Vertical(id="author-left"):
                notes = f"Notes: {self.case.notes}\n\n" if self.case.notes else ""
                yield WriteupView(self.writeup, notes + self.session.writeup_problem + self.session.no_writeup_text(), id="writeup")
                yield ExpectationList(id="expectations")
                with VerticalScroll(id="problems-box"):
                    yield Static("", id="problems")
            with Vertical(id="author-right"):
                if self.snapshot is not None and self._tables is not None:
                    self.panel = self._new_panel(self.snapshot, self._tables)
                    yield self.panel
                else:
                    yield Static(f"Loading snapshot.json ({self._snapshot_size() / 1e6:.1f} MB)…", id="snapshot-loading")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.after_edit()  # validates, with the snapshot when it was parsed here
        self.query_one("#writeup" if self.writeup else "#expectations").focus()
        if self.panel is not None:
            self._highlight_current_entry()
            self._show_pending_rows()
            return
        # Parsing JSON holds the interpreter lock: start it once the write-up and the expectations are on
        # screen, so a large snapshot does not hold back the screen's first frame.
        self.call_after_refresh(self.load_snapshot)

    @staticmethod
    def _new_panel(snapshot: Snapshot, tables: list) -> SnapshotPanel:
        campaigns = {cid: str(c.get("name") or "") for cid, c in sorted(snapshot.campaigns.items())}
        return SnapshotPanel(tables, campaigns, id="snapshot")

    # -- snapshot loading ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="snapshot")
    def load_snapshot(self) -> None:
        started = time.perf_counter()
        try:
            snapshot = self.app.loaded_snapshot(self.case.snapshot_path) or Snapshot.load(self.case.snapshot_path)
        except SnapshotError as exc:
            self.post_message(SnapshotFailed(Problem(exc.path, exc.line, exc.message)))
            return
        tables = snapshot_sections(snapshot.data) if isinstance(snapshot.data, dict) else []
        if isinstance(snapshot.data, dict):
            # Cached scans of every daily row (the campaign filter's; the validation's reading of the rows):
            # done here, not on the UI thread
            _ = snapshot.campaigns
            daily_rows(snapshot.data)
        self.post_message(SnapshotLoaded(snapshot, tables, time.perf_counter() - started))

    async def on_snapshot_loaded(self, message: SnapshotLoaded) -> None:
        self.snapshot = self.case.snapshot = message.snapshot
        self.snapshot_seconds = message.seconds
        self.panel = self._new_panel(message.snapshot, message.tables)
        right = self.query_one("#author-right")
        await right.query("#snapshot-loading, #snapshot").remove()  # the placeholder, or the panel of an earlier load
        await right.mount(self.panel)
        self.validate()
        self._highlight_current_entry()
        self._show_pending_rows()

    def on_snapshot_failed(self, message: SnapshotFailed) -> None:
        self.query_one("#snapshot-loading", Static).update(Text(f"Cannot read the snapshot:\n{message.problem}", style="red"))

    # -- state shown on screen ---------------------------------------------------------

    def after_edit(self, select: tuple[str, int] | None = None) -> None:
        """Redraw everything that depends on the entries (the session has re-read them)."""
        self.validate()
        if select is not None:
            self.query_one(ExpectationList).select_key(entry_key(*select))
        self.refresh_marks()
        self._update_title()

    def _update_title(self) -> None:
        title = Text()
        title.append(self.case.case_id, style="bold")
        title.append(f"  [{self.case.kind}]", style="dim")
        title.append(f"  {self.case.source or 'no write-up'}", style="dim")
        if self.dirty:
            title.append("  ● unsaved (ctrl+s saves)", style="bold yellow")
        if self.panel is not None and self.panel.marks:
            count = len(self.panel.marks)
            title.append(f"  {count} row{'s' if count != 1 else ''} marked", style="cyan")
        self.query_one("#author-title", Static).update(safe(title, one_line=True))

    def refresh_marks(self) -> None:
        """Mark the write-up's tagged and disputed sentences."""
        if self.writeup is None:
            return
        try:
            found = self.session.writeup_disputes()
        except disputes.DisputeFileError as exc:
            self._disputes_not_shown(exc)
            found = []
        self.query_one(WriteupView).set_marks(self.session.tagged_sentences(), self.session.disputed_sentences(found))

    def _disputes_not_shown(self, exc: disputes.DisputeFileError) -> None:
        self.notify(f"Disputes not shown: {exc}", severity="error", timeout=10)

    # -- live validation -----------------------------------------------------------------

    def validate(self) -> None:
        """Structural checks now (they are quick); the support check of must_find ids in a worker."""
        self.problems = self.session.problems()
        self._validation += 1
        self._show_problems()
        if self.snapshot is not None:
            self.check_support(self._validation, self.session.support_entries())

    def check_support(self, generation: int, entries: list[tuple[int, str, int]]) -> None:
        """Ask for the verdicts in a worker. The request before this one is withdrawn, but a check it has
        under way runs on: it is of the same snapshot, and this request reads its verdict."""
        if self._support_token is not None:
            self.app.support_checks.cancel(self._support_token, stop=False)
        self._support_token = token = CheckToken()
        self._check_support(generation, entries, token)

    @work(thread=True, group="validate")
    def _check_support(self, generation: int, entries: list[tuple[int, str, int]], token: CheckToken) -> None:
        found = self.app.support_checks.verdicts(self.snapshot, [finding_id for _, finding_id, _ in entries], token)
        if found is None:
            return  # withdrawn: a newer validation or the screen closing
        verdicts = {finding_id: found[finding_id] for _, finding_id, _ in entries}
        self.post_message(ValidationDone(generation, self.session.support_problems(entries, verdicts), verdicts))

    def on_unmount(self) -> None:
        if self._support_token is not None:
            self.app.support_checks.cancel(self._support_token)  # nobody will read it

    def on_validation_done(self, message: ValidationDone) -> None:
        if message.generation == self._validation:
            self.support_problems = message.problems
            self._show_problems()

    def _show_problems(self) -> None:
        problems = self.problems + self.support_problems
        counts: dict[str, int] = {}
        for problem in problems:
            if (key := problem_entry_key(problem)) is not None:
                counts[key] = counts.get(key, 0) + 1
        self.query_one(ExpectationList).show_case(self.case, counts)
        text = Text()
        if not problems:
            text.append("✓ no problems", style="green")
        for problem in problems:
            style = "red" if problem.severity == "error" else "yellow"
            text.append(f"{problem.path.name}:{problem.line}: ", style="dim")
            text.append(problem.message + "\n", style=style)
        self.query_one("#problems", Static).update(safe(text))

    # -- selection -------------------------------------------------------------------------

    def on_expectation_list_entry_highlighted(self, message: ExpectationList.EntryHighlighted) -> None:
        if message.automatic and self._rows_from_outside:
            return  # the rows a case review asked for stay lit until the user picks an entry
        self._highlight_entry(message.list_name, message.index)

    def _highlight_current_entry(self) -> None:
        key = self.query_one(ExpectationList).current_key
        if key is not None:
            list_name, _, index = key.partition(":")
            self._highlight_entry(list_name, int(index))

    def _highlight_entry(self, list_name: str, index: int) -> None:
        entries = self.case.expectations(list_name)
        if index >= len(entries):
            return
        entry = entries[index]
        if self.panel is not None:
            self.panel.set_highlights(entry.rows)
        if self.writeup is not None and entry.claim and (sentence := self.writeup.find(entry.claim)):
            self.query_one(WriteupView).move_to(sentence.index)

    def select_expectation(self, list_name: str, index: int) -> None:
        """Used by the command palette."""
        expectations = self.query_one(ExpectationList)
        expectations.focus()
        expectations.select_key(entry_key(list_name, index))

    def go_to_pointer(self, pointer: str) -> bool:
        """Used by the command palette: show the row, cursor on it."""
        return self.panel is not None and self.panel.jump_to(pointer, focus=True)

    def show_rows(self, pointers: list[str]) -> None:
        """Highlight these snapshot rows with the cursor on the first, now or once the snapshot
        has loaded. Used by the case review to jump from evidence or a figure."""
        self._pending_rows = list(pointers)
        self._rows_from_outside = True
        self._show_pending_rows()

    def _show_pending_rows(self) -> None:
        pointers = self._pending_rows
        if self.panel is None or not pointers:
            return
        self._pending_rows = None
        self.panel.set_highlights(pointers)
        self.go_to_pointer(pointers[0])

    def on_snapshot_panel_marks_changed(self, message: SnapshotPanel.MarksChanged) -> None:
        self._update_title()

    # -- tagging --------------------------------------------------------------------------

    def _campaigns(self) -> dict[str, str]:
        return self.panel.campaigns if self.panel is not None else {}

    def _tag_modal(self, draft: TagDraft, title: str, skip: tuple[str, int] | None = None) -> TagModal:
        return TagModal(
            draft,
            title=title,
            campaigns=self._campaigns(),
            snapshot=self.snapshot,
            taken_ids=self.session.taken_ids(skip),
            support_check=self.app.support_checks.verdict,
        )

    def action_tag(self, list_name: str) -> None:
        sentence = self.query_one(WriteupView).sentence
        rows = self.panel.marked_rows() if self.panel is not None else []
        draft = TagDraft(
            list_name=list_name,
            evidence=" ".join(sentence.plain.split()) if sentence else "",
            rows=rows,
            claim=sentence.text if sentence else None,
        )
        what = "the current sentence" if sentence else "rows alone"
        self.app.push_screen(self._tag_modal(draft, f"Tag {what} as {list_name}"), self._tag_added)

    def _tag_added(self, draft: TagDraft | None) -> None:
        if draft is None:
            return
        index = self.session.add(draft.list_name, draft.entry())
        if self.panel is not None:
            self.panel.clear_marks()
        self.after_edit(select=(draft.list_name, index))
        self.notify(f"Added {draft.id} to {draft.list_name} (ctrl+s saves, ctrl+z undoes)")

    def on_expectation_list_delete_requested(self, message: ExpectationList.DeleteRequested) -> None:
        removed = self.session.remove(message.list_name, message.index)
        self.after_edit()
        self.notify(f"Deleted {removed.get('id')} from {message.list_name} (ctrl+z undoes)")

    def on_expectation_list_edit_requested(self, message: ExpectationList.EditRequested) -> None:
        where = (message.list_name, message.index)
        draft = TagDraft.from_entry(message.list_name, self.session.entry(*where))

        def edited(result: TagDraft | None) -> None:
            if result is not None:
                self.after_edit(select=self.session.replace(*where, result.entry(), new_list=result.list_name))

        self.app.push_screen(self._tag_modal(draft, f"Edit {draft.id}", skip=where), edited)

    def action_undo(self) -> None:
        self._step(self.session.undo, "Undid", "Nothing to undo")

    def action_redo(self) -> None:
        self._step(self.session.redo, "Redid", "Nothing to redo")

    def _step(self, step, done: str, nothing: str) -> None:
        try:
            label = step()
        except (OSError, StepRefused) as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.after_edit()
        self.notify(f"{done}: {label}" if label else nothing)

    # -- disputes ---------------------------------------------------------------------------

    def action_dispute(self) -> None:
        sentence = self.query_one(WriteupView).sentence
        if sentence is None or not self.case.source:
            self.notify("This case has no write-up sentence to dispute", severity="warning")
            return
        try:
            existing = self.session.dispute_of(sentence)
        except disputes.DisputeFileError as exc:
            self._disputes_not_shown(exc)
            existing = None
        if existing is not None:
            self._ask_reopen(existing)
            return
        if (why_not := disputes.not_a_claim(sentence.text)) is not None:
            self.notify(f"Not disputed: {why_not}. Move to the sentence that makes the claim.", severity="warning")
            return
        rows = self.panel.marked_rows() if self.panel is not None else []
        added: list[disputes.Dispute] = []

        def submit(draft: DisputeDraft) -> str | None:
            """Write the entry; the modal (and what was typed in it) stays until this succeeds."""
            try:
                added.append(self.session.dispute(sentence.text, rows_show=draft.rows_show, rows=draft.rows, why=draft.why))
            except (OSError, ValueError, disputes.DisputeFileError) as exc:
                return f"disputed.md not changed: {exc}"
            return None

        def done(draft: DisputeDraft | None) -> None:
            if draft is None or not added:
                return
            if self.panel is not None:
                self.panel.clear_marks()
            self.refresh_marks()
            self.notify(f"{added[0].id} added to disputed.md (ctrl+z undoes)")

        modal = DisputeModal(quote=sentence.text, case_id=self.case.case_id, writeup=self.case.source, rows=rows, submit=submit)
        self.app.push_screen(modal, done)

    def _ask_reopen(self, existing: disputes.Dispute) -> None:
        def answer(choice: str | None) -> None:
            if choice != "o":
                return
            try:
                self.session.reopen(existing.id)
            except (OSError, disputes.DisputeFileError) as exc:
                self.notify(str(exc), severity="error", timeout=8)
                return
            self.refresh_marks()
            self.notify(f"{existing.id} reopened: its entry is gone from disputed.md (ctrl+z undoes)")

        self.app.push_screen(
            ConfirmModal(f"{existing.id} is disputed", f"> {existing.quote}\n\nReopen it? Its entry is removed from disputed.md.",
                         [("o", "Reopen"), ("c", "Keep it disputed")]),
            answer,
        )

    # -- saving -------------------------------------------------------------------------------

    def save(self) -> bool:
        """Save expected.yaml; on an external change, ask what to do and return False."""
        try:
            self.session.save()
        except ExternalChangeError:
            self._ask_external_change()
            return False
        except OSError as exc:
            self.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return False
        self._update_title()
        self.app.post_message(CaseSaved(self.case.case_id))
        self.notify(f"Saved {self.case.case_id}/expected.yaml")
        return True

    def action_save(self) -> None:
        self.save()

    def _ask_external_change(self) -> None:
        def answer(choice: str | None) -> None:
            if choice == "k":
                self.keep_both()
            elif choice == "r" and self.reload_from_disk():
                self.notify("Reloaded expected.yaml from disk; your edits were dropped")

        self.app.push_screen(
            ConfirmModal(
                "expected.yaml changed on disk",
                f"{self.case.case_id}/expected.yaml was changed by someone else since you opened it; "
                "saving would overwrite their change. Keep both writes yours to a new expected.yaml.mine file "
                "(numbered if one exists) and shows theirs.",
                [("r", "Reload theirs (drop mine)"), ("k", "Keep both"), ("c", "Cancel")],
            ),
            answer,
        )

    def keep_both(self) -> None:
        """Write our version to a new .mine file (never over an earlier one), then show the file on disk."""
        try:
            written, not_reloaded = self.session.keep_both()
        except OSError as exc:
            self.notify(f"Could not write {self.session.mine_path.name}: {exc}; your edits are still here", severity="error", timeout=10)
            return
        if not_reloaded is not None:
            self._not_reloaded(not_reloaded)
            self.notify(f"Your version is also in {self.case.case_id}/{written.name}.", timeout=15)
            return
        self.after_edit()
        self.notify(f"Your version is in {self.case.case_id}/{written.name}; the editor now shows the file on disk. "
                        f"Merge by hand, then delete {written.name}.", timeout=15)

    def reload_from_disk(self) -> bool:
        """Show expected.yaml as it is on disk. A file that does not parse is not loaded: the error
        is shown and the edits stay (returns False)."""
        try:
            self.session.reload()
        except CaseFileError as exc:
            self._not_reloaded(exc)
            return False
        self.after_edit()
        return True

    def _not_reloaded(self, exc: CaseFileError) -> None:
        self.notify(f"Not reloaded, your edits are kept: {exc}", title="expected.yaml on disk does not parse",
                    severity="error", timeout=15)

    # -- leaving ---------------------------------------------------------------------------------

    def confirm_discard(self, verb: str, then) -> None:
        """Run ``then()`` now if nothing is unsaved, else after the user saves or discards."""
        if not self.dirty:
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "s" and self.save() or choice == "d":
                then()

        self.app.push_screen(
            ConfirmModal("Unsaved changes", f"{self.case.case_id}/expected.yaml has unsaved changes.",
                         [("s", f"Save and {verb}"), ("d", f"Discard and {verb}"), ("c", "Cancel")]),
            answer,
        )

    def action_leave(self) -> None:
        self.confirm_discard("leave", self.app.pop_screen)

    async def action_focus(self, widget_id: str) -> None:
        self.query_one(f"#{widget_id}").focus()

    def action_focus_table(self) -> None:
        if self.panel is not None and self.panel.active_table is not None:
            self.panel.active_table.focus()


register_help("Author screen", AuthorScreen)
register_help("Write-up", WriteupView)
register_help("Expectations", ExpectationList)
register_help("Snapshot", SnapshotPanel)
register_help("Snapshot table", VirtualTable)
register_help("Tag modal", TagModal, also=[("tab", "Next field"), ("enter", "Save entry (in a field)")])
register_help("Dispute modal", DisputeModal, also=[("tab", "Next field"), ("enter", "Next field; in the last, add")])
