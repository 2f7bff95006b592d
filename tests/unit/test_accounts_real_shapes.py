"""``reviewtui import`` on real-shaped exports (tests/fixtures/accounts/README.md) and on the ordinary
mistakes of downloading them: each of issue 24's silent wrong snapshots is a refusal naming the file,
the line and the fix, or a right snapshot.

The clean exports' expected figures are summed here from the CSV text with the csv module and
Decimal, independently of the importer's parsing.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from reviewtui.commands.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "accounts"
METRICS = ("cost", "clicks", "impressions", "conversions")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["import", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def imported(capsys, tmp_path: Path, *argv) -> tuple[dict, str]:
    out_path = tmp_path / "snapshot.json"
    code, out, err = run(capsys, *argv, "-o", out_path, "--force")
    assert code == 0, err
    return json.loads(out_path.read_text(encoding="utf-8")), out


def refused(capsys, tmp_path: Path, *argv) -> str:
    out_path = tmp_path / "refused.json"
    code, out, err = run(capsys, *argv, "-o", out_path)
    assert code == 2, out + err
    assert not out_path.exists()
    assert "nothing written" in err and "Traceback" not in err
    return err


def variant(tmp_path: Path, name: str, edit, encoding: str = "utf-8") -> Path:
    """A copy of a corpus file with ``edit(text) -> text`` applied."""
    text = (FIXTURES / name).read_text(encoding=encoding)
    changed = edit(text)
    assert changed != text
    path = tmp_path / f"variant-{name}"
    path.write_bytes(changed.encode(encoding))
    return path


def lines_of(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True)


# --- the clean corpus: every figure as in the raw rows, summed independently ------------------


def _plain(cell: str, decimal: str) -> Decimal:
    cell = cell.strip()
    if cell in ("", "--"):
        return Decimal(0)
    digits = re.sub(r"[^\d.,-]", "", cell)
    digits = digits.replace(".", "").replace(",", ".") if decimal == "," else digits.replace(",", "")
    return Decimal(digits)


CLEAN = {
    # name: (import arguments, encoding, delimiter, lines above the header, campaign column,
    #        {metric: column}, decimal mark)
    "google_campaign_daily.csv": (("--format", "google"), "utf-8", ",", 2, "Campaign ID",
                                  {"cost": "Cost", "clicks": "Clicks", "impressions": "Impr.", "conversions": "Conversions"}, "."),
    "google_furniture_month.csv": (("--format", "google"), "utf-8", ",", 2, "Campaign ID",
                                   {"cost": "Cost", "clicks": "Clicks", "impressions": "Impr.", "conversions": "Conversions"}, "."),
    "google_excel_utf16.csv": (("--format", "google"), "utf-16", "\t", 2, "Campaign ID",
                               {"cost": "Cost", "clicks": "Clicks", "impressions": "Impr.", "conversions": "Conversions"}, "."),
    "google_ja_jpy.csv": (("--format", "csv", "--mapping", FIXTURES / "google_ja_jpy.mapping.yaml"), "utf-8", ",", 2,
                          "キャンペーン ID", {"cost": "費用", "clicks": "クリック数", "impressions": "表示回数",
                                          "conversions": "コンバージョン"}, "."),
    "kwd_semicolon.csv": (("--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml"), "utf-8", ";", 0,
                          "Kampagne", {"cost": "Kosten", "clicks": "Klicks", "impressions": "Impressionen",
                                       "conversions": "Conversions"}, ","),
    "meta_ads_ad_level.csv": (("--format", "meta", "--start", "2023-08-01", "--end", "2023-08-14"), "utf-8", ",", 0, "Campaign ID",
                              {"cost": "Amount spent (USD)", "clicks": "Link clicks", "impressions": "Impressions",
                               "conversions": "Purchases"}, "."),
    "meta_campaign_month.csv": (("--format", "meta"), "utf-8", ",", 0, "Campaign ID",
                                {"cost": "Amount spent (USD)", "clicks": "Link clicks", "impressions": "Impressions",
                                 "conversions": "Purchases"}, "."),
    "meta_summary_month.csv": (("--format", "meta"), "utf-8", ",", 0, "Campaign ID",
                               {"cost": "Amount spent (GBP)", "clicks": "Link clicks", "impressions": "Impressions",
                                "conversions": "Purchases"}, "."),
    "conversion_data.csv": (("--format", "csv", "--mapping", FIXTURES / "conversion_data.mapping.yaml", "--start",
                             "2017-08-17", "--end", "2017-08-30"), "utf-8", ",", 0,
                            "campaign_id", {"cost": "spent", "clicks": "clicks", "impressions": "impressions",
                                            "conversions": "approved_conversion"}, "."),
}


def raw_sums(name: str) -> dict[str, dict[str, Decimal]]:
    _args, encoding, delimiter, skip, campaign, columns, decimal = CLEAN[name]
    text = (FIXTURES / name).read_text(encoding=encoding)
    rows = list(csv.DictReader(io.StringIO("\n".join(text.splitlines()[skip:])), delimiter=delimiter))
    sums: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for row in rows:
        first = next(iter(row.values()))
        if first.startswith(("Total:", "合計")) or not row[campaign]:  # the export's own totals
            continue
        for metric, column in columns.items():
            sums[row[campaign]][metric] += _plain(row[column], decimal)
    return sums


def snapshot_sums(snapshot: dict) -> dict[str, dict[str, Decimal]]:
    sums: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for row in snapshot["daily"]:
        for metric in METRICS:
            sums[row["campaign_id"]][metric] += Decimal(repr(row.get(metric, 0)))
    return sums


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_every_clean_export_imports_with_the_raw_rows_figures_to_the_cent(name, tmp_path, capsys):
    snapshot, out = imported(capsys, tmp_path, *CLEAN[name][0], FIXTURES / name)
    expected = raw_sums(name)
    got = snapshot_sums(snapshot)  # without an id column the campaign's name is its id
    assert set(got) == set(expected)
    for campaign, metrics in expected.items():
        for metric, value in metrics.items():
            assert got[campaign][metric].quantize(Decimal("0.01")) == value.quantize(Decimal("0.01")), (campaign, metric)
    assert "metrics found:" in out and "not in the export:" in out


def test_meta_results_count_only_where_the_indicator_is_a_conversion(tmp_path, capsys):
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", FIXTURES / "meta_results_bom.csv")
    rows = list(csv.DictReader(io.StringIO((FIXTURES / "meta_results_bom.csv").read_text(encoding="utf-8-sig"))))
    expected: dict[str, Decimal] = defaultdict(Decimal)
    for row in rows[1:]:  # the first is the summary row
        if "purchase" in row["Result indicator"]:
            expected[row["Campaign name"]] += Decimal(row["Results"])
        expected.setdefault(row["Campaign name"], Decimal(0))
    assert {k: v["conversions"] for k, v in snapshot_sums(snapshot).items()} == expected


# --- 1. the same export passed twice ---------------------------------------------------------


def test_item01_the_same_file_twice_is_refused(tmp_path, capsys, monkeypatch):
    src = tmp_path / "x.csv"
    src.write_bytes((FIXTURES / "google_furniture_month.csv").read_bytes())
    monkeypatch.chdir(tmp_path)
    for second in ("x.csv", "./x.csv", str(src)):
        err = refused(capsys, tmp_path, "--format", "google", "x.csv", second)
        assert f"{Path(second)}:1: the same file as x.csv (arguments 1 and 2)" in err and "pass each export once" in err
    os.link(src, tmp_path / "hardlink.csv")
    assert "the same file as x.csv" in refused(capsys, tmp_path, "--format", "google", "x.csv", "hardlink.csv")
    # a copy under another name repeats every row of the first: refused with both places
    (tmp_path / "copy.csv").write_bytes(src.read_bytes())
    err = refused(capsys, tmp_path, "--format", "google", "x.csv", "copy.csv")
    assert "copy.csv:4: repeats x.csv:4 whole" in err


# --- 2. a truncated download -----------------------------------------------------------------


def test_item02_a_download_cut_in_its_last_row_is_refused(tmp_path, capsys):
    text = (FIXTURES / "google_furniture_month.csv").read_text(encoding="utf-8")
    last = text.index("2023-06-30,PMax")
    cut = text.index('"1,249.03"', last) + len('"1,249.0')  # 16.96 -> 16.9: the quote is left open
    path = tmp_path / "cut.csv"
    path.write_text(text[:cut], encoding="utf-8")
    line = text[:last].count("\n") + 1
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:{line}: the file ends inside a quoted value" in err and "download the report again" in err
    # cut after a cell: the row stops early, its clicks and impressions are not zero, they are missing
    path.write_text(text[: text.index(",USD,", last) + 5], encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:{line}: 7 cells under a header of 12 columns: the row stops early" in err


def test_item02_a_meta_file_cut_at_sixty_percent_is_refused(tmp_path, capsys):
    data = (FIXTURES / "meta_summary_month.csv").read_bytes()
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: int(len(data) * 0.6)])
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert "cells under a header of 14 columns: the row stops early" in err or "ends on this row" in err
    # cut at a line end: every row whole, but the summary row says what is missing
    whole = data[: data.rindex(b"\n", 0, int(len(data) * 0.6)) + 1]
    path.write_bytes(whole)
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:2: the export's summary row (no campaign, ad set or ad) says Impressions" in err and "rows are missing" in err


def test_item02_a_last_value_cut_without_totals_to_confirm_it_is_refused(tmp_path, capsys):
    text = (FIXTURES / "kwd_semicolon.csv").read_text(encoding="utf-8")
    path = tmp_path / "cut.csv"
    path.write_text(text.rstrip("\r\n")[:-1], encoding="utf-8")  # the last Conversions digit... and its line break
    lines = text.splitlines()
    err = refused(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    assert f"{path}:{len(lines)}: the file ends on this row without a line break" in err
    # the same file whole, with its line break, imports
    path.write_text(text, encoding="utf-8")
    imported(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    # a file whose last column is a date needs no line break at its end: a cut date would not read
    no_break = tmp_path / "no-final-break.csv"
    no_break.write_text((FIXTURES / "meta_campaign_month.csv").read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")
    imported(capsys, tmp_path, "--format", "meta", no_break)
    cut_date = tmp_path / "cut-date.csv"
    cut_date.write_text((FIXTURES / "meta_campaign_month.csv").read_text(encoding="utf-8").rstrip("\n")[:-1],
                        encoding="utf-8")  # 2023-08-31 -> 2023-08-3
    err = refused(capsys, tmp_path, "--format", "meta", cut_date)
    assert f"{cut_date}:119: column 'Day': the day 2023-08-31 is outside the row's reporting range 2023-08-31 to " \
           "2023-08-03" in err


# --- 3. a renamed or missing metric column ---------------------------------------------------


@pytest.mark.parametrize("old,new,metric", [
    (",Conversions,", ",Conv.,", "conversions"),
    (",Clicks,", ",Interactions,", "clicks"),
    (",Impr.,", ",Impr,", "impressions"),
])
def test_item03_a_renamed_metric_column_is_refused_naming_the_look_alike(old, new, metric, tmp_path, capsys):
    path = variant(tmp_path, "google_furniture_month.csv", lambda t: t.replace(old, new, 1))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:3: no {metric} column" in err
    assert f"the header has {new.strip(',')!r}, which may be it" in err
    assert f"--allow-missing {metric}" in err
    # said so, the account imports without it, and the snapshot names what it lacks
    snapshot, out = imported(capsys, tmp_path, "--format", "google", path, "--allow-missing", metric)
    assert metric in snapshot["source"]["metrics_missing"]
    assert all(metric not in row for row in snapshot["daily"])
    found, missing = re.search(r"metrics found: (.*)\n\s+not in the export: (.*)\n", out).groups()
    assert f"{metric} (" not in found and re.search(rf"\b{metric}(,|$)", missing)


# --- 4. ids saved by Excel -------------------------------------------------------------------


def test_item04_meta_ids_saved_by_excel_are_refused(tmp_path, capsys):
    path = variant(tmp_path, "meta_summary_month.csv", lambda t: re.sub(r",1202088000000000\d\d,", ",1.20209E+17,", t))
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:3: column 'Campaign ID': '1.20209E+17' is an id Excel rewrote in scientific notation" in err
    assert "without opening and saving it in Excel" in err
    rounded = variant(tmp_path, "meta_summary_month.csv", lambda t: re.sub(r",1202088000000000\d\d,", ",120208800000000000,", t))
    err = refused(capsys, tmp_path, "--format", "meta", rounded)
    assert f"{rounded}:4: column 'Campaign ID': '120208800000000000' is on two rows that disagree (Campaign name " \
           "'Summer Sale | Advantage+ | UK' on line 3, 'Retargeting | Visitors 30d | UK' on this line)" in err
    assert "Excel rounded to 15 digits" in err


# --- 5. a repeated row -----------------------------------------------------------------------


def test_item05_a_repeated_row_at_campaign_grain_is_refused_with_both_lines(tmp_path, capsys):
    lines = lines_of("google_furniture_month.csv")
    path = tmp_path / "doubled.csv"
    path.write_text("".join(lines[:10] + [lines[6]] + lines[10:]), encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:11: repeats line 7 whole" in err and "count that day twice" in err


def test_item05_the_same_ad_twice_on_a_day_is_refused_with_both_lines(tmp_path, capsys):
    lines = lines_of("meta_ads_ad_level.csv")
    again = lines[1].replace(",37.108165741,", ",12.5,")
    path = tmp_path / "ad-twice.csv"
    path.write_text("".join(lines + [again]), encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "meta", path, "--start", "2023-08-01", "--end", "2023-08-14")
    assert f"{path}:{len(lines) + 1}: is about the same day and ad as line 2" in err
    assert "with other figures (they differ in 'Amount spent (USD)')" in err


# --- 6. the export's own total rows ----------------------------------------------------------


def test_item06_rows_that_do_not_add_up_to_the_exports_total_are_refused(tmp_path, capsys):
    path = variant(tmp_path, "google_furniture_month.csv", lambda t: t.replace('"1,240.67"', '"1,140.67"', 1))
    lines = lines_of("google_furniture_month.csv")
    total_line = next(i for i, ln in enumerate(lines, 1) if ln.startswith("Total: Account"))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:{total_line}: the export's 'Total: Account' row says Cost 90,507.90, but the rows sum to 90,407.90 " \
           "(less by 100.00)" in err
    assert "--skip-export-totals" in err
    imported(capsys, tmp_path, "--format", "google", path, "--skip-export-totals")


def test_item06_a_meta_total_row_with_a_date_is_a_check_not_a_campaign(tmp_path, capsys):
    rows = list(csv.reader(io.StringIO((FIXTURES / "meta_summary_month.csv").read_text(encoding="utf-8"))))
    day = [r for r in rows[2:] if r[5] == "2023-07-05"]
    sums = [sum(Decimal(r[i] or 0) for r in day) for i in (9, 10, 11, 12)]
    total = ["2023-07-05", "2023-07-05", "Total: 3 campaigns", "", "", "2023-07-05", "", "", "", str(sums[0]),
             str(sums[1]), str(sums[2]), str(sums[3]), ""]
    for figures, ok in ((total, True), (total[:9] + [str(sums[0] + 1000)] + total[10:], False)):
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows[:12] + [figures] + rows[12:])
        path = tmp_path / "with-day-total.csv"
        path.write_text(buf.getvalue(), encoding="utf-8")
        if ok:
            snapshot, out = imported(capsys, tmp_path, "--format", "meta", path)
            assert not [c for c in snapshot["campaigns"] if "Total" in c.get("name", "") or c["id"].startswith("Total")]
            assert "line 13: dropped: 'Total: 3 campaigns' row" in out
        else:
            err = refused(capsys, tmp_path, "--format", "meta", path)
            assert f"{path}:13: the export's 'Total: 3 campaigns' row says Impressions" in err
            assert "the rows of 2023-07-05 sum to" in err


# --- 7. the decimal mark, once per column ----------------------------------------------------


def test_item07_a_semicolon_export_reads_three_decimal_amounts_as_written(tmp_path, capsys):
    snapshot, _out = imported(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml",
                              FIXTURES / "kwd_semicolon.csv")
    first = snapshot["daily"][0]
    assert first["cost"] < 100  # 25,970 dinars is 25.97, never 25,970
    # one value with two decimals settles the column: every value reads with the comma
    path = variant(tmp_path, "kwd_semicolon.csv", lambda t: t.replace(";25,970;", ";25,97;", 1))
    snapshot, _out = imported(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    costs = {r["campaign_id"]: r["cost"] for r in snapshot["daily"] if r["date"] == "2023-05-01"}
    assert costs == {"Suche | Marke": 25.97, "Suche | Generisch": 26.272}


def test_item07_a_column_writing_both_decimal_marks_is_refused_with_a_line_of_each(tmp_path, capsys):
    path = variant(tmp_path, "kwd_semicolon.csv", lambda t: t.replace(";26,272;", ";26.27;", 1))
    err = refused(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    assert "column 'Kosten': '26.27' (line 3) writes the decimal with '.', but in this ';'-separated file '25,970' " \
           "(line 2) reads as a decimal with ','" in err
    # where a value settles the comma too, the column writes both marks
    path = variant(tmp_path, "kwd_semicolon.csv", lambda t: t.replace(";26,272;", ";26.27;", 1).replace(";25,970;", ";25,97;", 1))
    err = refused(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    assert "column 'Kosten': the column writes decimals with '.' (line 3: '26.27') and with ',' (line 2: '25,97')" in err


# --- 8. currency symbols against the currency ------------------------------------------------


def test_item08_mixed_currency_symbols_are_refused(tmp_path, capsys):
    def edit(symbols: tuple[str, str]):
        def apply(text: str) -> str:
            text = text.replace(",USD,", ",AUD,")
            text = text.replace('"1,240.67"', f'"{symbols[0]}1,240.67"', 1)
            return text.replace('"1,671.19"', f'"{symbols[1]}1,671.19"', 1)
        return apply
    path = variant(tmp_path, "google_furniture_month.csv", edit(("$", "€")))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:5: column 'Cost': the column mixes currencies: '$' (line 4) and '€' (line 5)" in err
    path = variant(tmp_path, "google_furniture_month.csv", edit(("€", "€")))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:4: column 'Cost': '€' is not AUD, the export's currency" in err
    path = variant(tmp_path, "google_furniture_month.csv", edit(("$", "$")))  # the dollar sign of AUD
    snapshot, _out = imported(capsys, tmp_path, "--format", "google", path)
    assert snapshot["account"]["currency_code"] == "AUD"


# --- 9. the period from the export's own range line ------------------------------------------

JA = ("--format", "csv", "--mapping", FIXTURES / "google_ja_jpy.mapping.yaml")


@pytest.mark.parametrize("range_line", [
    "2023年6月1日～2023年6月15日",  # ja
    "キャンペーン レポート (2023/06/01-2023/06/15)",  # ja, older downloads
    '"1. Juni 2023 - 15. Juni 2023"',  # de
    '"01.06.2023 - 15.06.2023"',  # de, numeric
    '"1 juin 2023 - 15 juin 2023"',  # fr
    '"1er juin 2023 – 15 juin 2023"',  # fr, en dash
    '"1 de junio de 2023 - 15 de junio de 2023"',  # es
    '"June 1, 2023 - June 15, 2023"',  # en
])
def test_item09_a_mapped_export_takes_its_period_from_its_range_line(range_line, tmp_path, capsys):
    path = FIXTURES / "google_ja_jpy.csv"
    if range_line not in path.read_text(encoding="utf-8"):
        path = variant(tmp_path, "google_ja_jpy.csv", lambda t: t.replace("2023年6月1日～2023年6月15日", range_line))
    snapshot, out = imported(capsys, tmp_path, *JA, path)
    assert (snapshot["period"]["start"], snapshot["period"]["end"]) == ("2023-06-01", "2023-06-15")
    assert max(r["date"] for r in snapshot["daily"]) == "2023-06-08"  # the stop stays in the period
    assert f"(from the export's date-range line, {path.name}:2:" in out
    assert snapshot["source"]["period_from"] == "export_range"


def test_item09_a_range_ending_on_the_download_day_may_hold_a_partial_day(tmp_path, capsys):
    path = tmp_path / "google_ja_jpy.csv"
    path.write_bytes((FIXTURES / "google_ja_jpy.csv").read_bytes())
    saved = datetime(2023, 6, 15, 14, 30).timestamp()
    os.utime(path, (saved, saved))
    snapshot, out = imported(capsys, tmp_path, *JA, path)
    assert snapshot["period"]["as_of"] == "2023-06-15" and snapshot["period"]["last_complete_date"] == "2023-06-14"
    assert "the day google_ja_jpy.csv was saved: that day may be partial" in out
    snapshot, _out = imported(capsys, tmp_path, *JA, path, "--as-of", "2023-06-16")
    assert snapshot["period"]["last_complete_date"] == "2023-06-15"


def test_item09_without_a_range_the_report_says_the_period_is_the_data(tmp_path, capsys):
    _snapshot, out = imported(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml",
                              FIXTURES / "kwd_semicolon.csv")
    assert "(from the first and last day with a row (the export names no date range))" in out


# --- 10. several months in one export --------------------------------------------------------


def _months_export(tmp_path: Path) -> Path:
    """meta_campaign_month.csv (August 2023) with the same rows in March to July before it."""
    lines = lines_of("meta_campaign_month.csv")
    out = [lines[0]]
    for month in (3, 4, 5, 6, 7, 8):
        out += [ln.replace("2023-08-", f"2023-{month:02d}-") for ln in lines[1:]
                if not (month in (4, 6) and "-08-31" in ln)]
    path = tmp_path / "months.csv"
    path.write_text("".join(out), encoding="utf-8")
    return path


def test_item10_an_export_of_several_months_is_refused_offering_the_last_whole_month(tmp_path, capsys):
    path = _months_export(tmp_path)
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert "the export covers 2023-03-01 to 2023-08-31 (184 days" in err
    assert "pass --month 2023-08 (the last whole month in it)" in err and "--start and --end" in err
    snapshot, out = imported(capsys, tmp_path, "--format", "meta", path, "--month", "2023-08")
    assert (snapshot["period"]["start"], snapshot["period"]["end"]) == ("2023-08-01", "2023-08-31")
    assert snapshot["period"]["days_in_month"] == 31
    (tmp_path / "august").mkdir()
    august, _out = imported(capsys, tmp_path / "august", "--format", "meta", FIXTURES / "meta_campaign_month.csv")
    assert snapshot["daily"] == august["daily"]
    assert re.search(r"\d+ row\(s\) outside the period left out, first at line 2", out)
    # a period named with --start/--end is the user's choice, even over two months
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", path, "--start", "2023-03-01", "--end", "2023-08-31")
    assert (snapshot["period"]["start"], snapshot["source"]["period_from"]) == ("2023-03-01", "flags")


# --- 11. campaigns of one name without ids ---------------------------------------------------


def test_item11_two_campaigns_of_one_name_without_ids_are_refused(tmp_path, capsys):
    def edit(text: str) -> str:
        rows = list(csv.reader(io.StringIO(text)))
        for row in rows[2:]:
            del row[2]  # no Campaign ID column
            if row[1] == "Search | Sofas | Generic":
                row[1] = "Search | Brand | Oakline"  # a second campaign of the same name
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        return buf.getvalue()
    path = variant(tmp_path, "google_furniture_month.csv", edit)
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:5: a second row for campaign 'Search | Brand | Oakline' on 2023-06-01 (line 4 is the first)" in err
    assert "add the Campaign ID column" in err


# --- 12. check's limits before writing -------------------------------------------------------


def test_item12_a_snapshot_check_would_refuse_is_not_written(tmp_path, capsys):
    long_name = "Search | " + "Sofas and armchairs " * 120  # 2,409 characters: check's limit is 2,000
    path = variant(tmp_path, "google_furniture_month.csv", lambda t: t.replace("Search | Sofas | Generic", long_name))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:5: column 'Campaign': the value is {len(long_name.strip()):,} characters, over the 2,000 " \
           "`reviewtui check` accepts in one string" in err and "shorten it in the export" in err


def test_item12_the_size_limit_is_checks(tmp_path):
    from reviewtui.accounts.importer import limit_problems
    from reviewtui.caseset.snapshot import LIMITS

    text = "x" * (LIMITS.max_bytes + 1)
    problems = limit_problems({"daily": []}, text, keep_ads=True)
    assert problems == [f"the snapshot would be {len(text) / 1e6:,.1f} MB, over the 32 MiB `reviewtui check` accepts: "
                        "import without --keep-ads (the ad rows are most of it), or a shorter period"]


# --- 14. a closed pipe -----------------------------------------------------------------------


def test_item14_a_reader_that_stops_early_gets_no_traceback_and_the_file_is_written(tmp_path):
    import reviewtui

    out = tmp_path / "s.json"
    package_root = str(Path(reviewtui.__file__).resolve().parents[1])  # the code under test, wherever it is
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui", "import", "--format", "google",
                             str(FIXTURES / "google_furniture_month.csv"), "-o", str(out)],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": package_root},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head` does once it has its lines: every later write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert json.loads(out.read_text(encoding="utf-8"))["platform"] == "google_ads"


# --- scale: the progress line ----------------------------------------------------------------


@pytest.mark.slow
def test_a_large_import_shows_a_progress_line_on_a_terminal_only(tmp_path, monkeypatch):
    from reviewtui.accounts.csvread import Progress

    lines = lines_of("meta_campaign_month.csv")
    path = tmp_path / "long.csv"
    with path.open("w", encoding="utf-8") as fh:  # 80 copies of the month: over 9,000 rows
        fh.write(lines[0])
        for n in range(80):
            fh.writelines(ln.replace(",2385000000000000", f",23850000000{n:03d}000") for ln in lines[1:])

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(Progress, "INTERVAL", 0.0)
    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        assert main(["import", "--format", "meta", str(path), "-o", str(tmp_path / "s.json"), "--force"]) == 0
        text = stream.getvalue()
        assert (re.search(r"\rreading long\.csv: +\d+% \(\d+ of \d+ MB\), [\d,]+ rows", text) is not None) == shown
        assert ("\rimporting long.csv:" in text) == shown
        assert text.endswith("\r\x1b[K") == shown  # the line is cleared once done


def test_rows_split_by_a_breakdown_are_summed_not_refused(tmp_path, capsys):
    # Meta's "Impression device" breakdown: the header reads like a figure, its values are words
    rows = list(csv.reader(io.StringIO((FIXTURES / "meta_campaign_month.csv").read_text(encoding="utf-8"))))
    out = [rows[0] + ["Impression device"]]
    for row in rows[1:]:
        half = [str(int(row[4]) // 2), str(int(row[4]) - int(row[4]) // 2)]
        out.append(row[:4] + [half[0]] + row[5:] + ["iphone"])
        out.append(row[:3] + ["0", half[1], "0", "0", "", ""] + row[9:] + ["android_smartphone"])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(out)
    path = tmp_path / "by-device.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    snapshot, out_text = imported(capsys, tmp_path, "--format", "meta", path)
    (tmp_path / "whole").mkdir()
    whole, _ = imported(capsys, tmp_path / "whole", "--format", "meta", FIXTURES / "meta_campaign_month.csv")
    assert [(r["date"], r["campaign_id"], r["impressions"], r["cost"]) for r in snapshot["daily"]] == \
        [(r["date"], r["campaign_id"], r["impressions"], r["cost"]) for r in whole["daily"]]
    assert "had several campaign-level rows, summed" in out_text


def test_item02_a_day_cut_in_the_last_cell_is_refused(tmp_path, capsys):
    rows = list(csv.reader(io.StringIO((FIXTURES / "meta_campaign_month.csv").read_text(encoding="utf-8"))))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[r[0], *r[2:9], r[1]] for r in rows])  # Day last, no reporting dates
    path = tmp_path / "day-last.csv"
    path.write_text(buf.getvalue().rstrip("\n")[:-1], encoding="utf-8")  # 2023-08-31 -> 2023-08-3
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:{len(rows)}: the file ends on this row without a line break" in err and "('Day')" in err


def test_item06_a_bare_total_row_of_a_plain_export_is_checked_not_imported(tmp_path, capsys):
    rows = list(csv.reader(io.StringIO((FIXTURES / "kwd_semicolon.csv").read_text(encoding="utf-8")), delimiter=";"))
    sums = [sum(_plain(r[i], ",") for r in rows[1:]) for i in (2, 3, 4, 5)]
    for cost, ok in ((sums[2], True), (sums[2] - 1, False)):
        total = ["Total", "", str(sums[0]), str(sums[1]), f"{cost:.3f}".replace(".", ","), str(sums[3])]
        buf = io.StringIO()
        csv.writer(buf, delimiter=";", lineterminator="\r\n").writerows(rows + [total])
        path = tmp_path / "with-total.csv"
        path.write_text(buf.getvalue(), encoding="utf-8")
        args = ("--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
        if ok:
            snapshot, out = imported(capsys, tmp_path, *args)
            assert {c["id"] for c in snapshot["campaigns"]} == {"Suche | Marke", "Suche | Generisch"}
            assert f"line {len(rows) + 1}: dropped: 'Total' row" in out
        else:
            assert f"{path}:{len(rows) + 1}: the export's 'Total' row says Kosten" in refused(capsys, tmp_path, *args)
