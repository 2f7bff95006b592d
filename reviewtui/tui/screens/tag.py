"""The tag modal: add or edit one expectation (id, scope, evidence, rows, claim, says).

The id field completes from the taxonomy, the scope comes from the
snapshot's campaigns, and the reference auditor's support verdict for the
id is shown (computed in a worker: on a 100,000-row snapshot it may take a
moment, and typing must not wait for it).
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, Select, Static

from ... import taxonomy
from ...caseset.cases import LISTS
from ...authoring.drafts import TagDraft, format_says, parse_rows, parse_says
from ...caseset.snapshot import Snapshot
from ...files.untrusted import printable, unprintable
from ..plain import para, plain
from ...authoring.support_checks import SupportVerdict
from .dialogs import ReviewModal
from .help import KeysFooter


class TagModal(ReviewModal[TagDraft]):
    FORM = "tag"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save entry"),
    ]

    def __init__(
        self,
        draft: TagDraft,
        *,
        title: str,
        campaigns: dict[str, str],
        snapshot: Snapshot | None,
        taken_ids: set[str],
        support_check: Callable[[Snapshot | None, str], SupportVerdict],
    ) -> None:
        super().__init__(classes="tag")
        self.draft = draft
        self.title_text = title
        self.campaigns = campaigns
        self.snapshot = snapshot
        self.taken_ids = taken_ids
        self.support_check = support_check

    def compose(self) -> ComposeResult:
        d = self.draft
        with Vertical(classes="dialog"):
            yield Static(plain(self.title_text), classes="dialog-title")
            with Grid(classes="dialog-form"):
                yield Label("List")
                yield Select([(name, name) for name in LISTS], value=d.list_name, allow_blank=False, id="tag-list")
                yield Label("Kind")
                yield Input(d.kind, placeholder="type; → accepts the completion (tracking.conversions_stopped)", id="tag-kind",
                            suggester=SuggestFromList(taxonomy.kind_ids(), case_sensitive=False))
                yield Static("", id="tag-meaning", classes="hint wide")
                yield Label("Scope")
                options = [(plain(f"{cid}  {name}" if name else cid), cid) for cid, name in self.campaigns.items()]
                if d.scope and d.scope not in self.campaigns:
                    options.append((plain(f"{d.scope}  (not in the snapshot)"), d.scope))
                yield Select(options, prompt="whole account (no scope)", value=d.scope or Select.NULL, id="tag-scope")
                yield Label("Evidence")
                # Inputs draw their value raw: control characters from the file are made visible first.
                yield Input(printable(d.evidence, one_line=True), placeholder="one line with the figures from the rows", id="tag-evidence")
                yield Label("Rows")
                yield Input(", ".join(d.rows), placeholder="JSON Pointers: /daily/212, /daily/213", id="tag-rows")
                yield Label("Claim")
                yield Input(printable(d.claim or "", one_line=True), placeholder="the write-up sentence, verbatim (empty: tagged from rows alone)", id="tag-claim")
                yield Label("Says")
                yield Input(printable(format_says(d.says), one_line=True), placeholder='must_not_say only: regexes ["over-?pac", "overspend"]', id="tag-says")
                yield Static("", id="tag-support", classes="hint wide")
            yield Static("", id="tag-error", classes="error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save entry (ctrl+s)", id="tag-save", variant="primary")
                yield Button("Cancel (esc)", id="tag-cancel")
        yield KeysFooter()  # the modal's own keys; without it the screen below shows the table's

    def on_mount(self) -> None:
        super().on_mount()
        self._describe_kind()
        self._refresh_support()
        self.query_one("#tag-kind", Input).focus()

    # -- live feedback -------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "tag-kind":
            self._describe_kind()
            self._refresh_support()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "tag-scope":
            self._refresh_support()
        elif event.select.id == "tag-list" and getattr(self, "_verdict", None) is not None:
            self._show_support(*self._verdict)  # the same verdict reads differently per list

    def _describe_kind(self) -> None:
        kind = self.query_one("#tag-kind", Input).value.strip()
        meaning = taxonomy.kinds().get(kind)
        completions = [k for k in taxonomy.kind_ids() if kind and k.startswith(kind)]
        if meaning:
            text = meaning.meaning
        elif completions:
            text = f"→ completes to {completions[0]}" + (f" ({len(completions) - 1} more)" if len(completions) > 1 else "")
        else:
            text = "unknown kind: see reviewtui/taxonomy.yaml" if kind else ""
        self.query_one("#tag-meaning", Static).update(text)

    def _current_id(self) -> str:
        kind = self.query_one("#tag-kind", Input).value.strip()
        scope = self.query_one("#tag-scope", Select).value
        return taxonomy.join_id(kind, scope if isinstance(scope, str) else None)

    def _refresh_support(self) -> None:
        finding_id = self._current_id()
        if not taxonomy.is_kind(taxonomy.split_id(finding_id)[0]):
            self.query_one("#tag-support", Static).update("")
            return
        self.query_one("#tag-support", Static).update("reference auditor: checking…")
        self._check_support(finding_id)

    @work(thread=True, exclusive=True, group="support")
    def _check_support(self, finding_id: str) -> None:
        verdict = self.support_check(self.snapshot, finding_id)
        self.app.call_from_thread(self._show_support, finding_id, verdict)

    def _show_support(self, finding_id: str, verdict: SupportVerdict) -> None:
        if finding_id == self._current_id() and self.is_attached:
            self._verdict = (finding_id, verdict)
            text, tone = verdict.reading(str(self.query_one("#tag-list", Select).value))
            style = {"good": "green", "bad": "yellow"}.get(tone, "")
            self.query_one("#tag-support", Static).update(Text(f"{finding_id}: {text}", style=style))

    # -- saving ----------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "tag-save":
            self.action_save()
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        try:
            draft = self._read()
        except ValueError as exc:
            self.query_one("#tag-error", Static).update(para(exc))
            return
        self.dismiss(draft)

    def _read(self) -> TagDraft:
        def value(selector: str) -> str:
            # A field shows the file's text through ``printable`` (a tab as ␉): it is read back as the
            # characters it shows, so an untouched field writes what the file held, not ␉.
            return unprintable(self.query_one(selector, Input).value).strip()

        list_name = self.query_one("#tag-list", Select).value
        scope = self.query_one("#tag-scope", Select).value
        draft = TagDraft(
            list_name=str(list_name),
            kind=value("#tag-kind"),
            scope=scope if isinstance(scope, str) else None,
            evidence=" ".join(value("#tag-evidence").split()),
            rows=parse_rows(value("#tag-rows")),
            claim=value("#tag-claim") or None,
            says=parse_says(value("#tag-says")),
        )
        if (problem := draft.problem(self.snapshot, self.taken_ids)) is not None:
            raise ValueError(problem)
        return draft
