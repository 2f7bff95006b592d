"""Meta Ads Manager CSV exports (Reports > Export table data > .csv).

A daily export has a ``Day`` column (Breakdown > By time > Day) at campaign,
ad set or ad level; ``Reporting starts``/``Reporting ends`` give the range and,
without ``Day``, must be equal on every row. The currency is in the cost
header, ``Amount spent (USD)``. Meta leaves out days on which nothing was
delivered. The summary row (no campaign, ad set or ad), and any ``Total: ...``
row, is the export's own total: the rows' sums are checked against it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .csvread import Progress, open_export
from .rows import ENTITY_FIELDS, FileRows, Layout, ReadOptions, SourceRow, match_columns, read_export

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
    add_column="add the column in Ads Manager (Columns > Customise columns) before exporting",
)

# Result indicators that count conversions; other results (reach, link clicks,
# video views) are not conversions and are left out.
_CONVERSION_RESULT = re.compile(r"purchase|lead|registration|conversion|subscribe|checkout|add_to_cart|app_install",
                                re.IGNORECASE)


def _is_header(cells: list[str]) -> bool:
    names = {c.lower() for c in cells}
    return bool(names & {"campaign name", "campaign id", "ad set name", "ad name"}) and any(
        c.lower().startswith("amount spent") or c.lower() == "impressions" for c in cells)


def read(path: Path, options: ReadOptions | None = None, progress: Progress | None = None) -> FileRows:
    export = open_export(path, _is_header, progress)
    holder: dict[str, int] = {"left_out": 0}

    def results_only_conversions(row: SourceRow) -> None:
        if not _CONVERSION_RESULT.search(row.text.get("result_indicator", "")):
            if row.numbers.get("conversions"):
                holder["left_out"] += 1
            row.numbers["conversions"] = None

    cols = match_columns(export.header, LAYOUT)
    from_results = "conversions" in cols.index and export.header[cols.index["conversions"]] == "Results"
    entity = [cols.index[f] for f in ENTITY_FIELDS if f in cols.index]
    rows, reader = read_export(
        export, LAYOUT, options or ReadOptions(), cols,
        is_summary=lambda cells: not any(cells[i] and cells[i].strip() for i in entity),
        adjust=results_only_conversions if from_results else None)
    if from_results:
        reader.unchecked_totals.add("conversions")  # the summary's Results mixes every result type
        rows.metrics["conversions"] = "Results (where 'Result indicator' is a conversion)"

        def note() -> str:
            return ("conversions from 'Results' where 'Result indicator' is a conversion"
                    + (f"; {holder['left_out']} row(s) of other results (reach, clicks...) left out"
                       if holder["left_out"] else ""))
        rows.late_notes.append(note)
    return rows
