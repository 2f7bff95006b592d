"""``reviewtui import`` through the command line, on export files on disk.

Expected totals are computed here from the CSV text with the csv module and
Decimal, independently of the importer's parsing.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from reviewtui.commands.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "accounts"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["import", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def file_totals(path: Path, campaign_col: str, cost_col: str, skip_rows: int = 0) -> dict[str, Decimal]:
    """Cost per campaign straight from the CSV text (``Total:`` summary rows left out)."""
    lines = path.read_text(encoding="utf-8").splitlines()[skip_rows:]
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for row in csv.DictReader(lines):
        if any(str(v).startswith("Total:") for v in row.values()):
            continue
        raw = row[cost_col].replace(",", "")
        totals[row[campaign_col]] += Decimal(raw) if raw not in ("", "--") else Decimal(0)
    return totals


def snapshot_totals(snapshot: dict) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for row in snapshot["daily"]:
        totals[row["campaign_id"]] += Decimal(repr(row["cost"]))
    return totals


def to_cent(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"))


def test_meta_ad_level_export_sums_to_campaign_days_and_agrees_to_the_cent(tmp_path, capsys):
    src = FIXTURES / "meta_ads_ad_level.csv"
    code, out, err = run(capsys, "--format", "meta", src, "-o", tmp_path / "case", "--keep-ads", "--start", "2023-08-01", "--end", "2023-08-14",
                         "--account-id", "act_42", "--time-zone", "America/New_York")
    assert code == 0, err
    snap = json.loads((tmp_path / "case" / "snapshot.json").read_text())
    expected = file_totals(src, "Campaign ID", "Amount spent (USD)")
    got = snapshot_totals(snap)
    assert set(got) == set(expected)
    for campaign, cost in expected.items():
        assert to_cent(got[campaign]) == to_cent(cost)
        assert got[campaign] == cost  # exact, not merely to the cent
        assert f"{to_cent(cost):,}" in out  # the report prints the file's total
    assert snap["platform"] == "meta_ads" and snap["source"]["grain"] == "ad"
    assert snap["account"] == {"id": "act_42", "currency_code": "USD", "time_zone": "America/New_York"}
    # one row per campaign and day; the ad rows kept unsummed, cost text as exported
    # an empty cell is none: every daily row carries the metrics the export has (0 where empty)
    assert all(r["conversions"] == 0 for r in snap["daily"] if r["campaign_id"] == "120201234567890003")
    assert all(set(r) >= {"impressions", "clicks", "cost", "conversions", "conversions_value"} for r in snap["daily"])
    keys = [(r["date"], r["campaign_id"]) for r in snap["daily"]]
    assert len(keys) == len(set(keys))
    src_rows = list(csv.DictReader(src.read_text().splitlines()))
    assert len(snap["ad_daily"]) == len(src_rows)
    text = (tmp_path / "case" / "snapshot.json").read_text()
    for row in src_rows[:10]:
        assert f'"cost": {row["Amount spent (USD)"]}' in text
    # DD-MM-YYYY read as such: 13-08-2023 is the 13th of August
    assert snap["period"]["start"] == "2023-08-01" and snap["period"]["end"] == "2023-08-14"
    # a closed period: as_of after the end, every day complete
    assert snap["period"]["as_of"] == "2023-08-15" and snap["period"]["last_complete_date"] == "2023-08-14"
    # no status column in the export: no status in the snapshot
    assert all("status" not in c for c in snap["campaigns"])
    assert "80 row(s) read, 80 used, 0 dropped" in out
    assert "conversions above clicks on some rows, first at line 33" in out


def test_google_report_drops_total_rows_reads_dashes_and_separators(tmp_path, capsys):
    src = FIXTURES / "google_campaign_daily.csv"
    code, out, err = run(capsys, "--format", "google", src, "-o", tmp_path / "g.json")
    assert code == 0, err
    snap = json.loads((tmp_path / "g.json").read_text())
    expected = file_totals(src, "Campaign ID", "Cost", skip_rows=2)
    got = snapshot_totals(snap)
    assert {k: to_cent(v) for k, v in got.items()} == {k: to_cent(v) for k, v in expected.items()}
    for n in (41, 42, 43):
        assert f"line {n}: dropped: 'Total: " in out
    assert "40 row(s) read, 37 used, 3 dropped" in out
    # the date-range line sets the period
    assert (snap["period"]["start"], snap["period"]["end"]) == ("2023-08-01", "2023-08-14")
    assert snap["account"]["currency_code"] == "GBP" and snap["source"]["grain"] == "campaign"
    statuses = {c["id"]: c["status"] for c in snap["campaigns"]}
    assert statuses == {"18234567890": "ENABLED", "18234567891": "ENABLED", "18234567892": "PAUSED"}
    by_key = {(r["date"], r["campaign_id"]): r for r in snap["daily"]}
    assert by_key[("2023-08-05", "18234567891")]["search_impression_share"] == 0.0999  # "< 10%"
    pmax = by_key[("2023-08-01", "18234567892")]
    assert "search_impression_share" not in pmax  # "--" is no value, not zero
    assert isinstance(by_key[("2023-08-01", "18234567890")]["impressions"], int)


def test_plain_csv_with_a_mapping(tmp_path, capsys):
    src = FIXTURES / "conversion_data.csv"
    code, out, err = run(capsys, "--format", "csv", "--mapping", FIXTURES / "conversion_data.mapping.yaml",
                         src, "-o", tmp_path / "k.json", "--start", "2017-08-17", "--end", "2017-08-30")
    assert code == 0, err
    snap = json.loads((tmp_path / "k.json").read_text())
    expected = file_totals(src, "campaign_id", "spent")
    assert snapshot_totals(snap) == expected
    assert snap["account"]["id"] == "act_1000000001" and snap["account"]["time_zone"] == "America/New_York"
    assert snap["period"]["start"] == "2017-08-17"


def test_the_cli_entry_point_runs_the_import(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "reviewtui", "import", "--format", "google",
                           str(FIXTURES / "google_campaign_daily.csv"), "-o", str(tmp_path / "g.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "totals per campaign" in proc.stdout and (tmp_path / "g.json").exists()


def test_imported_snapshot_passes_check_as_a_case(tmp_path, capsys):
    case = tmp_path / "cases" / "imported"
    assert run(capsys, "--format", "google", FIXTURES / "google_campaign_daily.csv", "-o", case)[0] == 0
    (case / "expected.yaml").write_text("case: imported\nkind: clean\nmust_find: []\nmay_find: []\nmust_not_say: []\n")
    from reviewtui.caseset.cases import load_case_set, validate_case

    case_set = load_case_set(tmp_path / "cases")
    assert [c.case_id for c in case_set.cases] == ["imported"]
    assert validate_case(case_set.cases[0]) == []


# --- refused input: a message naming file, line and column; nothing written ---


def refused(capsys, tmp_path, *argv) -> str:
    out_path = tmp_path / "out.json"
    code, out, err = run(capsys, *argv, "-o", out_path)
    assert code == 2
    assert not out_path.exists() and not list(tmp_path.glob(".out.json*"))
    assert "nothing written" in err
    return err


def test_ambiguous_dates_need_date_format(tmp_path, capsys):
    src = FIXTURES / "meta_ambiguous_dates.csv"
    err = refused(capsys, tmp_path, "--format", "meta", src)
    assert f"{src}:2: column 'Day': " in err
    assert "--date-format 'DD/MM/YYYY' or --date-format 'MM/DD/YYYY'" in err
    code, out, err = run(capsys, "--format", "meta", src, "--date-format", "DD/MM/YYYY", "-o", tmp_path / "ok.json",
                         "--start", "2023-08-01", "--end", "2023-08-05")
    assert code == 0, err
    assert json.loads((tmp_path / "ok.json").read_text())["period"]["end"] == "2023-08-05"
    # read month-first, the same days are five months apart: an export that long is refused, offering a month
    err = refused(capsys, tmp_path, "--format", "meta", src, "--date-format", "MM/DD/YYYY")
    assert "the export covers 2023-01-08 to 2023-05-08 (121 days" in err and "--month 2023-04" in err


def test_lifetime_rows_are_refused_naming_the_export_setting(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "meta", FIXTURES / "meta_lifetime.csv")
    assert "meta_lifetime.csv:2: column 'Reporting ends': the row covers 2023-08-01 to 2023-08-31" in err
    assert "Breakdown > By time > Day" in err
    err = refused(capsys, tmp_path, "--format", "google", FIXTURES / "google_lifetime.csv")
    assert "google_lifetime.csv:3: the rows have no day" in err and "Segments > Time > Day" in err


def edited(tmp_path: Path, name: str, old: str, new: str, count: int = 1) -> Path:
    text = (FIXTURES / name).read_text()
    assert old in text
    path = tmp_path / f"edited-{name}"
    path.write_text(text.replace(old, new, count))
    return path


def test_unknown_layout_lists_expected_and_found_headers(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "google", FIXTURES / "meta_lifetime.csv")
    assert "meta_lifetime.csv:1: not a Google Ads report export: no cost column ('Cost'); expected the headers 'Cost'" in err
    assert "found 'Reporting starts', 'Reporting ends', 'Campaign name'" in err


def test_a_file_that_is_not_csv(tmp_path, capsys):
    png = tmp_path / "chart.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    err = refused(capsys, tmp_path, "--format", "meta", png)
    assert f"{png}:1: not a CSV file" in err
    prose = tmp_path / "notes.csv"
    prose.write_text("Dear team,\nplease find the numbers attached.\n")
    err = refused(capsys, tmp_path, "--format", "meta", prose)
    assert f"{prose}:1: not a Meta Ads Manager export" in err and "found 'Dear team'" in err


def test_empty_file(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert f"{empty}:1: the file is empty" in refused(capsys, tmp_path, "--format", "google", empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text((FIXTURES / "meta_ads_ad_level.csv").read_text().splitlines()[0] + "\n")
    assert "no data rows" in refused(capsys, tmp_path, "--format", "meta", header_only)


def test_currency_changing_inside_a_file(tmp_path, capsys):
    lines = (FIXTURES / "google_campaign_daily.csv").read_text().splitlines()
    lines[9] = lines[9].replace(",GBP,", ",EUR,")
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join(lines) + "\n")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:10: column 'Currency code': the currency changes from GBP" in err and "to EUR" in err


def test_negative_cost(tmp_path, capsys):
    path = edited(tmp_path, "meta_ads_ad_level.csv", ",37.108165741,", ",-37.108165741,")
    err = refused(capsys, tmp_path, "--format", "meta", path, "--start", "2023-08-01", "--end", "2023-08-14")
    assert f"{path}:2: column 'Amount spent (USD)': negative cost '-37.108165741'" in err


def test_a_value_that_is_not_a_number(tmp_path, capsys):
    path = edited(tmp_path, "google_campaign_daily.csv", '"5,771"', "lots")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:4: column 'Impr.': 'lots' is not a number" in err


def test_a_count_with_a_thousands_dot_is_refused_not_read_a_thousand_times_smaller(tmp_path, capsys):
    # a German-locale Meta export: 19.422 impressions are 19422, never 19.422
    path = edited(tmp_path, "meta_campaign_month.csv", ",13595,19422,260,", ",13595,19.422,260,")
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:2: column 'Impressions': '19.422' is not a whole number of impressions" in err
    assert "plain numbers" in err


def test_conversions_above_clicks_are_kept_and_reported(tmp_path, capsys):
    lines = (FIXTURES / "google_campaign_daily.csv").read_text().splitlines()
    cells = next(csv.reader([lines[3]]))
    cells[6], cells[8] = "3", "5.00"  # 3 clicks, 5 conversions
    out_csv = tmp_path / "g.csv"
    with out_csv.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        for i, line in enumerate(lines):
            if not line.startswith("Total:"):  # the edited row no longer adds up to the export's totals
                w.writerow(cells if i == 3 else next(csv.reader([line])))
    code, out, err = run(capsys, "--format", "google", out_csv, "-o", tmp_path / "g.json")
    assert code == 0, err
    assert "conversions above clicks on some rows, first at line 4 (5.00 > 3): kept" in out


def test_mapping_naming_a_missing_column(tmp_path, capsys):
    mapping = tmp_path / "m.yaml"
    mapping.write_text((FIXTURES / "conversion_data.mapping.yaml").read_text().replace("cost: spent", "cost: spend"))
    err = refused(capsys, tmp_path, "--format", "csv", "--mapping", mapping, FIXTURES / "conversion_data.csv")
    assert f"{mapping}:11: field 'cost' names the column 'spend', which conversion_data.csv does not have" in err
    assert "'spent'" in err  # the header it found


def test_csv_format_without_mapping(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "csv", FIXTURES / "conversion_data.csv")
    assert "--format csv needs --mapping" in err


def test_an_existing_snapshot_is_not_overwritten(tmp_path, capsys):
    target = tmp_path / "s.json"
    target.write_text("{}")
    code, out, err = run(capsys, "--format", "google", FIXTURES / "google_campaign_daily.csv", "-o", target)
    assert code == 2 and "already exists" in err and target.read_text() == "{}"


def test_rows_outside_the_given_period_are_refused(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "google", FIXTURES / "google_campaign_daily.csv", "--end", "2023-08-10")
    assert "google_campaign_daily.csv:33: the day 2023-08-11 is outside the period 2023-08-01 to 2023-08-10" in err


@pytest.mark.parametrize("text,value", [
    ("1,234.56", "1234.56"), ("1.234,56", "1234.56"), ("12,5", "12.5"), ("1,234,567", "1234567"),
    ("€1.234,56", "1234.56"), ("$2,041.75", "2041.75"), ("(12.00)", "-12.00"), ("85.23%", "0.8523"),
    ("< 10%", "0.0999"), ("1 234,56", "1234.56"), ("1.429999948", "1.429999948"),
])
def test_numbers_as_exports_write_them(text, value):
    from reviewtui.accounts.numbers import NumberScan, decide_marks, parse_number

    scan = NumberScan("Cost")  # a column holding this one value, in a comma-separated file
    scan.observe(text, 2, Path("x.csv"))
    mark = decide_marks([scan], Path("x.csv"), ",", None)["Cost"]
    assert parse_number(text, Path("x.csv"), 2, "Cost", mark) == Decimal(value)
    assert parse_number("--", Path("x.csv"), 2, "Cost", mark) is None


def test_several_files_of_one_account(tmp_path, capsys):
    lines = (FIXTURES / "meta_ads_ad_level.csv").read_text().splitlines()
    first, second = tmp_path / "part1.csv", tmp_path / "part2.csv"
    first.write_text("\n".join(lines[:40]) + "\n")
    second.write_text("\n".join([lines[0]] + lines[40:]) + "\n")
    # each file's dates are read on their own: the first half (days 1 to 7) cannot tell DD-MM from MM-DD
    assert "--date-format 'DD-MM-YYYY'" in refused(capsys, tmp_path, "--format", "meta", first, second)
    code, out, err = run(capsys, "--format", "meta", first, second, "--date-format", "DD-MM-YYYY",
                         "-o", tmp_path / "both.json", "--start", "2023-08-01", "--end", "2023-08-14")
    assert code == 0, err
    whole = file_totals(FIXTURES / "meta_ads_ad_level.csv", "Campaign ID", "Amount spent (USD)")
    assert snapshot_totals(json.loads((tmp_path / "both.json").read_text())) == whole
    # a second file in another currency is refused
    second.write_text(second.read_text().replace("Amount spent (USD)", "Amount spent (EUR)"))
    err = refused(capsys, tmp_path, "--format", "meta", first, second, "--date-format", "DD-MM-YYYY")
    assert "the currency changes from USD" in err and "to EUR" in err


def test_meta_results_count_only_conversion_results_and_the_summary_row_is_dropped(tmp_path, capsys):
    src = FIXTURES / "meta_results_bom.csv"  # UTF-8 with BOM, every cell quoted, CRLF, no campaign ids
    code, out, err = run(capsys, "--format", "meta", src, "-o", tmp_path / "r.json")
    assert code == 0, err
    snap = json.loads((tmp_path / "r.json").read_text())
    assert "line 2: dropped: summary row" in out and "7 row(s) read, 6 used, 1 dropped" in out
    by_campaign = defaultdict(float)
    for row in snap["daily"]:
        by_campaign[row["campaign_id"]] += row["conversions"]
    assert by_campaign == {"Herbst Sale | Conversions": 10, "Brand | Reach | DE": 0}  # reach results are not conversions
    assert "campaign names are used as ids" in out
    expected = file_totals(src, "Campaign name", "Amount spent (EUR)")
    expected.pop("", None)  # the summary row
    assert {k: to_cent(v) for k, v in snapshot_totals(snap).items()} == {k: to_cent(v) for k, v in expected.items()}


def test_google_excel_download_utf16_tab_separated(tmp_path, capsys):
    code, out, err = run(capsys, "--format", "google", FIXTURES / "google_excel_utf16.csv", "-o", tmp_path / "u.json")
    assert code == 0, err
    assert "12 row(s) read, 9 used, 3 dropped" in out
    snap = json.loads((tmp_path / "u.json").read_text())
    lines = (FIXTURES / "google_excel_utf16.csv").read_text(encoding="utf-16").splitlines()[2:]
    expected: dict[str, Decimal] = defaultdict(Decimal)
    for row in csv.DictReader(lines, delimiter="\t"):
        if not row["Day"].startswith("Total:"):
            expected[row["Campaign ID"]] += Decimal(row["Cost"].replace(",", ""))
    assert {k: to_cent(v) for k, v in snapshot_totals(snap).items()} == dict(expected)


@pytest.mark.parametrize("values,fmt", [
    (["May 1, 2023", "May 2, 2023"], "Mon D, YYYY"),  # also "Month D, YYYY": the same dates either way
    (["Aug 1, 2023", "Aug 31, 2023"], "Mon D, YYYY"),
    (["August 1, 2023"], "Month D, YYYY"),
    (["01/08/2023", "13/08/2023"], "DD/MM/YYYY"),  # the 13th settles it
    (["08/01/2023", "08/13/2023"], "MM/DD/YYYY"),
    (["17-08-2017", "18-08-2017"], "DD-MM-YYYY"),
])
def test_date_formats_are_read_when_the_values_settle_them(values, fmt):
    from reviewtui.accounts.dates import detect_date_format

    assert detect_date_format(list(enumerate(values, 2)), Path("x.csv"), "Day") == fmt


def test_the_same_export_twice_is_refused_and_a_repeated_row_is_named(tmp_path, capsys):
    src = FIXTURES / "meta_ads_ad_level.csv"
    copy = tmp_path / "again.csv"
    copy.write_bytes(src.read_bytes())
    err = refused(capsys, tmp_path, "--format", "meta", src, copy, "--date-format", "DD-MM-YYYY", "--start", "2023-08-01", "--end", "2023-08-14")
    assert f"{copy}:2: repeats {src}:2 whole" in err and "counted twice" in err
    # within one file a whole repeated row is refused with both lines: summed, the ad's day would count twice
    lines = src.read_text().splitlines()
    doubled = tmp_path / "doubled.csv"
    doubled.write_text("\n".join([*lines, lines[1]]) + "\n")
    err = refused(capsys, tmp_path, "--format", "meta", doubled, "--date-format", "DD-MM-YYYY", "--start", "2023-08-01", "--end", "2023-08-14")
    assert f"{doubled}:{len(lines) + 1}: repeats line 2 whole" in err
