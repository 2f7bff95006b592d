"""Google Ads report downloads (Reports > Download > .csv).

Above the header: the report's title line and its date-range line
(``August 1, 2023 - August 31, 2023``). Empty cells are ``--``; costs may carry
thousands separators; the report ends with ``Total:`` rows (account, campaign
types), dropped as summaries. A daily report has the ``Day`` segment.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

from .build import FileRows
from .csvread import read_table
from .rows import Layout, drop_rows, match_columns, read_rows, require_layout

LAYOUT = Layout(
    name="Google Ads report",
    aliases={
        "date": ("Day", "Date"),
        "account_id": ("Customer ID", "Account ID"),
        "account_name": ("Account", "Account name"),
        "campaign_id": ("Campaign ID",),
        "campaign_name": ("Campaign",),
        "campaign_status": ("Campaign status", "Campaign state"),
        "ad_set_id": ("Ad group ID",),
        "ad_set_name": ("Ad group",),
        "ad_id": ("Ad ID",),
        "currency": ("Currency code", "Currency"),
        "impressions": ("Impr.", "Impressions"),
        "clicks": ("Clicks",),
        "cost": ("Cost",),
        "conversions": ("Conversions",),
        "conversions_value": ("Conv. value", "Conversion value", "Total conv. value"),
        "search_impression_share": ("Search impr. share",),
        "search_budget_lost_impression_share": ("Search lost IS (budget)",),
        "search_rank_lost_impression_share": ("Search lost IS (rank)",),
    },
    lifetime_fix="add the Day segment to the report (Segments > Time > Day) before downloading",
)

_RANGE = re.compile(r"^\s*(.+?)\s+[-–]\s+(.+?)\s*$")
_RANGE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y-%m-%d")


def _is_header(cells: list[str]) -> bool:
    names = {c.lower() for c in cells}
    return bool(names & {"campaign", "campaign id"}) and bool(names & {"cost", "impr.", "impressions", "clicks"})


def _day(text: str) -> date | None:
    for fmt in _RANGE_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    return None


def date_range(preamble: list[list[str]]) -> tuple[date, date] | None:
    """The report's range from the line above the header, if it names one."""
    for cells in preamble:
        m = _RANGE.match(",".join(cells).strip().strip('"'))
        if m:
            start, end = _day(m.group(1)), _day(m.group(2))
            if start and end:
                return start, end
    return None


def read(path: Path, date_format: str | None) -> FileRows:
    table = read_table(path, _is_header)
    cols = match_columns(table, LAYOUT)
    require_layout(table, LAYOUT, cols)
    rows_read = len(table.rows)
    dropped = drop_rows(table, cols, lambda cells, _cell: any(c.strip().startswith("Total:") for c in cells[:4]),
                        "Total: row (the report's summary)")
    rows = read_rows(table, LAYOUT, cols, date_format)
    return FileRows(path, rows, rows_read, dropped,
                    currency_column=cols.name(table, "currency") if "currency" in cols.index else None,
                    period=date_range(table.preamble))
