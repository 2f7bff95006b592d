"""Rich text for one case's scored output: findings with their figures marked.

Figures come from ``CaseScore.figures``: each has the ``finding_index`` and
``field`` it was found in, its ``start``/``end`` offsets in that field's text,
its ``status`` (grounded, untraceable or fabricated; result files older than
statuses have ``grounded`` alone), the ``reason``, and for an answer that
declares its figures the ``declared`` item with its recomputed value.
Fabricated figures are highlighted in place (and listed with their reason) so
the reader sees the sentence that carries the made-up number, not just the
number; a declared figure's line shows its declaration and what the rows give.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from rich.text import Text

from ....caseset.cases import Expectation
from ....scoring.score import FABRICATED, GROUNDED, UNTRACEABLE, figure_status

GROUNDED_STYLE = "underline green"
UNTRACEABLE_STYLE = "underline yellow"
FABRICATED_STYLE = "bold white on red"
STATUS_STYLES = {GROUNDED: GROUNDED_STYLE, UNTRACEABLE: UNTRACEABLE_STYLE, FABRICATED: FABRICATED_STYLE}
# The mark and label of each status on a figure's line.
STATUS_MARKS = {GROUNDED: ("✓ ", "green", "  grounded: ", "dim"),
                UNTRACEABLE: ("? ", "bold yellow", "  untraceable: ", "yellow"),
                FABRICATED: ("✗ ", "bold red", "  fabricated: ", "bold red")}

VERDICT_LABELS = {
    "matched": ("found", "bold green"),
    "may_find": ("may_find", "bold cyan"),
    "extra": ("extra", "bold yellow"),
    "duplicate": ("duplicate", "dim"),
    "must_not_say": ("must_not_say hit", "bold white on red"),
}

# Fields of a finding scanned for figures, in reading order.
TEXT_FIELDS = ("claim", "evidence")


def highlight_figures(text: str, figures: Iterable[Mapping[str, Any]]) -> Text:
    """``text`` with each figure styled by its status at its offsets."""
    out = Text(text)
    for figure in figures:
        start, end = int(figure.get("start", 0)), int(figure.get("end", 0))
        if 0 <= start < end <= len(text):
            out.stylize(STATUS_STYLES[figure_status(dict(figure))], start, end)
    return out


def figures_of(figures: Iterable[Mapping[str, Any]], finding_index: int, field: str | None = None) -> list[Mapping[str, Any]]:
    return [
        f for f in figures
        if f.get("finding_index") == finding_index and (field is None or f.get("field") == field)
    ]


def finding_block(index: int, finding: Mapping[str, Any], figures: Sequence[Mapping[str, Any]],
                  hits: Sequence[Mapping[str, Any]]) -> Text:
    """A returned finding: number, verdict, id and severity, then its text with figures marked."""
    label, style = VERDICT_LABELS.get(str(finding.get("verdict")), (str(finding.get("verdict")), "bold"))
    head = Text.assemble((f"#{index + 1} ", "bold"), (f" {label} ", style), " ",
                         (str(finding.get("full_id") or finding.get("id")), "bold"))
    if finding.get("matches") and finding.get("matches") != finding.get("full_id"):
        head.append(f"  = {finding['matches']}", style="green")
    head.append(f"  · {finding.get('severity', '')}", style="dim")
    lines = [head]
    for field in TEXT_FIELDS:
        text = str(finding.get(field) or "")
        if text:
            line = Text(f"  {field}: ", style="dim")
            line.append_text(highlight_figures(text, figures_of(figures, index, field)))
            lines.append(line)
    for hit in hits:
        how = f"says /{hit['pattern']}/" if hit.get("by") == "says" else "by id"
        lines.append(Text(f"  ✗ hits must_not_say {hit.get('entry_id')} ({how})", style="bold red"))
    return Text("\n").join(lines)


def figure_line(figure: Mapping[str, Any]) -> Text:
    """One figure with its status and reason, e.g. ``✗ $48,213.77  fabricated: nothing near it``; a
    declared figure adds a line with its declaration and the value the rows give."""
    status = figure_status(dict(figure))
    mark, mark_style, label, label_style = STATUS_MARKS[status]
    where = "  (declared, not printed)" if figure.get("field") == "figures" else ""
    line = Text.assemble("    ", (mark, mark_style), (str(figure.get("text")), STATUS_STYLES[status]), (where, "dim"),
                         (label, label_style), (str(figure.get("reason") or ""), "dim" if status == GROUNDED else ""))
    declared = figure.get("declared")
    if isinstance(declared, Mapping):
        line.append("\n      ")
        line.append_text(declaration_text(declared))
    return line


def declaration_text(declared: Mapping[str, Any]) -> Text:
    """A declared figure as the answer wrote it and as the rows recompute it:
    ``declared c: aggregate sum cost · campaigns 111 · 2025-03-01..2025-03-10 · as_is → rows give 1,101.1``."""
    item = declared.get("declaration")
    head: list[str] = []
    rest: list[str] = []
    if isinstance(item, Mapping):
        for key, value in item.items():
            if key in ("label", "printed", "to") or value in ("", [], "as_is", None):
                continue
            shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            if key in ("how", "stat", "metric", "what", "op"):
                head.append(shown)
            elif key == "from":
                rest.append(f"{shown}..{item.get('to')}" if item.get("to") not in (None, value) else shown)
            else:
                rest.append(f"{key} {shown}")
    else:
        head.append(repr(item))
    out = Text.assemble((f"declared {declared.get('label')}: ", "dim"), " ".join(head), *((" · " + " · ".join(rest),) if rest else ()))
    recomputed = declared.get("recomputed")
    if declared.get("error"):
        out.append(f" → {declared['error']}", style="red")
    elif isinstance(recomputed, (int, float)):
        out.append(f" → rows give {_number(float(recomputed))}", style="bold")
    return out


def _number(value: float) -> str:
    """Six significant digits, thousands separated: 1,101.1; 0.714232; 2,421."""
    text = f"{value:,.6g}" if abs(value) < 1e15 else f"{value:,.0f}"
    return text if "e" not in text else f"{value:,.12f}".rstrip("0").rstrip(".")


def expectation_line(expectation: Expectation, state: str) -> Text:
    """An expected entry with its state: found / missed (must_find), returned / not returned
    (may_find), hit / not said (must_not_say)."""
    marks = {
        "found": ("✓ found", "bold green"),
        "missed": ("✗ missed", "bold white on red"),
        "returned": ("✓ returned", "cyan"),
        "not returned": ("· not returned", "dim"),
        "hit": ("✗ said", "bold white on red"),
        "not said": ("✓ not said", "green"),
    }
    mark, style = marks.get(state, (state, "bold"))
    line = Text.assemble((mark, style), " ", (expectation.id, "bold"))
    if expectation.rows:
        line.append(f"  ({len(expectation.rows)} row{'s' if len(expectation.rows) != 1 else ''})", style="dim")
    line.append("\n  ")
    line.append(expectation.evidence or "(no evidence line)", style="" if expectation.evidence else "dim")
    return line
