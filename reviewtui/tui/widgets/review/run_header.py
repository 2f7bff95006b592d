"""The run view's header: the means against the gate, fabrications, the verdict and its reasons.

Reads the run manifest (docs/formats.md, "Result files"): ``summary``,
``thresholds``, ``gate`` and ``status``. Nothing here recomputes the gate;
the verdict and its reasons are the core's.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from ...plain import safe


def verdict_text(manifest: Mapping[str, Any]) -> Text:
    """``PASS`` / ``FAIL`` / ``NO VERDICT (incomplete)`` as styled text."""
    passed = (manifest.get("gate") or {}).get("passed")
    if passed is True:
        return Text(" PASS ", style="bold white on green")
    if passed is False:
        return Text(" FAIL ", style="bold white on red")
    status = manifest.get("status") or "incomplete"
    return Text(f" NO VERDICT ({status}) ", style="bold black on yellow")


def _against(value: float | None, threshold: float | None, label: str) -> Text:
    if value is None:
        return Text(f"{label} –", style="dim")
    if threshold is None:
        return Text(f"{label} {value:.3f}")
    ok = value >= threshold
    return Text.assemble(f"{label} ", (f"{value:.3f}", "bold green" if ok else "bold red"),
                         (f" (gate ≥ {threshold:.2f})", "dim"))


def header_renderable(manifest: Mapping[str, Any], folder: str = "") -> Group:
    summary = manifest.get("summary") or {}
    thresholds = manifest.get("thresholds") or {}
    gate = manifest.get("gate") or {}
    fabrications = int(summary.get("fabrications") or 0)
    max_fab = thresholds.get("max_fabrications", 0)
    line1 = Text.assemble(
        verdict_text(manifest), "  ",
        (str(manifest.get("prompt_version", "?")), "bold"),
        (f"  {folder}" if folder and folder != manifest.get("prompt_version") else "", "bold"),
        (f"  {manifest.get('backend', '?')}", ""),
        (f" · {manifest.get('model') or '-'}", "dim"),
        (f" · {summary.get('cases', 0)} cases", "dim"),
    )
    line2 = Text.assemble(
        _against(summary.get("mean_recall"), thresholds.get("min_mean_recall"), "recall"), "   ",
        _against(summary.get("mean_precision"), None, "precision"), "   ",
        ("fabrications ", ""),
        (str(fabrications), "bold red" if fabrications > max_fab else "bold green"),
        (f" (gate ≤ {max_fab})", "dim"),
    )
    extra = []
    if summary.get("unparseable"):
        extra.append(f"{summary['unparseable']} unparseable")
    if summary.get("errors"):
        extra.append(f"{summary['errors']} errors")
    if extra:
        line2.append("   " + ", ".join(extra), style="bold yellow")
    reasons = [Text(f"  ✗ {reason}", style="red") for reason in gate.get("reasons") or []]
    return Group(*(safe(line, one_line=True) for line in (line1, line2, *reasons)))


class RunHeader(Static):
    DEFAULT_CSS = """
    RunHeader {
        height: auto;
        padding: 0 1;
        border-bottom: solid $secondary;
    }
    """

    def show(self, manifest: Mapping[str, Any], folder: str = "") -> None:
        """``folder``: the run's folder under the results folder, shown when it is not the version alone."""
        self.update(header_renderable(manifest, folder))
