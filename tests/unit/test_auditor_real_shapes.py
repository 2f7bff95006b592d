"""The reference auditor on real account shapes (issue 24, items 15-19): exports written in the layouts the
platforms' downloads and API pulls write (tests/fixtures/accounts/, tests/fixtures/auditor/real_shapes/),
imported through ``reviewtui import`` and audited as ``reviewtui eval --backend rules`` would.

Each false or missed finding the issue names is reproduced here on a small account of that shape: a yen
account read as money in micros (and its true spend concentration withheld by that), days without delivery
read as days the export dropped, weekend-only and weekday-only campaigns read as stopped, an account without
conversion tracking given a clean bill, and a claim about bidding the snapshot does not hold.
"""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import pytest

from reviewtui.auditor import audit
from reviewtui.commands.main import main
from tests.fixtures.auditor.helpers import on_disk, ungrounded

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACCOUNTS = FIXTURES / "accounts"
SHAPES = FIXTURES / "auditor" / "real_shapes"
JA_MAPPING = ACCOUNTS / "google_ja_jpy.mapping.yaml"
API_MAPPING = SHAPES / "google_api_weekly.mapping.yaml"

MICROS = "data.micros_not_converted"
MISSING = "data.missing_days"
STOPPED = "delivery.serving_stopped"
SPEND = "concentration.spend_single_campaign"
ABSENT = "tracking.no_conversion_tracking"
ZERO_CAMPAIGN = "waste.zero_conv_campaign"

GENERIC_JPY = "19887700011"  # the yen account's generic search campaign: 91.8% of the spend
WEEKDAY_CAMPAIGNS = ("21034400001", "21034400002")
WEEKEND_CAMPAIGNS = ("21034400003", "21034400004")


def imported(capsys, tmp_path: Path, *argv) -> dict:
    """``reviewtui import ARGV -o tmp_path/snapshot.json``, the snapshot it wrote."""
    out = tmp_path / "snapshot.json"
    code = main(["import", *map(str, argv), "-o", str(out), "--force"])
    _, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out.read_text(encoding="utf-8"))


def audited(tmp_path: Path, data: dict, name: str = "audited.json"):
    """The audit of ``data`` written to disk and loaded back as a case snapshot, with its figures checked."""
    snapshot = on_disk(tmp_path, data, name)
    result = audit(snapshot.data, strict=True)
    assert ungrounded(snapshot, result) == []
    return result


def found(result, kind: str) -> dict[str | None, object]:
    return {f.scope: f for f in result.findings if f.kind == kind}


def variant(tmp_path: Path, source: Path, edit, name: str | None = None) -> Path:
    text = source.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    path = tmp_path / (name or f"variant-{source.name}")
    path.write_text(changed, encoding="utf-8")
    return path


# --- item 15: money in micros is read against the currency's own scale -------------------------------


def test_a_yen_account_is_not_read_as_money_in_micros(capsys, tmp_path):
    """google_ja_jpy.csv: a click at 1,504 yen (about 10 US dollars) is not a CPC above 1,000 "units".
    The campaign's stop on 2023-06-08 of a range to 06-15 is real and still reported."""
    data = imported(capsys, tmp_path, "--format", "csv", "--mapping", JA_MAPPING, ACCOUNTS / "google_ja_jpy.csv")
    result = audited(tmp_path, data)
    assert MICROS not in found(result, MICROS) and not found(result, MICROS)
    assert set(found(result, STOPPED)) == {"19887700001"}


def test_the_yen_accounts_spend_concentration_is_reported_not_withheld(capsys, tmp_path):
    """The false micros finding withheld a true 91.8% spend concentration; now it is reported, high."""
    data = imported(capsys, tmp_path, "--format", "csv", "--mapping", JA_MAPPING, SHAPES / "google_ja_jpy_account.csv")
    result = audited(tmp_path, data)
    assert not found(result, MICROS)
    concentration = found(result, SPEND)
    assert set(concentration) == {GENERIC_JPY}
    assert concentration[GENERIC_JPY].severity == "high"
    assert "91.8%" in concentration[GENERIC_JPY].evidence


