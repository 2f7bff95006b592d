"""Google Ads report downloads (Reports > Download > .csv, or .csv for Excel: UTF-16 with tabs).

Above the header: the report's title line and its date-range line
(``August 1, 2023 - August 31, 2023``, in the account's language: see
``dates.parse_range``), which sets the period. Empty cells are ``--``; costs may
carry thousands separators; the report ends with ``Total:`` rows (the account,
each campaign type), the export's own totals, against which the rows' sums are
checked. A daily report has the ``Day`` segment.
"""

from __future__ import annotations

from pathlib import Path

from .csvread import Progress, open_export
from .rows import FileRows, Layout, ReadOptions, read_export

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
    add_column="add the column to the report (Columns > Modify columns) before downloading",
)


def _is_header(cells: list[str]) -> bool:
    names = {c.lower() for c in cells}
    return bool(names & {"campaign", "campaign id"}) and bool(names & {"cost", "impr.", "impressions", "clicks"})


def read(path: Path, options: ReadOptions | None = None, progress: Progress | None = None) -> FileRows:
    export = open_export(path, _is_header, progress)
    return read_export(export, LAYOUT, options or ReadOptions())[0]
