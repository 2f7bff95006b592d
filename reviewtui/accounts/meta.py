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
from decimal import Decimal
from pathlib import Path

from .csvread import InputError, Progress, open_export
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
        "cost": (re.compile(r"Amount spent \((\w{3})\)", re.IGNORECASE), "Amount spent"),
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

# What a conversion is in a Meta export: the Purchases column, or a Result whose indicator names one
# of these events (Meta's standard events an account is judged on, and the advertiser's own custom
# conversions, ``offsite_conversion.custom.<id>``). Other results are not conversions: reach, clicks,
# views, engagement, saves (``post_save``), and the steps before a purchase (view content, add to cart,
# initiate checkout, add payment info, search), even where Meta files them under ``offsite_conversion``.
CONVERSION_EVENTS = frozenset({"purchase", "lead", "lead_grouped", "leadgen_grouped", "complete_registration",
                               "subscribe", "start_trial", "submit_application", "app_install", "mobile_app_install"})
_EVENT_PREFIXES = ("fb_pixel_", "fb_mobile_", "omni_", "onsite_web_app_", "onsite_web_", "onsite_app_")


def is_conversion_result(indicator: str) -> bool:
    """Whether a Result indicator (``actions:offsite_conversion.fb_pixel_purchase``) counts a conversion."""
    event = indicator.strip().lower().split(":", 1)[-1]
    parts = event.split(".")
    if len(parts) >= 2 and parts[-2] == "custom" and parts[-1].isdigit():
        return True  # a custom conversion: the advertiser defined it as one
    name = parts[-1]
    for prefix in _EVENT_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    return name in CONVERSION_EVENTS


def _is_header(cells: list[str]) -> bool:
    names = {c.lower() for c in cells}
    return bool(names & {"campaign name", "campaign id", "ad set name", "ad name"}) and any(
        c.lower().startswith("amount spent") or c.lower() == "impressions" for c in cells)


def read(path: Path, options: ReadOptions | None = None, progress: Progress | None = None) -> FileRows:
    export = open_export(path, _is_header, progress)
    options = options or ReadOptions()
    left_out: dict[str, list[Decimal]] = {}  # indicator -> [rows, results] not counted as conversions

    def results_only_conversions(row: SourceRow) -> None:
        indicator = row.text.get("result_indicator", "")
        if not is_conversion_result(indicator):
            value = row.numbers.get("conversions")
            if value:
                counts = left_out.setdefault(indicator or "(none)", [Decimal(0), Decimal(0)])
                counts[0] += 1
                counts[1] += value
            row.numbers["conversions"] = None

    cols = match_columns(export.header, LAYOUT)
    from_results = "conversions" in cols.index and export.header[cols.index["conversions"]] == "Results"
    if from_results and "result_indicator" not in cols.index:
        # Results counts each row's own result (purchases, reach, link clicks...): without the indicator
        # no row can be read as conversions, nor as none.
        if "conversions" not in options.allow_missing:
            raise InputError(path, export.header_line, "'Results' counts whatever each row's result is (purchases, "
                             "reach, link clicks...), and without a 'Result indicator' column the import cannot tell "
                             "which are conversions: add the 'Result indicator' column (or a 'Purchases' column) in "
                             "Ads Manager (Columns > Customise columns) and export again, or pass --allow-missing "
                             "conversions to import the account without conversions", "Results")
        del cols.index["conversions"]
        from_results = False
    entity = [cols.index[f] for f in ENTITY_FIELDS if f in cols.index]
    rows, reader = read_export(
        export, LAYOUT, options, cols,
        is_summary=lambda cells: not any(cells[i] and cells[i].strip() for i in entity),
        adjust=results_only_conversions if from_results else None)
    if from_results:
        reader.unchecked_totals.add("conversions")  # the summary's Results mixes every result type
        rows.metrics["conversions"] = "Results (where 'Result indicator' is a conversion)"

        def note() -> str:
            said = "; ".join(f"{int(n)} row(s) of {indicator!r} ({total:,} results)"
                             for indicator, (n, total) in sorted(left_out.items(), key=lambda kv: -kv[1][1])[:5])
            return ("conversions from 'Results' where 'Result indicator' is a purchase, lead, registration, "
                    "subscription, trial, application, app install or custom conversion"
                    + (f"; other results left out (not conversions): {said}" if said else "")
                    + (f" and {len(left_out) - 5} more indicator(s)" if len(left_out) > 5 else ""))
        rows.late_notes.append(note)
    return rows