# Units per US dollar, about: a yen account's figures redrawn in each currency the issue names.
PER_YEN = {"KRW": 9.0, "IDR": 105.0, "VND": 165.0, "HUF": 2.4, "CLP": 6.2, "COP": 27.0}


def in_currency(data: dict, currency: str, factor: float) -> dict:
    out = copy.deepcopy(data)
    out["account"]["currency_code"] = currency
    for row in out["daily"]:
        row["cost"] = round(row["cost"] * factor, 2)
        if "currency_code" in row:
            row["currency_code"] = currency
    return out


@pytest.fixture(scope="module")
def yen_account(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("yen")
    out = tmp / "snapshot.json"
    assert main(["import", "--format", "csv", "--mapping", str(JA_MAPPING), str(SHAPES / "google_ja_jpy_account.csv"),
                 "-o", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("currency", sorted(PER_YEN))
def test_ordinary_clicks_in_small_unit_currencies_are_not_micros(tmp_path, yen_account, currency):
    result = audited(tmp_path, in_currency(yen_account, currency, PER_YEN[currency]))
    assert not found(result, MICROS)
    assert set(found(result, SPEND)) == {GENERIC_JPY}


@pytest.mark.parametrize("currency", ["JPY", "USD", *sorted(PER_YEN)])
def test_money_left_in_micros_is_still_found_in_every_currency(tmp_path, yen_account, currency):
    """Every row's money a million times its value: far above the bar whatever the currency's scale."""
    factor = PER_YEN.get(currency, 1.0 if currency == "JPY" else 1 / 150)
    result = audited(tmp_path, in_currency(yen_account, currency, factor * 1_000_000))
    assert set(found(result, MICROS)) == {None}
    assert not found(result, SPEND)  # withheld: a unit error is not a share of spend


# --- items 16 and 17: days a campaign does not deliver --------------------------------------------------


def api_pull(capsys, tmp_path: Path, *, end: str = "2024-05-31") -> dict:
    """The API pull of May 2024 (weekday and weekend campaigns, German public holidays), cut at ``end``."""
    path = SHAPES / "google_api_weekly.csv"
    if end != "2024-05-31":
        path = variant(tmp_path, path, lambda text: "".join(
            line for line in text.splitlines(keepends=True) if not line[:10].startswith("2024-05") or line[:10] <= end))
    return imported(capsys, tmp_path, "--format", "csv", "--mapping", API_MAPPING, path, "--start", "2024-05-01",
                    "--end", end)


def test_public_holidays_without_any_row_are_not_days_the_export_dropped(capsys, tmp_path):
    """No campaign has a row on 2024-05-09, 05-20 and 05-30 (public holidays the weekday campaigns are
    scheduled off, on weekdays the weekend campaigns never serve): the import says a missing row means no
    delivery, so they are not missing days, and pacing is not withheld for them."""
    data = imported_full = api_pull(capsys, tmp_path)
    assert data["source"]["missing_row_means"] == "no_delivery"
    result = audited(tmp_path, imported_full)
    assert not found(result, MISSING)
    assert not any(a.kind.startswith("pacing.") and "broken data" in a.explanation for a in result.assessments)


def test_without_the_sources_word_a_weekday_gap_is_still_a_missing_day(capsys, tmp_path):
    """A snapshot that does not say what a missing row means keeps the rule: days with no row at all
    between days with spend are missing, unless they are off every delivering campaign's weekly rhythm
    (the weekends of the weekday campaigns are not)."""
    data = api_pull(capsys, tmp_path)
    del data["source"]["missing_row_means"]
    weekdays_only = dict(data, daily=[r for r in data["daily"] if r["campaign_id"] in WEEKDAY_CAMPAIGNS],
                         campaigns=[c for c in data["campaigns"] if c["id"] in WEEKDAY_CAMPAIGNS])
    result = audited(tmp_path, weekdays_only)
    missing = found(result, MISSING)
    assert set(missing) == {None}
    text = missing[None].claim
    assert "2024-05-09" in text and "2024-05-20" in text and "2024-05-30" in text
    assert "2024-05-04" not in text and "2024-05-05" not in text  # a Saturday and a Sunday: their rhythm


def test_weekend_campaigns_are_not_stopped_from_monday_to_friday(capsys, tmp_path):
    """The month ends on Friday 2024-05-31: the weekend campaigns last served on Sunday 05-26."""
    result = audited(tmp_path, api_pull(capsys, tmp_path))
    assert not found(result, STOPPED)
    assert set(found(result, "summary.no_material_issues")) == {None}


def test_weekday_campaigns_are_not_stopped_over_a_weekend_and_a_holiday(capsys, tmp_path):
    """Cut at Whit Monday 2024-05-20: the weekday campaigns last served on Friday 05-17, then a Saturday,
    a Sunday and a public holiday."""
    result = audited(tmp_path, api_pull(capsys, tmp_path, end="2024-05-20"))
    assert not found(result, STOPPED)


def drop_rows(data: dict, campaign: str, after: str) -> dict:
    out = copy.deepcopy(data)
    out["daily"] = [r for r in out["daily"] if r["campaign_id"] != campaign or r["date"] <= after]
    return out


@pytest.mark.parametrize("campaign, after, since, rhythm", [
    # Monday to Friday 05-27..31 without a row, after three weeks that set its rhythm
    (WEEKDAY_CAMPAIGNS[1], "2024-05-24", "2024-05-25", "it never serves on Saturdays or Sundays"),
    # Served on two weekends only (05-04 to 05-12): each weekday came round once, too few to call it its
    # rhythm, so every day after counts
    (WEEKEND_CAMPAIGNS[0], "2024-05-12", "2024-05-13", None),
])
def test_a_campaign_that_stops_is_still_found(capsys, tmp_path, campaign, after, since, rhythm):
    result = audited(tmp_path, drop_rows(api_pull(capsys, tmp_path), campaign, after))
    stopped = found(result, STOPPED)
    assert set(stopped) == {campaign}
    assert f"since {since}" in stopped[campaign].claim
    assert (rhythm in stopped[campaign].evidence) if rhythm else ("never serves" not in stopped[campaign].evidence)


def test_a_weekend_campaign_stops_only_after_three_of_its_own_days(capsys, tmp_path):
    """Last served on Sunday 05-19: the Saturday and Sunday after are two days it serves on, not three."""
    result = audited(tmp_path, drop_rows(api_pull(capsys, tmp_path), WEEKEND_CAMPAIGNS[1], "2024-05-19"))
    assert not found(result, STOPPED)


def test_the_furniture_shops_weekend_campaign_enabled_is_not_stopped(capsys, tmp_path):
    """google_furniture_month.csv's weekend campaign, enabled: rows on Saturdays and Sundays only, the month
    ending on a Friday."""
    path = variant(tmp_path, ACCOUNTS / "google_furniture_month.csv", lambda t: t.replace(",Paused,", ",Enabled,"))
    data = imported(capsys, tmp_path, "--format", "google", path)
    assert {c["status"] for c in data["campaigns"]} == {"ENABLED"}
    assert not found(audited(tmp_path, data), STOPPED)


# --- item 18: an account without conversion tracking -----------------------------------------------------


def test_an_account_without_conversion_tracking_is_named(capsys, tmp_path):
    """7 conversions on 124,947.31 USD and 45,616 clicks: every conversion check reads the account against
    itself, so before this kind nothing fired and the summary said all was well."""
    data = imported(capsys, tmp_path, "--format", "google", SHAPES / "google_no_tracking.csv")
    result = audited(tmp_path, data)
    absent = found(result, ABSENT)
    assert set(absent) == {None} and absent[None].severity == "high"
    assert "7 conversions on 45,616 clicks and 124,947.31 USD" in absent[None].evidence
    assert {f.kind for f in result.findings} == {ABSENT}
    withheld = {a.kind for a in result.assessments if a.supported is None and "broken data" in a.explanation}
    assert {ZERO_CAMPAIGN, "efficiency.off_target", "tracking.conversions_stopped"} <= withheld


def test_an_account_that_tracks_conversions_is_not_named(capsys, tmp_path):
    data = imported(capsys, tmp_path, "--format", "google", ACCOUNTS / "google_furniture_month.csv")
    result = audited(tmp_path, data)
    assert not found(result, ABSENT)
    assert [a.supported for a in result.assessments if a.kind == ABSENT] == [False]


def test_an_export_without_a_conversions_column_is_not_read_as_no_tracking(capsys, tmp_path):
    """Imported with --allow-missing conversions, the rows carry no conversions: nothing to read, not zero."""
    path = variant(tmp_path, SHAPES / "google_no_tracking.csv", _without_column("Conversions"))
    data = imported(capsys, tmp_path, "--format", "google", path, "--allow-missing", "conversions",
                    "--skip-export-totals")
    result = audited(tmp_path, data)
    assert not found(result, ABSENT)
    assert [a.supported for a in result.assessments if a.kind == ABSENT] == [None]


def _without_column(name: str):
    def edit(text: str) -> str:
        lines = text.splitlines()
        rows = list(csv.reader(lines[2:]))
        at = rows[0].index(name)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows([[c for i, c in enumerate(row) if i != at] for row in rows])
        return "\n".join(lines[:2]) + "\n" + out.getvalue()
    return edit


def test_all_conversions_held_is_not_absent_tracking(capsys, tmp_path):
    """Actions counted in all_conversions, none as primary: a goal question, not tracking that is absent."""
    data = imported(capsys, tmp_path, "--format", "google", SHAPES / "google_no_tracking.csv")
    for row in data["daily"]:
        row["all_conversions"] = round(row["clicks"] * 0.03, 2)
    assert not found(audited(tmp_path, data), ABSENT)


# --- item 19: the auditor's words claim only what the snapshot holds ------------------------------------


def zero_conversion_pmax(capsys, tmp_path: Path, **campaign_fields) -> dict:
    """The furniture shop's month with its Performance Max campaign recording no conversion."""
    data = imported(capsys, tmp_path, "--format", "google", ACCOUNTS / "google_furniture_month.csv")
    for row in data["daily"]:
        if row["campaign_id"] == "20451100003":
            row["conversions"], row["conversions_value"] = 0, 0
    for camp in data["campaigns"]:
        if camp["id"] == "20451100003":
            camp.update(campaign_fields)
    return data


def test_a_zero_conversion_campaign_without_bidding_data_is_not_said_to_bid_for_conversions(capsys, tmp_path):
    result = audited(tmp_path, zero_conversion_pmax(capsys, tmp_path))
    finding = found(result, ZERO_CAMPAIGN)["20451100003"]
    assert "bid" not in finding.claim.lower()
    assert finding.claim.startswith("Campaign 20451100003 (PMax | All products) has recorded no conversions")


@pytest.mark.parametrize("strategy, words", [
    ("MAXIMIZE_CONVERSIONS", "bids for conversions (MAXIMIZE_CONVERSIONS) and has recorded none"),
    ("MAXIMIZE_CLICKS", ", bidding MAXIMIZE_CLICKS, has recorded no conversions"),
])
def test_a_zero_conversion_campaign_names_the_strategy_the_snapshot_gives(capsys, tmp_path, strategy, words):
    result = audited(tmp_path, zero_conversion_pmax(capsys, tmp_path, bidding_strategy_type=strategy))
    assert words in found(result, ZERO_CAMPAIGN)["20451100003"].claim
