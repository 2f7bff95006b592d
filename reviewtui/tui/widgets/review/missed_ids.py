"""The missed-ids panel: which must_find ids a run missed, grouped by kind.

Reviewers read this panel rather than the mean recall. The same finding
missed in many cases points to the prompt; many different findings missed
once each point to the case set or the model. The panel leads with the
core's sentence saying which of the two this is (``report.miss_pattern``,
the same sentence ``reviewtui eval`` prints), then each kind with the
number of cases missing it and, under it, each id with those cases.

Input is the manifest's ``missed_by_kind``:
``{kind: {"cases": n, "ids": {full_id: [case_id, ...]}}}``, most cases first.
"""

from __future__ import annotations

from typing import Any, Mapping, cast

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from ....runs.gate import miss_pattern
from ....runs.manifest_fields import MissedKind
from ...plain import safe

MissedByKind = Mapping[str, Mapping[str, Any]]


def pattern_sentence(missed_by_kind: MissedByKind, pattern: Mapping[str, Any] | None = None) -> Text:
    """The manifest's pattern sentence (computed by the core when an older manifest lacks it)."""
    if not missed_by_kind:
        return Text("No must_find id was missed in a scored case.", style="green")
    pattern = pattern or miss_pattern({kind: cast(MissedKind, dict(ids)) for kind, ids in missed_by_kind.items()}) or {}
    text = str(pattern.get("text", ""))
    head, _, rest = text.partition(":")
    style = {"concentrated": "bold red", "scattered": "bold yellow", "mixed": "bold magenta",
             "isolated": "bold yellow"}.get(
        str(pattern.get("pattern")), "bold")
    return Text.assemble((head.capitalize(), style), (":" + rest if rest else "", ""))


LEGEND = ("One finding missed in many cases points to the prompt; many findings missed once each "
          "point to the case set or the model.")


def missed_ids_lines(missed_by_kind: MissedByKind) -> Text:
    """Each kind with its number of cases (red when several), then each id with the cases missing it."""
    lines = []
    width = max(len(str(entry.get("cases", 0))) for entry in missed_by_kind.values())
    for kind, entry in missed_by_kind.items():
        cases = int(entry.get("cases", 0))
        style = "bold red" if cases >= 2 else "bold"
        lines.append(Text.assemble((f"{cases:>{width}} ", style), (kind, style),
                                   (f"  {cases} case{'s' if cases != 1 else ''}", "dim")))
        for full_id, case_ids in (entry.get("ids") or {}).items():
            scope = full_id[len(kind):] if full_id.startswith(kind + "@") else "any scope"
            lines.append(Text.assemble(" " * (width + 3), (scope, "cyan"), ": ", (", ".join(case_ids), "")))
    return Text("\n").join(lines)


class MissedIdsPanel(Static):
    """Missed ids grouped by kind, led by the sentence naming their pattern."""

    DEFAULT_CSS = """
    MissedIdsPanel {
        height: auto;
        border: round $secondary;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Missed ids by kind"

    def show(self, missed_by_kind: MissedByKind, pattern: Mapping[str, Any] | None = None,
             unscored: Mapping[str, str] | None = None) -> None:
        """``unscored``: case id to status for the cases left out (unparseable or not obtained)."""
        parts = [pattern_sentence(missed_by_kind, pattern)]
        if missed_by_kind:
            parts += [Text(LEGEND, style="dim italic"), Text(""), missed_ids_lines(missed_by_kind)]
        if unscored:
            left_out = ", ".join(f"{case_id} ({status})" for case_id, status in unscored.items())
            parts += [Text(""), Text(f"Not counted here (nothing scored): {left_out}", style="yellow")]
        self.update(Group(*(safe(part) for part in parts)))
