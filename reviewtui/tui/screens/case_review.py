"""Case review: one case's expectations beside what the assistant returned.

Left, the case's must_find / may_find / must_not_say entries, each marked
found or missed, returned or not, said or not. Right, the returned findings
with their verdict (found, may_find, extra, duplicate, must_not_say hit),
their text with every figure marked grounded, untraceable or fabricated in
place, and one line per figure with the reason; a figure the answer declared
(prompt audit-v4 on) shows its declaration and the value the rows give, and
declarations the text does not print are listed too. ``enter`` on an entry or a figure opens the
snapshot rows behind it in the author screen's snapshot view, highlighted:
an entry's ``rows``; a grounded figure's ``rows`` as the scorer recorded them
(a snapshot value's own row, the rows a derived value such as a campaign's
period cost was computed from, both operands' rows for arithmetic), or, in
result files older than that, the pointers quoted in its reason. A fabricated
figure has no rows, and the screen says so. ``r`` shows the raw output;
``n`` / ``p`` step through the failing cases of the run; ``e`` opens the
case in the author screen to fix its expectations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...caseset.cases import LISTS, Case, Expectation
from ...scoring.score import CaseScore
from ..plain import safe
from ..widgets.review.finding_text import expectation_line, figure_line, finding_block, figures_of
from .base import ReviewScreen
from .help import KeysFooter, register_help
from .raw_output import RawOutputScreen

POINTER_RE = re.compile(r"(?<![\w/])/(?:[A-Za-z_][\w~.-]*)(?:/[\w~.-]+)+")


@dataclass
class CaseResult:
    """What a run stored for one case, with the case as it is on disk now (None if gone)."""

    case_id: str
    score: CaseScore
    output: Mapping[str, Any]  # CaseOutput.to_dict()
    case: Case | None
    repeats: int = 1  # with repeats, the first one is shown


def expectation_state(entry: Expectation, score: CaseScore) -> str:
    if entry.list_name == "must_find":
        if entry.id in score.matched_ids:
            return "found"
        return "missed" if entry.id in score.missed_ids else "not scored"
    if entry.list_name == "may_find":
        returned = any(f.get("matches") == entry.id for f in score.findings)
        return "returned" if returned else "not returned"
    hit = any(h.get("entry_id") == entry.id for h in score.must_not_say_hits)
    return "hit" if hit else "not said"


def row_pointer(pointer: str) -> str:
    """The snapshot row a pointer is in: ``/daily/9/cost`` -> ``/daily/9`` (section, then row)."""
    return "/".join(pointer.split("/")[:3])


def figure_pointers(figure: Mapping[str, Any]) -> list[str]:
    """The snapshot rows behind a grounded figure: its ``rows`` if the scorer recorded them
    (fields and budget history entries shown as their rows), else any JSON Pointers quoted in
    its reason (result files from before ``rows``)."""
    found = figure.get("rows") or figure.get("pointers") or POINTER_RE.findall(str(figure.get("reason") or ""))
    return list(dict.fromkeys(row_pointer(str(p)) for p in found))


def figure_rows_note(figure: Mapping[str, Any], shown: int) -> str | None:
    """What to tell the reviewer about the rows of a figure when not all of them are shown."""
    total = figure.get("row_count")
    stored = len(figure.get("rows") or ())
    if isinstance(total, int) and total > stored:
        return f"{total:,} rows support this figure; the result file keeps the first {stored:,} ({shown:,} rows shown)"
    return None


def _replace_options(widget: OptionList, options: list[Option | None]) -> None:
    """Refill an option list and put the cursor on its first selectable line."""
    widget.clear_options()
    widget.add_options(options)
    first = next((i for i, o in enumerate(o for o in options if o is not None) if not o.disabled), None)
    widget.highlighted = first


class CaseReviewScreen(ReviewScreen[None]):
    """One case of a run; ``n``/``p`` move through ``case_ids`` (the run's failing cases)."""

    BINDINGS = [
        Binding("n", "step(1)", "Next failing"),
        Binding("p", "step(-1)", "Prev failing"),
        Binding("r", "raw", "Raw output"),
        Binding("e", "edit_case", "Fix in author"),
        Binding("R", "rescore", "Re-score run"),
        Binding("escape", "app.pop_screen", "Back"),
    ]
    # Below 120 columns (KeysFooter): shorter labels, so that ? Help stays on an 80-column screen.
    FOOTER_COMPACT = {"step(1)": "Next", "step(-1)": "Prev", "raw": "Raw", "edit_case": "Fix", "rescore": "Re-score"}
    DEFAULT_CSS = """
    CaseReviewScreen #case-title { height: auto; padding: 0 1; background: $boost; }
    CaseReviewScreen #case-status { height: auto; padding: 0 1; color: $text-muted; }
    CaseReviewScreen Horizontal { height: 1fr; }
    CaseReviewScreen OptionList { width: 1fr; height: 1fr; border: round $secondary; }
    CaseReviewScreen OptionList:focus { border: round $accent; }
    CaseReviewScreen #review-returned { width: 3fr; }
    CaseReviewScreen #review-expected { width: 2fr; }
    """

    def __init__(self, case_ids: Sequence[str], case_id: str, load: Callable[[str], CaseResult],
                 open_rows: Callable[[Case, list[str]], Any] | None = None,
                 edit_case: Callable[[Case], Any] | None = None,
                 rescore: Callable[[], Any] | None = None) -> None:
        """``load`` fetches a case's stored result; ``open_rows(case, pointers)`` shows snapshot rows;
        ``edit_case(case)`` opens the author screen; ``rescore()`` re-scores the run (which then
        calls ``reload``)."""
        super().__init__()
        self.case_ids = list(case_ids)
        self.load = load
        self.open_rows = open_rows
        self.edit_case = edit_case
        self.rescore = rescore
        self.result: CaseResult = load(case_id)
        self._pointers: dict[str, list[str]] = {}

    # -- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="case-title")
        yield Static(id="case-status")
        with Horizontal():
            expectations = OptionList(id="review-expected")
            expectations.border_title = "Expected"
            yield expectations
            findings = OptionList(id="review-returned")
            findings.border_title = "Returned"
            yield findings
        yield KeysFooter()

    def on_mount(self) -> None:
        self._show()

    def on_screen_resume(self) -> None:
        """Back from the author screen: show the expectations as they are now."""
        if self.is_mounted:
            self.result = self.load(self.result.case_id)
            self._show()

    def _position(self) -> str:
        if self.result.case_id in self.case_ids:
            return f"failing case {self.case_ids.index(self.result.case_id) + 1} of {len(self.case_ids)}"
        return "not a failing case"

    def _show(self) -> None:
        score, case = self.result.score, self.result.case
        kind = case.kind if case else "case folder missing"
        self.query_one("#case-title", Static).update(safe(Text.assemble(
            (self.result.case_id, "bold"), f"  {kind}  ",
            (f"recall {score.recall:.2f}", "red" if score.recall < 1 else "green"), "  ",
            (f"precision {score.precision:.2f}", "red" if score.precision < 1 else "green"), "  ",
            (f"fabrication {score.fabrication}", "bold red" if score.fabrication else "green"), "  ",
            *((f"untraceable {score.untraceable}", "yellow"), "  ") if score.untraceable else (),
            (self._position(), "dim"),
        ), one_line=True))
        status = Text(f"status {score.status}", style="" if score.status == "ok" else "bold red")
        problem = score.error or score.parse_error
        if problem:
            status.append(f": {problem} (r shows the raw output)")
        if self.result.repeats > 1:
            status.append(f" · repeat 1 of {self.result.repeats} shown", style="yellow")
        status.append(" · enter on an entry or a grounded figure shows its snapshot rows", style="dim")
        self.query_one("#case-status", Static).update(safe(status, one_line=True))
        self._pointers = {}
        self._fill_expectations()
        self._fill_findings()

    def _fill_expectations(self) -> None:
        options: list[Option | None] = []
        case = self.result.case
        if case is None:
            options.append(Option(Text("The case folder is gone; only the stored result is shown.", style="dim"),
                                  disabled=True))
        else:
            for list_name in LISTS:
                entries = case.expectations(list_name)
                options.append(Option(Text(f"{list_name} ({len(entries)})", style="bold underline"),
                                      disabled=True))
                for entry in entries:
                    option_id = f"exp:{list_name}:{entry.index}"
                    self._pointers[option_id] = list(entry.rows)
                    options.append(Option(safe(expectation_line(entry, expectation_state(entry, self.result.score))),
                                          id=option_id))
        _replace_options(self.query_one("#review-expected", OptionList), options)

    def _fill_findings(self) -> None:
        score = self.result.score
        options: list[Option | None] = []
        if not score.findings:
            why = "no findings returned" if score.status == "ok" else f"nothing scored ({score.status})"
            options.append(Option(Text(why, style="dim"), disabled=True))
        rows_by_expected = {e.id: list(e.rows) for e in (self.result.case.expectations() if self.result.case else [])}
        for i, finding in enumerate(score.findings):
            if i:
                options.append(None)  # a rule between findings
            hits = [h for h in score.must_not_say_hits if h.get("finding_index") == i]
            option_id = f"finding:{i}"
            self._pointers[option_id] = rows_by_expected.get(str(finding.get("matches")), [])
            options.append(Option(safe(finding_block(i, finding, score.figures, hits)), id=option_id))
            for j, figure in enumerate(figures_of(score.figures, i)):
                figure_id = f"figure:{i}:{j}"
                self._pointers[figure_id] = figure_pointers(figure) if figure.get("grounded") else []
                # a declared figure takes two lines: its verdict, then its declaration and recomputed value
                options.append(Option(safe(figure_line(figure), one_line=not figure.get("declared")), id=figure_id))
        _replace_options(self.query_one("#review-returned", OptionList), options)

    # -- actions ----------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        pointers = self._pointers.get(option_id, [])
        figure = self._figure(option_id) if option_id.startswith("figure:") else None
        if not pointers:
            if figure is not None and not figure.get("grounded") and figure.get("declared"):
                what = "fabricated: the declared figure does not recompute from the rows, so it has no rows to show"
            elif figure is not None and not figure.get("grounded"):
                what = "fabricated: nothing in the snapshot supports this figure, so it has no rows to show"
            elif figure is not None:
                what = f"no snapshot rows behind this figure ({figure.get('reason') or 'no reason recorded'})"
            else:
                what = "no snapshot rows recorded for this line"
            self.notify(what, severity="warning")
            return
        if self.result.case is None or self.open_rows is None:
            self.notify("the snapshot view is not available here", severity="warning")
            return
        note = figure_rows_note(figure, len(pointers)) if figure is not None else None
        self.open_rows(self.result.case, pointers)
        if note:
            self.app.notify(note)

    def _figure(self, option_id: str) -> Mapping[str, Any]:
        _, i, j = option_id.split(":")
        return figures_of(self.result.score.figures, int(i))[int(j)]

    def action_step(self, delta: int) -> None:
        if not self.case_ids:
            self.notify("no failing cases in this run")
            return
        if self.result.case_id in self.case_ids:
            index = self.case_ids.index(self.result.case_id) + delta
        else:
            index = 0 if delta > 0 else len(self.case_ids) - 1
        if not 0 <= index < len(self.case_ids):
            self.notify("last failing case" if delta > 0 else "first failing case")
            return
        self.result = self.load(self.case_ids[index])
        self._show()

    def action_raw(self) -> None:
        self.app.push_screen(RawOutputScreen(self.result))

    def action_edit_case(self) -> None:
        if self.result.case is None or self.edit_case is None:
            self.notify("the author screen is not available here", severity="warning")
            return
        self.edit_case(self.result.case)

    def action_rescore(self) -> None:
        if self.rescore is None:
            self.notify("re-scoring is not available here", severity="warning")
            return
        self.rescore()

    def reload(self) -> None:
        """Re-read the current case's result (after a re-score)."""
        self.result = self.load(self.result.case_id)
        self._show()


register_help("Case review", CaseReviewScreen, also=[
    ("enter", "Rows of an expectation, figure or finding"),
    ("tab", "Switch sides"),
])
