"""Command palette entries (``ctrl+p``).

Open a case, go to an expectation of the open case, go to a snapshot row by
pointer (type ``/daily/12``), switch to the cases or the runs view, open a
run by its prompt version, compare two runs (the palette then asks for the
second run), start a new run. New case from a snapshot file: type the file's
path in the palette (or pick a file found in the working folder); the file
is checked, copied into the case set beside a blank expected.yaml, and
opened.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence, cast

from textual.command import CommandListItem, CommandPalette, DiscoveryHit, Hit, Hits, Provider, SimpleProvider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

from ..runs.stored_runs import RunInfo, list_runs, run_key
from ..caseset.snapshot_reader import PointerError
from ..files.untrusted import printable

if TYPE_CHECKING:
    from .app import ReviewApp


def run_verdict(info: RunInfo) -> str:
    """PASS, FAIL, or why a run has no verdict."""
    return "PASS" if info.passed is True else "FAIL" if info.passed is False else f"no verdict ({info.status or '?'})"


def run_help(info: RunInfo) -> str:
    """One line about a run: prompt version, model, backend, date, verdict, means."""
    verdict = run_verdict(info)
    parts = [info.prompt_version, info.model or "", info.backend or "", (info.date or "")[:16].replace("T", " "), verdict]
    if info.mean_recall is not None and info.mean_precision is not None:
        parts.append(f"recall {info.mean_recall:.3f} precision {info.mean_precision:.3f}")
    return " · ".join(p for p in parts if p)


# The palette reads a hit's text and help as Textual markup; here they hold case ids, run versions, evidence
# and paths from files, so they are drawn as plain text (a "[b]" in a folder name stays "[b]").


def shown(text: str) -> Content:
    return Content(printable(text, one_line=True))


def help_text(text: str) -> str:
    return escape(printable(text, one_line=True))


def highlighted(matcher: Matcher, text: str) -> Content:
    """``text`` as plain text with the characters the query matched highlighted (``Matcher.highlight``
    reads the text as markup)."""
    content = shown(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    for offset in offsets if score else ():
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def typed_snapshot_hit(query: str, new_case: Callable[[Path], object]) -> Hit | None:
    """A hit making a case from the JSON file whose path is typed in full, when there is such a file."""
    pointer = query.strip()
    typed = Path(pointer).expanduser() if pointer else None
    if typed is None or typed.suffix.lower() != ".json" or not typed.is_file():
        return None
    text = f"New case from {pointer}"
    return Hit(1.0, shown(text), partial(new_case, typed), text=text, help="copy this snapshot into the case set and open it")


class PlainCommands(SimpleProvider):
    """A list of (text, callback, help) for the palette, drawn as plain text; with ``typed_path`` set,
    also a snapshot file typed in full (the file picker's prompt offers it)."""

    typed_path: Callable[[Path], object] | None = None

    async def search(self, query: str) -> Hits:
        if self.typed_path is not None and (hit := typed_snapshot_hit(query, self.typed_path)) is not None:
            yield hit
        matcher = self.matcher(query)
        for text, callback, help in self._commands:
            if (score := matcher.match(text)) > 0:
                yield Hit(score, highlighted(matcher, text), callback, text=text, help=help_text(help or ""))

    async def discover(self) -> Hits:
        for text, callback, help in self._commands:
            yield DiscoveryHit(shown(text), callback, text=text, help=help_text(help or ""))


def search_plain(app, commands: Sequence[CommandListItem], placeholder: str,
                 typed_path: Callable[[Path], object] | None = None) -> None:
    """``App.search_commands`` with the entries drawn as plain text."""
    # A provider instance stands for its class here, as in App.search_commands (SimpleProvider.__call__).
    provider = PlainCommands(app.screen, list(commands))
    provider.typed_path = typed_path
    providers: list = [provider]
    app.push_screen(CommandPalette(providers=providers, placeholder=printable(placeholder, one_line=True)))


class ReviewCommands(Provider):
    runs: list[RunInfo] = []

    @property
    def review_app(self) -> ReviewApp:
        """The app the palette is open in. Textual types a provider's ``app`` as a bare App, and a
        provider is no screen (screens/base.py types theirs), so this is the one cast."""
        return cast("ReviewApp", self.app)

    async def startup(self) -> None:
        # The run list is read from the results folder each time the palette opens (a run may have finished).
        self.runs = await asyncio.to_thread(list_runs, self.review_app.results_dir)

    def _author(self):
        from .screens.author import AuthorScreen

        screen = self.screen
        return screen if isinstance(screen, AuthorScreen) else None

    def _targets(self) -> list[tuple[str, Callable[[], object], str]]:
        """(text, callback, help) for everything the palette offers from here."""
        app = self.review_app
        found: list[tuple[str, Callable[[], object], str]] = [
            ("Cases view", partial(app.show_view, "cases"), "f2 · every case, its counts and its problems"),
            ("Runs view", partial(app.show_view, "runs"), "f3 · every run under the results folder, newest first"),
            ("New run", app.new_run, "start a run (or resume one) from the form"),
            ("New case from a snapshot file…", self.pick_snapshot_file,
             "an imported or redacted snapshot.json: type its path here, or pick one found in this folder"),
        ]
        for info in self.runs:
            key = run_key(info, app.results_dir)  # the folder: two runs of one version differ there
            found.append((f"Open run {key}", partial(app.open_run, key), run_help(info)))
        if len(self.runs) > 1:
            for info in self.runs:
                found.append((f"Compare run {run_key(info, app.results_dir)} with…", partial(self.pick_second_run, info),
                              "then pick the run to compare it with"))
        author = self._author()
        if author is not None:
            for entry in author.case.expectations():
                found.append((f"Go to {entry.list_name} {entry.id}", partial(author.select_expectation, entry.list_name, entry.index),
                              entry.evidence))
        for case_id, kind in app.case_summaries():
            found.append((f"Open case {case_id}", partial(app.open_case, case_id), kind))
        return found

    def pick_second_run(self, first: RunInfo) -> None:
        """The palette again, listing the other runs; choosing one opens the compare view."""
        app = self.review_app
        others = [
            (run_key(info, app.results_dir), partial(app.compare_runs, run_key(first, app.results_dir), run_key(info, app.results_dir)),
             run_help(info))
            for info in self.runs
            if info.run_dir != first.run_dir
        ]
        search_plain(app, others, f"Compare {run_key(first, app.results_dir)} with which run?")

    def pick_snapshot_file(self) -> None:
        """The palette again, listing the JSON files of the working folder (and its folders' snapshot.json)."""
        app = self.review_app
        cases_dir = app.cases_dir.resolve()
        found = sorted({p for pattern in ("*.json", "*/snapshot.json") for p in Path.cwd().glob(pattern)
                        if cases_dir not in p.resolve().parents})[:200]
        search_plain(app, [(str(p), partial(self.new_case, p), "copy it into the case set as a new case") for p in found],
                     "Which snapshot file? (or type its path)", typed_path=self.new_case)

    def new_case(self, path: Path, *, allow_unredacted: bool = False) -> None:
        from ..accounts.newcase import NewCaseError, UnredactedError, new_case_from_snapshot
        from .screens.dialogs import ConfirmModal

        app = self.review_app
        try:
            case_id = new_case_from_snapshot(path, app.cases_dir, allow_unredacted=allow_unredacted)
        except UnredactedError as exc:
            def answer(choice: str | None) -> None:
                if choice == "u":
                    self.new_case(path, allow_unredacted=True)

            app.push_screen(ConfirmModal(
                "Not redacted", f"{path} is an imported account with its own names: {', '.join(exc.names[:5])}"
                f"{' and more' if len(exc.names) > 5 else ''}. A case in the case set ({app.cases_dir}/) is shared "
                f"with everyone who has it. Redact it first (reviewtui redact {path} -o <file> --key "
                "~/.reviewtui/redact.key), then make the case from the redacted file.",
                [("c", "Cancel"), ("u", "Copy it unredacted")]), answer)
            return
        except (NewCaseError, OSError) as exc:
            app.notify(str(exc), title="No case made", severity="error", timeout=10)
            return
        cases = app._cases_screen()
        if cases is not None:
            cases.load()
        app.notify(f"{app.cases_dir / case_id}: snapshot from {path}; fill in expected.yaml", title="New case")
        app.open_case(case_id)

    async def discover(self) -> Hits:
        for text, callback, help in self._targets():
            yield DiscoveryHit(shown(text), callback, text=text, help=help_text(help))

    async def search(self, query: str) -> Hits:
        author = self._author()
        pointer = query.strip()
        if author is not None and pointer.startswith("/") and author.snapshot is not None:
            try:
                author.snapshot.resolve(pointer)
            except PointerError as exc:
                text = f"Row {pointer}: does not resolve"
                yield Hit(0.1, shown(text), lambda: None, text=text, help=help_text(str(exc)))
            else:
                text = f"Go to row {pointer}"
                yield Hit(1.0, shown(text), partial(author.go_to_pointer, pointer), text=text, help="snapshot row")
        if (hit := typed_snapshot_hit(query, self.new_case)) is not None:
            yield hit
        matcher = self.matcher(query)
        for text, callback, help in self._targets():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, highlighted(matcher, text), callback, text=text, help=help_text(help))
