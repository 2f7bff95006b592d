"""How an account's weekly status reads: ready to send in green, hold for review in white on red, others in yellow."""

from __future__ import annotations

from rich.text import Text

from ....weekly.results import HOLD, READY
from ...plain import plain

STATUS_STYLES = {READY: "bold green", HOLD: "bold white on red"}


def status_cell(status: str) -> Text:
    return plain(status, STATUS_STYLES.get(status, "bold yellow"))
