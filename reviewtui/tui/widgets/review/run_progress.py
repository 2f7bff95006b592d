"""Progress of a run in the app: a bar for cases done of total, and a line of counters under it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, ProgressBar

from ....runs.runner import Progress
from ...plain import para, plain


def progress_line(progress: Progress, state: str, kept: int = 0) -> str:
    """``running: 3 of 5 cases · 0 errors · 6,000 tokens · ≈ $0.0120 · 2 kept from the earlier run``
    (the cost is unknown for a model without a list price)."""
    tokens = progress.input_tokens + progress.output_tokens
    cost = "cost unknown for this model" if progress.cost_usd is None else f"≈ ${progress.cost_usd:,.4f}"
    parts = [f"{state}: {progress.done} of {progress.total} cases", f"{progress.errors} errors",
             f"{tokens:,} tokens", cost]
    if progress.cached:
        parts.append(f"{progress.cached} from the cache")
    if kept:
        parts.append(f"{kept} kept from the earlier run")
    return " · ".join(parts)


class RunProgress(Vertical):
    """A progress bar over the cases of the run, with the counters line under it."""

    DEFAULT_CSS = """
    RunProgress { height: auto; padding: 0 1; }
    RunProgress ProgressBar { width: 1fr; }
    RunProgress Bar { width: 1fr; }
    RunProgress #progress-line { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield ProgressBar(show_eta=False, id="progress-bar")
        yield Label("not started", id="progress-line")

    def show(self, progress: Progress, state: str = "running", kept: int = 0) -> None:
        self.query_one(ProgressBar).update(total=max(progress.total, 1), progress=progress.done)
        self.query_one("#progress-line", Label).update(plain(progress_line(progress, state, kept)))

    def say(self, text: str) -> None:
        """Replace the counters line (before a run starts, or when it could not start)."""
        self.query_one("#progress-line", Label).update(para(text))

    @property
    def line(self) -> str:
        return str(self.query_one("#progress-line", Label).content)
