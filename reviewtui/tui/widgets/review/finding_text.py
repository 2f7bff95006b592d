"""Rich text for one case's scored output: findings with their figures marked.

Figures come from ``CaseScore.figures``: each has the ``finding_index`` and
``field`` it was found in, its ``start``/``end`` offsets in that field's text,
``grounded`` and the ``reason``. Fabricated figures are highlighted in place
(and listed with their reason) so the reader sees the sentence that carries
the made-up number, not just the number.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from rich.text import Text

from ....caseset.cases import Expectation

GROUNDED_STYLE = "underline green"
FABRICATED_STYLE = "bold white on red"

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
    """``text`` with each figure styled grounded or fabricated at its offsets."""
    out = Text(text)
    for figure in figures:
        start, end = int(figure.get("start", 0)), int(figure.get("end", 0))
        if 0 <= start < end <= len(text):
            out.stylize(GROUNDED_STYLE if figure.get("grounded") else FABRICATED_STYLE, start, end)
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
    """One figure with its verdict and reason, e.g. ``✗ $48,213.77  fabricated: nothing near it``."""
    if figure.get("grounded"):
        return Text.assemble("    ", ("✓ ", "green"), (str(figure.get("text")), GROUNDED_STYLE),
                             ("  grounded: ", "dim"), (str(figure.get("reason") or ""), "dim"))
    return Text.assemble("    ", ("✗ ", "bold red"), (str(figure.get("text")), FABRICATED_STYLE),
                         ("  fabricated: ", "bold red"), str(figure.get("reason") or ""))


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
