"""The reviewtui app: ``reviewtui [--cases DIR] [--results-dir DIR]``.

One App with modes (top-level views, switched with the command palette or
their keys) and pushed screens (the author screen over the cases view).
A new top-level view is added by registering it in ``MODES`` below.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from ..backends.base import Backend
from ..caseset.cases import CaseFileError, CaseSet
from ..caseset.snapshot import Snapshot, SnapshotError
from .commands import ReviewCommands
from .messages import CaseSaved
from .screens.author import AuthorScreen
from .screens.cases import CasesScreen
from .screens.dialogs import ConfirmModal, ReviewModal
from .screens.help import HelpScreen, register_help
from .textual_private import screen_stacks
from .screens.new_run import NewRunScreen
from .screens.run_list import RunsScreen
from .screens.weekly import WeeklyScreen
from ..files.untrusted import printable
from ..authoring.support_checks import SupportCheck, SupportChecks, check_support


class ReviewApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "reviewtui"
    COMMANDS = App.COMMANDS | {ReviewCommands}

    # ---- Modes: register each top-level view here (name -> Screen class). ----
    MODES = {
        "cases": CasesScreen,
        "runs": RunsScreen,
        "weekly": WeeklyScreen,
    }
    DEFAULT_MODE = "cases"
    # The runs view's new-run form builds its backend with this ``(RunSettings) -> Backend``;
    # None builds it from the form like ``reviewtui eval`` does. Tests put a stub backend here.
    backend_factory: Callable[..., Backend] | None = None
    # ---------------------------------------------------------------------------

    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("f2", "view('cases')", "Cases"),
        Binding("f3", "view('runs')", "Runs"),
        Binding("f4", "view('weekly')", "Weekly"),
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
    ]

    def __init__(
        self,
        cases_dir: str | Path = "cases",
        results_dir: str | Path = "results",
        *,
        support_check: SupportCheck = check_support,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.cases_dir = Path(cases_dir)
        self.results_dir = Path(results_dir)
        self.support_check = support_check
        self.support_checks = SupportChecks(support_check)  # verdicts kept per snapshot content
        self.cursor_blink = cursor_blink
        self.case_set: CaseSet | None = None  # set by the cases view once loaded

    @property
    def repo_root(self) -> Path:
        """The folder holding cases/, writeups/ and disputed.md."""
        return self.cases_dir.resolve().parent

    def loaded_snapshot(self, path: Path) -> Snapshot | None:
        """The snapshot the cases view loaded from ``path``, if the file still holds the same bytes.

        Parsing a 100,000-row snapshot.json again takes most of a second, and what is computed from it
        (its rows read into columns, the audit behind the support check) is kept on the loaded snapshot:
        an author screen that takes the cases view's snapshot finds all of it done. Any other content
        (the file changed since) is loaded again by the caller. Safe from a worker thread."""
        case_set = self.case_set
        if case_set is None:
            return None
        path = path.resolve()
        for case in case_set.cases:
            snapshot = case.snapshot
            if snapshot is not None and snapshot.text and snapshot.path.resolve() == path:
                try:
                    same = path.read_bytes() == snapshot.text.encode("utf-8")
                except OSError:
                    return None
                return snapshot if same else None
        return None

    def case_summaries(self) -> list[tuple[str, str]]:
        """(case id, kind) of every loaded case, for the command palette."""
        if self.case_set is None:
            return []
        return [(case.case_id, case.kind) for case in self.case_set.cases]

    def open_case(self, case_id: str) -> None:
        """Show the author screen of a case (used by the cases view, the palette and the case review).

        A case already open somewhere is shown where it is, never opened twice: two screens
        on one expected.yaml would each hold edits the other does not know.
        """
        if (found := self._author_screen(case_id)) is not None:
            self._bring_forward(*found)
            return
        try:
            screen = AuthorScreen(self.cases_dir / case_id)
        except (CaseFileError, SnapshotError, OSError) as exc:
            self.notify(str(exc), title=f"Cannot open {case_id}", severity="error", timeout=10)
            return
        self.push_screen(screen)

    def _author_screen(self, case_id: str) -> tuple[str, AuthorScreen] | None:
        for mode, stack in screen_stacks(self).items():
            for screen in stack:
                if isinstance(screen, AuthorScreen) and screen.case.case_id == case_id:
                    return mode, screen
        return None

    def _bring_forward(self, mode: str, screen: AuthorScreen) -> None:
        """Make ``screen`` (in ``mode``'s stack) the current screen; the screens above it go, unless
        one holds unsaved work: then that one is shown, with a word on what to do."""
        case_id = screen.case.case_id
        if screen is self.screen:
            self.notify(f"{case_id} is already open")
            return
        stack = screen_stacks(self)[mode]
        above = stack[stack.index(screen) + 1:]
        if mode != self.current_mode:
            self.switch_mode(mode)
        holding = [s for s in above if has_unsaved_work(s)]
        if holding:
            self.notify(f"{case_id} is open under {describe_work(holding[-1])}; save or leave that first",
                        severity="warning", timeout=8)
            return
        for _ in above:
            self.pop_screen()
        self.notify(f"{case_id} was already open: back to it")

    # ---- the runs view's actions, for the command palette (they switch to the runs view first) ----

    async def show_view(self, mode: str) -> None:
        """Switch to a top-level view ("cases" or "runs"), as f2 / f3 do."""
        await self.switch_mode(mode)

    async def _runs_view(self) -> RunsScreen:
        if self.current_mode != "runs":
            await self.switch_mode("runs")
        screen = self._runs_screen()
        assert screen is not None
        return screen

    def _runs_screen(self) -> RunsScreen | None:
        return next((s for s in screen_stacks(self).get("runs", []) if isinstance(s, RunsScreen)), None)

    async def open_run(self, name: str) -> None:
        """Open the run view of ``results/<name>``."""
        (await self._runs_view()).open_run(name)

    async def compare_runs(self, first: str, second: str) -> None:
        """Open the compare view of two runs (folder names; the older is "before")."""
        (await self._runs_view()).compare(first, second)

    async def new_run(self) -> None:
        """Open the new-run form; if the runs view already shows one (a run may be under way there), show that."""
        runs = await self._runs_view()
        if isinstance(self.screen, NewRunScreen):
            self.notify("The new-run form is open (escape leaves it, cancelling a run in progress)")
            return
        runs.action_new_run()

    def on_case_saved(self, message: CaseSaved) -> None:
        cases = self._cases_screen()
        if cases is not None:
            cases.refresh_case(message.case_id)

    def _cases_screen(self) -> CasesScreen | None:
        for stack in screen_stacks(self).values():
            for screen in stack:
                if isinstance(screen, CasesScreen):
                    return screen
        return None

    def unsaved_author_screens(self) -> list[AuthorScreen]:
        return [s for stack in screen_stacks(self).values() for s in stack if isinstance(s, AuthorScreen) and s.dirty]

    async def action_view(self, mode: str) -> None:
        """Switch to a top-level view; in it already, go back to its list (closing the screens above)."""
        if self.current_mode != mode:
            await self.switch_mode(mode)
            return
        self._back_to_base()

    def _back_to_base(self) -> None:
        """Pop the screens above the view's own, asking first for unsaved edits, never leaving a run going."""
        while len(self.screen_stack) > 1:
            top = self.screen
            if isinstance(top, ModalScreen):
                return  # a question is open: it is answered first
            if isinstance(top, AuthorScreen) and top.dirty:
                top.confirm_discard("leave", lambda: (self.pop_screen(), self.call_later(self._back_to_base)))
                return
            if isinstance(top, NewRunScreen) and top.running:
                self.notify("A run is in progress here: escape cancels it first", severity="warning")
                return
            self.pop_screen()

    def filled_forms(self) -> list[ReviewModal]:
        """Open tag / dispute forms with typed text: unsaved work too."""
        return [s for stack in screen_stacks(self).values() for s in stack if isinstance(s, ReviewModal) and s.has_typed_text]

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification shown as plain text: messages quote ids, paths and errors from files."""
        kwargs = {} if timeout is None else {"timeout": timeout}
        super().notify(printable(message), title=printable(title, one_line=True), severity=severity,  # type: ignore[arg-type]
                       markup=False, **kwargs)

    # Textual's own notices are written in markup, which ``notify`` shows as plain text: the two it gives
    # here (ctrl+c's hint, the palette's Screenshot) are said without it.

    def action_help_quit(self) -> None:
        """ctrl+c: say how to quit (Textual's hint reads ``[b]ctrl+q[/b]``)."""
        self.notify("Press ctrl+q to quit the app", title="Do you want to quit?")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            yield command._replace(callback=self.save_screenshot_and_say) if command.title == "Screenshot" else command

    def save_screenshot_and_say(self) -> None:
        try:
            path = self.save_screenshot()
        except OSError as exc:
            self.notify(f"Screenshot not saved: {exc.strerror or exc}", title="Screenshot", severity="error")
            return
        self.notify(f"Saved screenshot to {path}", title="Screenshot")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        unsaved = self.unsaved_author_screens()
        forms = self.filled_forms()
        if not unsaved and not forms:
            self.exit()
            return
        question = []
        if unsaved:
            question.append(f"{', '.join(s.case.case_id for s in unsaved)}: expected.yaml has unsaved changes.")
        if forms:
            question.append(f"The {' and '.join(describe_work(f) for f in forms)} has typed text that quitting loses.")
        choices = [("s", "Save and quit")] if unsaved else []
        choices += [("d", "Quit without saving"), ("c", "Cancel")]

        def answer(choice: str | None) -> None:
            if choice == "s":
                if all(screen.save() for screen in unsaved):
                    self.exit()
            elif choice == "d":
                self.exit()

        self.push_screen(ConfirmModal("Unsaved work", " ".join(question), choices), answer)


def has_unsaved_work(screen) -> bool:
    return (isinstance(screen, AuthorScreen) and screen.dirty) or (isinstance(screen, ReviewModal) and screen.has_typed_text)


def describe_work(screen) -> str:
    if isinstance(screen, AuthorScreen):
        return f"{screen.case.case_id} (unsaved)"
    return f"{getattr(screen, 'FORM', None) or 'open'} form"


register_help("Everywhere", ReviewApp, first=True, also=[
    ("ctrl+p", "Palette: open a case, a run, a row; new run or case"),
    ("tab, shift+tab", "Next / previous region or field"),
])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reviewtui", description="Browse, author and review the evaluation cases.")
    parser.add_argument("--cases", default="cases", metavar="DIR", help="the case folder (default: cases)")
    parser.add_argument("--results-dir", default="results", metavar="DIR", help="the results folder (default: results)")
    args = parser.parse_args(argv)
    cases_dir = Path(args.cases)
    if not cases_dir.is_dir():
        print(f"reviewtui: cases folder {cases_dir} not found; pass --cases DIR", file=sys.stderr)
        return 2
    app = ReviewApp(cases_dir, args.results_dir)
    app.run()
    # Textual sets 1 when the app ended on an unhandled error (the traceback is printed on exit).
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
