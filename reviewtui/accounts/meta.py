"""Meta Ads Manager CSV exports (Reports > Export table data > .csv).

A daily export has a ``Day`` column (Breakdown > By time > Day) at campaign,
ad set or ad level; ``Reporting starts``/``Reporting ends`` give the range and,
without ``Day``, must be equal on every row. The currency is in the cost
header, ``Amount spent (USD)``. Meta leaves out days on which nothing was
delivered. A summary row (no campaign, ad set or ad) is dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from .build import FileRows
from .csvread import read_table
from .rows import Layout, drop_rows, match_columns, read_rows, require_layout

LAYOUT = Layout(
    name="Meta Ads Manager",
    aliases={
        "date": ("Day", "Date"),
        "reporting_start": ("Reporting starts", "Reporting start"),
        "reporting_end": ("Reporting ends", "Reporting end"),
        "account_id": ("Account ID",),
        "account_name": ("Account name",),
        "campaign_id": ("Campaign ID",),
        "campaign_name": ("Campaign name",),
        "campaign_status": ("Campaign status",),
        "delivery_status": ("Campaign delivery", "Delivery status"),
        "ad_set_id": ("Ad set ID",),
        "ad_set_name": ("Ad set name",),
        "ad_id": ("Ad ID",),
        "ad_name": ("Ad name",),
        "currency": ("Currency",),
        "cost": (re.compile(r"Amount spent \((\w{3})\)"), "Amount spent"),
        "impressions": ("Impressions",),
        "reach": ("Reach",),
        "clicks": ("Link clicks", "Clicks (all)"),
        "conversions": ("Purchases", "Website purchases", "Results"),
        "result_indicator": ("Result indicator",),
        "conversions_value": ("Purchases conversion value", "Website purchases conversion value",
                              "Purchase conversion value"),
    },
    lifetime_fix="in Ads Manager choose Breakdown > By time > Day before exporting",
)

# Result indicators that count conversions; other results (reach, link clicks,
# video views) are not conversions and are left out.
_CONVERSION_RESULT = re.compile(r"purchase|lead|registration|conversion|subscribe|checkout|add_to_cart|app_install",
                                re.IGNORECASE)


def _is_header(cells: list[str]) -> bool:
    names = {c.lower() for c in cells}
    return bool(names & {"campaign name", "campaign id", "ad set name", "ad name"}) and any(
        c.lower().startswith("amount spent") or c.lower() == "impressions" for c in cells)


def read(path: Path, date_format: str | None) -> FileRows:
    table = read_table(path, _is_header)
    cols = match_columns(table, LAYOUT)
    require_layout(table, LAYOUT, cols)
    rows_read = len(table.rows)
    dropped = drop_rows(table, cols, lambda _cells, cell: not any(
        cell(f) for f in ("campaign_id", "campaign_name", "ad_set_id", "ad_set_name", "ad_id", "ad_name")),
        "summary row (no campaign, ad set or ad: the export's total)")
    rows = read_rows(table, LAYOUT, cols, date_format)
    notes = []
    if "conversions" in cols.index and cols.name(table, "conversions") == "Results":
        left_out = 0
        for row in rows:
            if not _CONVERSION_RESULT.search(row.text.get("result_indicator", "")):
                if row.numbers.get("conversions"):
                    left_out += 1
                row.numbers["conversions"] = None
        notes.append("conversions from 'Results' where 'Result indicator' is a conversion"
                     + (f"; {left_out} row(s) of other results (reach, clicks...) left out" if left_out else ""))
    spans = [r.span for r in rows if r.span]
    period = (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None
    return FileRows(path, rows, rows_read, dropped, currency=cols.header_currency,
                    currency_column=cols.name(table, "currency") if "currency" in cols.index else None,
                    period=period, notes=notes)
