"""The cases view (the app's start): every case with its counts and validation status.

The case set loads and validates in a worker, so the first paint does not
wait for fifty snapshots to parse; the header shows the mix of kinds against
the 30/10/5/5 the case set holds at least.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from ...caseset.cases import CASE_KINDS, Case, CaseFileError, CaseSet, Problem, load_case, load_case_set, validate_case
from ...caseset.snapshot import Snapshot, SnapshotError
from ...caseset.set_checks import PLANNED_MIX, short_of_plan
from ...runs.validation import run_checks
from ..messages import CaseChecksDone, CaseSetLoaded
from ..plain import cells, plain, safe
from ..widgets.row_table import RowTable
from .base import ReviewScreen
from .help import KeysFooter, register_help

STATUS_FILTERS = ("all", "problems", "ok")


@dataclass
class CaseRow:
    case_id: str
    kind: str
    counts: tuple[int, int, int]
    source: str
    problems: list[Problem] = field(default_factory=list)
    loaded: bool = True

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return self.loaded and not self.errors

    def status(self) -> Text:
        if not self.problems:
            return Text("ok", style="green")
        first = self.errors[0] if self.errors else self.problems[0]
        where = f"{first.path.name}:{first.line}"
        if self.errors:
            return plain(f"✗ {len(self.errors)}  {where}: {first.message}", style="red")
        return plain(f"⚠ {len(self.problems)}  {where}: {first.message}", style="yellow")


def problem_case_id(problem: Problem, root: Path) -> str | None:
    """The case folder a problem belongs to (None for problems of the whole set)."""
    try:
        relative = problem.path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return relative.parts[0] if len(relative.parts) > 1 else None


def case_row(case: Case, problems: list[Problem]) -> CaseRow:
    counts = (len(case.must_find), len(case.may_find), len(case.must_not_say))
    return CaseRow(case.case_id, case.kind, counts, str(case.source or ""), problems)


def case_rows(case_set: CaseSet, problems: list[Problem] | None = None) -> tuple[list[CaseRow], list[Problem]]:
    """One row per case folder (unloadable ones included), and the problems of the set as a whole.
    ``problems`` defaults to the loader's own (structural) ones."""
    by_case: dict[str, list[Problem]] = {}
    general: list[Problem] = []
    for problem in case_set.problems if problems is None else problems:
        case_id = problem_case_id(problem, case_set.root)
        (by_case.setdefault(case_id, []) if case_id else general).append(problem)
    rows = [case_row(case, by_case.pop(case.case_id, [])) for case in case_set.cases]
    for case_id, problems in by_case.items():  # folders whose files could not be parsed
        rows.append(CaseRow(case_id, "?", (0, 0, 0), "", problems, loaded=False))
    rows.sort(key=lambda r: r.case_id)
    return rows, general


def mix_text(rows: list[CaseRow]) -> Text:
    """Each kind's count against the plan (a floor): yellow where the set is short of it, as check says."""
    counts = Counter(r.kind for r in rows)
    short = short_of_plan(counts)
    text = Text()
    for kind, target in PLANNED_MIX.items():
        text.append(f"{kind} ", style="bold")
        text.append(f"{counts.get(kind, 0)}/{target}", style="yellow" if kind in short else "green")
        text.append("   ")
    other = sum(1 for r in rows if r.kind not in PLANNED_MIX)
    if other:
        text.append(f"other {other}", style="red")
    return text


class CasesScreen(ReviewScreen[None]):
    BINDINGS = [
        Binding("enter", "open", "Open case"),
        # Short footer labels (the help shows the tooltips) so the view keys fit 80 columns.
        Binding("k", "cycle_kind", "Kind", tooltip="Kind filter: all, then each kind"),
        Binding("s", "cycle_status", "Status", tooltip="Status filter: all, problems, ok"),
        Binding("r", "reload", "Reload"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="cases-screen")
        self.rows: list[CaseRow] = []
        self.general: list[Problem] = []
        self.kind_filter = "all"
        self.status_filter = "all"
        self.loaded = False
        self.checked = False  # the check modules' problems (support warnings among them) are in the rows
        self.load_error: str | None = None  # why the last load failed, shown in the header

    def compose(self) -> ComposeResult:
        yield Static("", id="cases-header")
        yield Static("", id="cases-filters")
        yield RowTable(id="cases-table", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("case", key="case")
        table.add_column("kind", key="kind")
        table.add_column("must", key="must")
        table.add_column("may", key="may")
        table.add_column("not", key="not")
        # The status before the source, so an 80-column terminal shows it.
        table.add_column("status", key="status")
        table.add_column("source", key="source")
        self._render_header()
        self.load()

    @property
    def cases_root(self) -> Path:
        return self.app.cases_dir

    # -- loading ---------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="cases")
    def load(self) -> None:
        try:
            case_set = load_case_set(self.cases_root)
        except Exception as exc:  # noqa: BLE001 - a file the loader trips on must not take the whole app down
            self.app.call_from_thread(self._load_failed, f"{type(exc).__name__}: {exc}")
            return
        self.post_message(CaseSetLoaded(case_set))
        # Then everything ``reviewtui check`` adds (the reference auditor's support warnings among them),
        # so the list says what check says; the table does not wait for it.
        self.post_message(CaseChecksDone(case_set, run_checks(case_set)))

    def _load_failed(self, reason: str) -> None:
        self.load_error = reason
        self._render_header()

    def on_case_set_loaded(self, message: CaseSetLoaded) -> None:
        self.app.case_set = message.case_set
        self.rows, self.general = case_rows(message.case_set)
        self.loaded = True
        self.checked = False
        self.load_error = None
        self._render_header()
        self._fill_table()

    def on_case_checks_done(self, message: CaseChecksDone) -> None:
        if message.case_set is not getattr(self.app, "case_set", None):
            return  # a reload has started since
        self.rows, self.general = case_rows(message.case_set, message.problems)
        self.checked = True
        self._render_header()
        self._fill_table()

    @work(thread=True, group="case-refresh")
    def refresh_case(self, case_id: str) -> None:
        """Re-read one case after its author screen saved it.

        A save writes expected.yaml, not snapshot.json: the snapshot already loaded is kept while the file
        holds the same bytes (a 100,000-row one takes most of a second to parse, and its rows' reading and
        its audit are kept on it), and parsed again only when it changed."""
        case_dir = self.cases_root / case_id
        try:
            case = load_case(case_dir, with_snapshot=False)
            case.snapshot = self.app.loaded_snapshot(case.snapshot_path) or Snapshot.load(case.snapshot_path)
        except (CaseFileError, SnapshotError):
            self.app.call_from_thread(self.load)
            return
        problems = run_checks(CaseSet(self.cases_root, [case], validate_case(case)))
        row = case_row(case, [p for p in problems if problem_case_id(p, self.cases_root) == case_id])
        self.app.call_from_thread(self._replace_row, case, row)

    def _replace_row(self, case: Case, row: CaseRow) -> None:
        self.rows = [row if r.case_id == row.case_id else r for r in self.rows]
        case_set = getattr(self.app, "case_set", None)
        if case_set is not None:
            case_set.cases = [case if c.case_id == case.case_id else c for c in case_set.cases]
        self._render_header()
        self._fill_table()

    # -- display -----------------------------------------------------------------------

    def visible_rows(self) -> list[CaseRow]:
        rows = self.rows
        if self.kind_filter != "all":
            rows = [r for r in rows if r.kind == self.kind_filter]
        if self.status_filter == "ok":
            rows = [r for r in rows if r.loaded and not r.problems]
        elif self.status_filter == "problems":  # errors or warnings, as reviewtui check lists them
            rows = [r for r in rows if r.problems or not r.loaded]
        return rows

    def _render_header(self) -> None:
        header = Text()
        header.append("reviewtui", style="bold")
        header.append(f"  cases: {self.cases_root.name}/  ", style="dim")
        if self.load_error is not None:
            header.append(f"could not load the cases: {self.load_error}", style="bold red")
            header.append("\nThe app itself is fine: fix the file, then press r to load again.", style="red")
        elif not self.loaded:
            header.append("loading and validating the cases…", style="italic")
        else:
            header.append(f"{len(self.rows)} cases   ", style="bold")
            header.append_text(mix_text(self.rows))
            bad = sum(1 for r in self.rows if not r.ok)
            warned = sum(1 for r in self.rows if r.ok and r.problems)
            if bad:
                header.append(f"  {bad} with errors", style="red")
            if warned:
                header.append(f"  {warned} with warnings", style="yellow")
            if not bad and not warned:
                header.append("  all valid" if self.checked else "  no errors", style="green")
            if not self.checked:
                header.append("  (checking support…)", style="dim italic")
            for problem in [p for p in self.general if p.severity == "error"][:2]:
                header.append(f"\n{problem.message}", style="red")
            general_warnings = sum(1 for p in self.general if p.severity != "error")
            if general_warnings:
                header.append(f"\n{general_warnings} warning(s) about the set as a whole (reviewtui check lists them)",
                              style="yellow")
        self.query_one("#cases-header", Static).update(safe(header))
        shown = len(self.visible_rows()) if self.loaded else 0
        filters = Text.assemble(
            ("kind: ", "dim"), (self.kind_filter, "bold"), (" (k)   ", "dim"),
            ("status: ", "dim"), (self.status_filter, "bold"), (" (s)   ", "dim"),
            (f"{shown} shown", "dim"),
        )
        self.query_one("#cases-filters", Static).update(filters)

    def _fill_table(self) -> None:
        table = self.query_one(DataTable)
        keep = self.current_case_id
        table.clear()
        for row in self.visible_rows():
            must, may, never = row.counts
            table.add_row(*cells(row.case_id, row.kind, must, may, never, row.status(), row.source), key=row.case_id)
        if keep is not None and keep in table.rows:
            table.move_cursor(row=table.get_row_index(keep))

    @property
    def current_case_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def select_case(self, case_id: str) -> None:
        table = self.query_one(DataTable)
        if case_id in table.rows:
            table.move_cursor(row=table.get_row_index(case_id))

    # -- actions ------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        case_id = self.current_case_id
        if case_id is None:
            return
        row = next(r for r in self.rows if r.case_id == case_id)
        if not row.loaded:
            self.notify(str(row.problems[0]), title="Cannot open: fix this file first", severity="error", timeout=8)
            return
        self.app.open_case(case_id)

    def action_cycle_kind(self) -> None:
        order = ("all", *CASE_KINDS)
        self.kind_filter = order[(order.index(self.kind_filter) + 1) % len(order)]
        self._render_header()
        self._fill_table()

    def action_cycle_status(self) -> None:
        self.status_filter = STATUS_FILTERS[(STATUS_FILTERS.index(self.status_filter) + 1) % len(STATUS_FILTERS)]
        self._render_header()
        self._fill_table()

    def action_reload(self) -> None:
        self.loaded = False
        self.load_error = None
        self._render_header()
        self.load()


register_help("Cases view", CasesScreen, also=[("home, end", "First / last case"), ("up, down", "Move")])
