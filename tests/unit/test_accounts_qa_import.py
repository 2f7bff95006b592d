"""``reviewtui import`` and ``redact`` on the defects an independent QA pass found (F1-F25): each test
edits a copy of a corpus file (tests/fixtures/accounts/README.md) into the shape the QA engineer met,
and holds the import to a right snapshot or a refusal naming the file, the line and the fix.
"""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from reviewtui.commands.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "accounts"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def imported(capsys, tmp_path: Path, *argv) -> tuple[dict, str]:
    out_path = tmp_path / "snapshot.json"
    code, out, err = run(capsys, "import", *argv, "-o", out_path, "--force")
    assert code == 0, err
    return json.loads(out_path.read_text(encoding="utf-8")), out


def refused(capsys, tmp_path: Path, *argv) -> str:
    out_path = tmp_path / "refused.json"
    code, out, err = run(capsys, "import", *argv, "-o", out_path)
    assert code == 2, out + err
    assert not out_path.exists()
    assert "nothing written" in err and "Traceback" not in err
    return err


def rows_of(name: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO((FIXTURES / name).read_text(encoding="utf-8")), delimiter=delimiter))


def write_rows(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def _summed(rows: list[list[str]], index: int) -> str:
    return str(sum((Decimal(r[index] or 0) for r in rows), Decimal(0)))


# --- F1: Meta's summary row states the export's range ---------------------------------------


def _meta_summary_until(tmp_path: Path, last_day: str, summary_end: str = "2023-07-31") -> Path:
    """meta_summary_month.csv with the rows after ``last_day`` gone and the summary row summing the rest."""
    rows = rows_of("meta_summary_month.csv")
    kept = [r for r in rows[2:] if r[5] <= last_day]
    summary = ["2023-07-01", summary_end, "", "", "", "", "", "", "",
               *(_summed(kept, i) for i in (9, 10, 11, 12, 13))]
    return write_rows(tmp_path / "stop.csv", [rows[0], summary, *kept])


def test_f1_the_meta_summary_rows_range_sets_the_period_and_a_whole_account_stop_stays(tmp_path, capsys):
    path = _meta_summary_until(tmp_path, "2023-07-22")
    snapshot, out = imported(capsys, tmp_path, "--format", "meta", path)
    assert (snapshot["period"]["start"], snapshot["period"]["end"]) == ("2023-07-01", "2023-07-31")
    assert snapshot["source"]["period_from"] == "export_range"
    assert max(r["date"] for r in snapshot["daily"]) == "2023-07-22"  # nine days without a row: no delivery
    assert f"(from the summary row's 'Reporting starts' and 'Reporting ends', {path.name}:2)" in out
    # a summary row to the 31st over rows to the 30th: the period is still the month
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", _meta_summary_until(tmp_path, "2023-07-30"))
    assert snapshot["period"]["end"] == "2023-07-31"


# --- F4: a download cut at a line break ------------------------------------------------------


def test_f4_a_google_download_cut_at_a_line_break_before_its_totals_is_refused(tmp_path, capsys):
    data = (FIXTURES / "google_furniture_month.csv").read_bytes()
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: data.rindex(b"\n", 0, int(len(data) * 0.6)) + 1])
    last_day = max(r[0] for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))) if r[0].startswith("2023"))
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:2: the export's range runs 2023-06-01 to 2023-06-30" in err
    assert f"but its rows end on {last_day} and no total row over every row confirms them" in err
    assert "download the report again" in err and "--start 2023-06-01 --end 2023-06-30" in err
    # said whole, it imports, and the days after the last row are days without delivery
    snapshot, _out = imported(capsys, tmp_path, "--format", "google", path, "--start", "2023-06-01", "--end", "2023-06-30")
    assert snapshot["period"]["end"] == "2023-06-30"


def test_f4_a_meta_export_without_a_stated_range_that_is_not_a_whole_month_is_refused(tmp_path, capsys):
    data = (FIXTURES / "meta_campaign_month.csv").read_bytes()  # no summary row: the rows' own days only
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: data.rindex(b"\n", 0, int(len(data) * 0.6)) + 1])
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:1: the export names no date range" in err
    assert re.search(r"its rows run 2023-08-01 to 2023-08-\d\d, not a whole month", err)
    assert "pass --start and --end with the range you exported" in err and "'Include summary row'" in err
    # the whole month, as the rows show it, imports as before
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", FIXTURES / "meta_campaign_month.csv")
    assert snapshot["source"]["period_from"] == "rows"


# --- F8: a range line the import cannot read -------------------------------------------------

JA = ("--format", "csv", "--mapping", FIXTURES / "google_ja_jpy.mapping.yaml")


def _ja_with_range(tmp_path: Path, range_line: str) -> Path:
    text = (FIXTURES / "google_ja_jpy.csv").read_text(encoding="utf-8")
    path = tmp_path / "ranged.csv"
    path.write_text(text.replace("2023年6月1日～2023年6月15日", range_line), encoding="utf-8")
    return path


@pytest.mark.parametrize("range_line", [
    "1 июня 2023 г. - 15 июня 2023 г.",  # ru
    "1 cze 2023 - 15 cze 2023",  # pl
    "1 Haz 2023 - 15 Haz 2023",  # tr
])
def test_f8_a_range_line_the_import_cannot_read_is_refused_as_unreadable(range_line, tmp_path, capsys):
    path = _ja_with_range(tmp_path, range_line)
    err = refused(capsys, tmp_path, *JA, path)
    assert f"{path}:2: {range_line!r} looks like the export's date range, but the import cannot read it" in err
    assert "pass --start and --end" in err
    snapshot, _out = imported(capsys, tmp_path, *JA, path, "--start", "2023-06-01", "--end", "2023-06-15")
    assert snapshot["period"]["end"] == "2023-06-15"


def test_f8_a_korean_range_line_is_read(tmp_path, capsys):
    snapshot, out = imported(capsys, tmp_path, *JA, _ja_with_range(tmp_path, "2023. 6. 1. - 2023. 6. 15."))
    assert (snapshot["period"]["start"], snapshot["period"]["end"]) == ("2023-06-01", "2023-06-15")
    assert "(from the export's date-range line" in out


# --- F2, F19, F20: one id on rows that disagree ----------------------------------------------


def test_f2_ids_excel_wrote_with_a_decimal_comma_are_refused(tmp_path, capsys):
    rows = rows_of("meta_summary_month.csv")
    for row in rows[2:]:
        row[3] = "1,20209E+17"  # Excel in a German locale: ';'-separated, the id in scientific notation
    path = write_rows(tmp_path / "x5s.csv", rows, ";")
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:3: column 'Campaign ID': '1,20209E+17' is an id Excel rewrote in scientific notation" in err


def test_f2_one_campaign_id_with_two_names_is_refused_with_both_lines(tmp_path, capsys):
    rows = rows_of("meta_campaign_month.csv")
    for row in rows[1:]:
        row[2] = "23851234"  # every campaign under one id, whatever it looks like
    path = write_rows(tmp_path / "x7.csv", rows)
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:3: column 'Campaign ID': '23851234' is on two rows that disagree (Campaign name " \
           "'Advantage+ Shopping | US' on line 2, 'Prospecting | Interests | US' on this line)" in err
    assert "their figures would be summed" in err


def test_f19_the_same_ad_under_two_ad_sets_is_refused_with_both_lines(tmp_path, capsys):
    rows = rows_of("meta_ads_ad_level.csv")
    again = list(rows[1])
    again[7] = "120201234567890199"  # the same ad on the same day, under another ad set id
    path = write_rows(tmp_path / "ad-twice.csv", [*rows, again])
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:{len(rows) + 1}: column 'Ad ID': '120201234567890201' is on two rows that disagree (Ad set ID " \
           "'120201234567890101' on line 2, '120201234567890199' on this line)" in err


def test_f20_one_rounded_id_alone_imports_and_two_are_refused(tmp_path, capsys):
    rows = rows_of("meta_summary_month.csv")
    one = [rows[0], rows[1], *(r for r in rows[2:] if r[3] == "120208800000000001")]
    for row in one[2:]:
        row[3] = "120208800000000000"  # a real id may end so: one id alone merges nothing
    one[1] = ["2023-07-01", "2023-07-31", "", "", "", "", "", "", "", *(_summed(one[2:], i) for i in (9, 10, 11, 12, 13))]
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", write_rows(tmp_path / "one.csv", one))
    assert [c["id"] for c in snapshot["campaigns"]] == ["120208800000000000"]
    for row in rows[2:]:  # every campaign's id rounded, each to its own: refused naming Excel
        row[3] = row[3][:14] + row[3][-1] + "000"
    path = write_rows(tmp_path / "all.csv", rows)
    assert "the column's other long ids end in zeros past their 15th digit" in refused(capsys, tmp_path, "--format",
                                                                                        "meta", path)


# --- F3: what a Meta conversion is -----------------------------------------------------------


def _meta_results(tmp_path: Path, indicator: str | None) -> Path:
    """meta_summary_month.csv counting conversions in 'Results' alone: no Purchases column, and the
    'Result indicator' column set to ``indicator`` on every row (or dropped, for None)."""
    out = []
    for n, row in enumerate(rows_of("meta_summary_month.csv")):
        row = row[:12] + row[13:]  # no Purchases
        if indicator is None:
            row = row[:7] + row[8:]
        elif n > 1:  # not the header, not the summary row
            row[7] = indicator
        out.append(row)
    return write_rows(tmp_path / f"results-{indicator is None}.csv", out)


def test_f3_results_without_a_result_indicator_column_are_refused(tmp_path, capsys):
    path = _meta_results(tmp_path, None)
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:1: column 'Results': 'Results' counts whatever each row's result is" in err
    assert "add the 'Result indicator' column" in err and "--allow-missing conversions" in err
    snapshot, out = imported(capsys, tmp_path, "--format", "meta", path, "--allow-missing", "conversions")
    assert snapshot["source"]["metrics_missing"][0] == "conversions"
    assert all("conversions" not in row for row in snapshot["daily"])


@pytest.mark.parametrize("indicator,counted", [
    ("actions:offsite_conversion.fb_pixel_purchase", True),
    ("actions:onsite_conversion.lead_grouped", True),
    ("actions:offsite_conversion.custom.281094", True),
    ("actions:offsite_conversion.fb_pixel_view_content", False),
    ("actions:offsite_conversion.fb_pixel_add_to_cart", False),
    ("actions:onsite_conversion.post_save", False),
    ("reach", False),
])
def test_f3_only_results_that_are_conversions_count(indicator, counted, tmp_path, capsys):
    path = _meta_results(tmp_path, indicator)
    rows = rows_of("meta_summary_month.csv")[2:]
    results = sum(Decimal(r[6] or 0) for r in rows)
    snapshot, out = imported(capsys, tmp_path, "--format", "meta", path)
    got = sum(Decimal(repr(r.get("conversions", 0))) for r in snapshot["daily"])
    assert got == (results if counted else 0)
    with_results = sum(1 for r in rows if r[6] and Decimal(r[6]))
    assert (f"other results left out (not conversions): {with_results} row(s) of {indicator!r} ({results:,} results)"
            in out) == (not counted)


# --- F5: empty metric cells ------------------------------------------------------------------


def test_f5_empty_metric_cells_are_counted_in_the_report_and_spend_without_delivery_is_refused(tmp_path, capsys):
    rows = rows_of("meta_campaign_month.csv")
    rows[5][5] = ""  # one row's Link clicks left empty
    path = write_rows(tmp_path / "blank.csv", rows)
    purchases_blank = [n for n, r in enumerate(rows[1:], 2) if not r[7]]
    _snapshot, out = imported(capsys, tmp_path, "--format", "meta", path)
    assert ("note: empty cells read as 0 (an export leaves a cell empty for none): 'Link clicks' 1 (first at line 6), "
            f"'Purchases' {len(purchases_blank)} (first at line {purchases_blank[0]})") in out
    rows[2][4] = rows[2][5] = rows[2][7] = ""  # spend, and nothing else: the figures were lost
    path = write_rows(tmp_path / "blank.csv", rows)
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:3: column 'Impressions': the row spends {rows[2][6]}, but its 'Impressions' and 'Link clicks' " \
           "cells are empty: its figures are missing, not zero" in err


# --- F6: currency codes and time zones -------------------------------------------------------


@pytest.mark.parametrize("flag,value,said", [
    ("--currency", "US$", "--currency: 'US$' is not an ISO 4217 currency code such as USD, EUR or JPY"),
    ("--currency", "EURO", "--currency: 'EURO' is not an ISO 4217 currency code"),
    ("--currency", "XYZ", "--currency: 'XYZ' is not an ISO 4217 currency code"),
    ("--time-zone", "Europe/Berln", "--time-zone: 'Europe/Berln' is not an IANA time zone name of the form "
                                    "Area/Location, such as Europe/Berlin or America/New_York (did you mean "
                                    "'Europe/Berlin'?)"),
    ("--time-zone", "+02:00", "--time-zone: '+02:00' is not an IANA time zone name"),
    ("--time-zone", "America/New York", "(did you mean 'America/New_York'?)"),
    ("--time-zone", "EST", "--time-zone: 'EST' is not an IANA time zone name of the form Area/Location"),
])
def test_f6_a_currency_or_time_zone_flag_that_is_no_code_is_refused(flag, value, said, tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "google", FIXTURES / "google_furniture_month.csv", flag, value)
    assert f"reviewtui import: {said}" in err if said.startswith("--") else said in err


def test_f6_the_mappings_currency_and_time_zone_are_checked_and_named(tmp_path, capsys):
    base = (FIXTURES / "kwd_semicolon.mapping.yaml").read_text(encoding="utf-8")
    lines = base.splitlines()
    currency_line = next(n for n, ln in enumerate(lines, 1) if ln.startswith("currency:"))
    mapping = tmp_path / "m.yaml"
    mapping.write_text(base.replace("currency: KWD", "currency: US$"), encoding="utf-8")
    args = ("--format", "csv", "--mapping", mapping, FIXTURES / "kwd_semicolon.csv")
    err = refused(capsys, tmp_path, *args)
    assert f"{mapping}:{currency_line}: 'currency': 'US$' is not an ISO 4217 currency code" in err
    account_line = next(n for n, ln in enumerate(lines, 1) if ln.startswith("account:"))
    mapping.write_text(base.replace("Asia/Kuwait", "Asia/Kuwiat"), encoding="utf-8")
    err = refused(capsys, tmp_path, *args)
    assert f"{mapping}:{account_line}: 'account.time_zone': 'Asia/Kuwiat' is not an IANA time zone name" in err
    # --currency against the mapping's: the message says where the mapping's came from
    err = refused(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml",
                  FIXTURES / "kwd_semicolon.csv", "--currency", "EUR")
    assert (f"--currency EUR, but the export says KWD (from 'currency' in "
            f"{FIXTURES / 'kwd_semicolon.mapping.yaml'}:{currency_line})") in err and "column 'header'" not in err


def test_f6_a_currency_column_that_is_no_code_is_refused_with_its_line(tmp_path, capsys):
    text = (FIXTURES / "google_furniture_month.csv").read_text(encoding="utf-8")
    path = tmp_path / "g.csv"
    path.write_text(text.replace(",USD,", ",US$,"), encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert f"{path}:4: column 'Currency code': the currency 'US$' is not an ISO 4217 currency code" in err


def test_f6_check_refuses_a_snapshot_whose_codes_are_not_iso_or_iana(tmp_path, capsys):
    snapshot, _out = imported(capsys, tmp_path, "--format", "google", FIXTURES / "google_furniture_month.csv")
    case = tmp_path / "set" / "cases" / "c01-x"
    case.mkdir(parents=True)
    snapshot["account"].update(currency_code="EURO", time_zone="Europe/Berln")
    (case / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (case / "expected.yaml").write_text("case: c01-x\nkind: ordinary\n", encoding="utf-8")
    code, out, _err = run(capsys, "check", "--cases", tmp_path / "set" / "cases")
    assert code == 2
    assert "'account.currency_code': 'EURO' is not an ISO 4217 currency code" in out
    assert "'account.time_zone': 'Europe/Berln' is not an IANA time zone name" in out


# --- F12: --month with --start/--end ---------------------------------------------------------


def test_f12_month_and_start_end_together_are_a_usage_error(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--format", "meta", FIXTURES / "meta_campaign_month.csv", "--month", "2023-08",
                  "--start", "2023-08-10", "--end", "2023-08-20")
    assert "reviewtui import: --month takes a whole calendar month; --start/--end name a period of their own" in err


# --- F7: from an import to a case the case set can take --------------------------------------


def test_f7_redact_into_a_case_folder_writes_a_blank_expected_yaml_and_check_takes_the_case(tmp_path, capsys):
    account = tmp_path / "account.json"
    assert run(capsys, "import", "--format", "google", FIXTURES / "google_furniture_month.csv", "-o", account)[0] == 0
    case = tmp_path / "set" / "cases" / "c51-shop"
    code, out, err = run(capsys, "redact", account, "-o", case, "--key", tmp_path / "redact.key", "--salt", "c51-shop")
    assert code == 0, err
    assert f"wrote {case / 'expected.yaml'}: a blank case (kind ordinary, empty lists)" in out
    assert "docs/formats.md, 'expected.yaml'" in out
    assert "case: c51-shop\nkind: ordinary\n" in (case / "expected.yaml").read_text(encoding="utf-8")
    assert json.loads((case / "snapshot.json").read_text(encoding="utf-8"))["source"]["redacted"] is True
    code, out, _err = run(capsys, "check", "--cases", case.parent)
    assert code == 0, out
    # a case folder without expected.yaml: check says what to write and where its format is
    (case / "expected.yaml").unlink()
    code, out, _err = run(capsys, "check", "--cases", case.parent)
    assert code == 2
    assert "every case needs an expected.yaml beside its snapshot.json; write one with at least `case: <folder " \
           "name>` and `kind: ordinary` (the format: docs/formats.md, 'expected.yaml')" in out


def test_f7_an_imported_account_in_the_case_set_that_was_not_redacted_is_an_error(tmp_path, capsys):
    case = tmp_path / "set" / "cases" / "c52-raw"
    assert run(capsys, "import", "--format", "google", FIXTURES / "google_furniture_month.csv", "-o", case)[0] == 0
    (case / "expected.yaml").write_text("case: c52-raw\nkind: ordinary\n", encoding="utf-8")
    code, out, _err = run(capsys, "check", "--cases", case.parent)
    assert code == 2
    assert f"{case / 'snapshot.json'}:1: an account imported by `reviewtui import` (source.format 'google') " \
           "that was not redacted" in out
    assert "reviewtui redact" in out


# --- F9: a reader that stops early -----------------------------------------------------------


@pytest.mark.parametrize("argv", [["check"], ["eval", "--backend", "rules", "--results-dir", "{tmp}/results"]])
@pytest.mark.slow
def test_f9_check_and_eval_piped_into_a_reader_that_stops_early_exit_as_they_would(argv, tmp_path):
    import os
    import subprocess
    import sys

    import reviewtui

    root = Path(reviewtui.__file__).resolve().parents[1]
    proc = subprocess.Popen([sys.executable, "-m", "reviewtui", *(a.format(tmp=tmp_path) for a in argv),
                             "--cases", str(root / "cases")], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(root), "NO_COLOR": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head -0` does: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err


# --- F10: an -o that names no place for a snapshot -------------------------------------------


def test_f10_import_and_redact_refuse_an_output_they_cannot_write_without_a_traceback(tmp_path, capsys):
    export = tmp_path / "export.csv"
    export.write_bytes((FIXTURES / "google_furniture_month.csv").read_bytes())
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    for out, said in ((export, "neither a .json file nor a case folder"), (tmp_path / "out.csv", "neither a .json"),
                      ("", "-o is empty"), (tmp_path / "folder.json", "is a folder, not a .json file"),
                      (tmp_path / "afile", "is a file, not a case folder")):
        code, _out, err = run(capsys, "import", "--format", "google", export, "-o", out)
        assert code == 2, err
        assert said in err and "Traceback" not in err and "nothing written" in err
    assert export.read_bytes() == (FIXTURES / "google_furniture_month.csv").read_bytes()
    assert not (tmp_path / "out.csv").exists()
    # a place that cannot be written: a message naming it, exit 2
    blocked = tmp_path / "afile" / "x.json"  # under a file: no folder can be made there
    code, _out, err = run(capsys, "import", "--format", "google", export, "-o", blocked)
    assert code == 2 and f"{blocked}: cannot be written" in err and "Traceback" not in err
    account = tmp_path / "account.json"
    assert run(capsys, "import", "--format", "google", export, "-o", account)[0] == 0
    code, _out, err = run(capsys, "redact", account, "-o", tmp_path / "red.csv", "--key", tmp_path / "k")
    assert code == 2 and "reviewtui redact: -o" in err and "neither a .json file nor a case folder" in err
    code, _out, err = run(capsys, "redact", account, "-o", blocked, "--key", tmp_path / "k")
    assert code == 2 and f"{blocked}: cannot be written" in err and "Traceback" not in err


# --- F11: a ',' file in which nothing settles the decimal mark --------------------------------


def test_f11_thousands_with_a_dot_in_a_comma_file_that_nothing_settles_are_refused(tmp_path, capsys):
    rows = rows_of("google_furniture_month.csv")
    rows[1] = ["1. Juni 2023 - 30. Juni 2023"]
    rows[2] = [c for c in rows[2] if c not in ("Conv. value", "Search impr. share")]
    out = rows[:3]
    for row in rows[3:]:
        if not row[0].startswith("2023"):
            continue  # no Total row to settle it either
        cost = Decimal(row[8].replace(",", "")).to_integral_value()
        out.append(row[:6] + [row[6].replace(",", ""), row[7], f"{cost:,}".replace(",", "."),
                              str(Decimal(row[9]).to_integral_value())])
    path = write_rows(tmp_path / "gde4.csv", out)
    first_dot = next(n for n, r in enumerate(out, 1) if n > 3 and "." in r[8])
    err = refused(capsys, tmp_path, "--format", "google", path, "--skip-export-totals")
    assert f"{path}:{first_dot}: column 'Cost': {out[first_dot - 1][8]!r} reads as a decimal and as thousands, and " \
           "nothing in the file settles which" in err and "pass --decimal-mark . or --decimal-mark ," in err
    snapshot, _out = imported(capsys, tmp_path, "--format", "google", path, "--decimal-mark", ",")
    assert sum(r["cost"] for r in snapshot["daily"]) == sum(int(r[8].replace(".", "")) for r in out[3:])


# --- F15, F16: headers -----------------------------------------------------------------------


def test_f15_title_case_cost_headers_read_and_the_missing_column_is_named(tmp_path, capsys):
    text = (FIXTURES / "meta_campaign_month.csv").read_text(encoding="utf-8")
    path = tmp_path / "title.csv"
    path.write_text(text.replace("Amount spent (USD)", "Amount Spent (USD)", 1), encoding="utf-8")
    snapshot, _out = imported(capsys, tmp_path, "--format", "meta", path)
    assert snapshot["account"]["currency_code"] == "USD"
    ad_level = (FIXTURES / "meta_ads_ad_level.csv").read_text(encoding="utf-8")  # found by its ad set and ad columns
    path.write_text(ad_level.replace("Campaign name,", "Campaign,", 1).replace(",Campaign ID,", ",Campaign number,", 1),
                    encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "meta", path)
    assert f"{path}:1: not a Meta Ads Manager export: no campaign column ('Campaign ID' or 'Campaign name'); " in err


def test_f16_a_report_without_days_is_told_so_before_its_metrics(tmp_path, capsys):
    text = (FIXTURES / "google_lifetime.csv").read_text(encoding="utf-8")
    path = tmp_path / "video.csv"
    path.write_text(text.replace(",Clicks,", ",Interactions,", 1), encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "google", path)
    assert "the rows have no day" in err and "Interactions" not in err
    daily = tmp_path / "daily.csv"
    daily.write_text((FIXTURES / "google_furniture_month.csv").read_text(encoding="utf-8")
                     .replace(",Clicks,", ",Interactions,", 1), encoding="utf-8")
    err = refused(capsys, tmp_path, "--format", "google", daily)
    assert "on video and Demand Gen ads they are views and engagements, so add the Clicks column" in err


# --- F18: the export's totals, held to rounding and reported as they came out -----------------


def test_f18_a_days_total_off_by_more_than_its_rows_rounding_is_refused(tmp_path, capsys):
    rows = rows_of("meta_summary_month.csv")
    day = [r for r in rows[2:] if r[5] == "2023-07-05"]
    sums = [sum(Decimal(r[i] or 0) for r in day) for i in (9, 10, 11, 12)]
    for extra, ok in ((Decimal("0.01"), True), (Decimal("4.00"), False)):  # 3 rows: a cent is rounding, 4.00 is not
        total = ["2023-07-05", "2023-07-05", "Total: 3 campaigns", "", "", "2023-07-05", "", "", "", str(sums[0]),
                 f"{sums[1] + extra:.2f}", str(sums[2]), str(sums[3]), ""]
        path = write_rows(tmp_path / "day-total.csv", [*rows[:12], total, *rows[12:]])
        if ok:
            imported(capsys, tmp_path, "--format", "meta", path)
        else:
            err = refused(capsys, tmp_path, "--format", "meta", path)
            assert f"{path}:13: the export's 'Total: 3 campaigns' row says Amount spent (GBP)" in err
            assert "(less by 3.99" in err or "(less by 4.00" in err


def test_f18_the_report_says_which_totals_agreed_which_did_not_and_which_were_not_checked(tmp_path, capsys):
    text = (FIXTURES / "google_furniture_month.csv").read_text(encoding="utf-8")
    wrong = 'Total: Campaigns,--,--,--,--,USD,"455,212","20,367","90,999.90",456.27,"80,172.58",--\n'
    path = tmp_path / "t4.csv"
    path.write_text(text + wrong, encoding="utf-8")
    lines = text.splitlines()
    account = next(n for n, ln in enumerate(lines, 1) if ln.startswith("Total: Account"))
    search = next(n for n, ln in enumerate(lines, 1) if ln.startswith("Total: Search"))
    _snapshot, out = imported(capsys, tmp_path, "--format", "google", path)
    assert f"line {account}: dropped: 'Total: Account' row: the export's own total, checked: the rows' sums agree" in out
    assert f"line {search}: dropped: 'Total: Search' row: the export's own total, not checked: a total over one " \
           "campaign type" in out
    assert f"line {len(lines) + 1}: dropped: 'Total: Campaigns' row: the export's own total, NOT matched by the " \
           "rows' sums; another total over every row is (a filtered report)" in out


# --- F13: a whole file without a last line break ---------------------------------------------


def test_f13_a_file_ending_without_a_line_break_can_be_said_whole(tmp_path, capsys):
    path = tmp_path / "no-break.csv"
    path.write_text((FIXTURES / "kwd_semicolon.csv").read_text(encoding="utf-8").rstrip("\r\n"), encoding="utf-8")
    args = ("--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml", path)
    err = refused(capsys, tmp_path, *args)
    assert "the file ends on this row without a line break" in err and "pass --last-row-whole" in err
    snapshot, _out = imported(capsys, tmp_path, *args, "--last-row-whole")
    (tmp_path / "whole").mkdir()
    whole, _out = imported(capsys, tmp_path / "whole", "--format", "csv", "--mapping",
                           FIXTURES / "kwd_semicolon.mapping.yaml", FIXTURES / "kwd_semicolon.csv")
    assert snapshot["daily"] == whole["daily"]


# --- F14: what a missing row means in a mapped CSV -------------------------------------------


def test_f14_a_mapped_csv_says_nothing_of_missing_rows_unless_its_mapping_does(tmp_path, capsys):
    mapping = FIXTURES / "kwd_semicolon.mapping.yaml"
    snapshot, out = imported(capsys, tmp_path, "--format", "csv", "--mapping", mapping, FIXTURES / "kwd_semicolon.csv")
    assert "missing_row_means" not in snapshot["source"]
    assert "add 'missing_row_means: no_delivery' to the mapping" in out
    said = tmp_path / "m.yaml"
    said.write_text(mapping.read_text(encoding="utf-8") + "missing_row_means: no_delivery\n", encoding="utf-8")
    snapshot, _out = imported(capsys, tmp_path, "--format", "csv", "--mapping", said, FIXTURES / "kwd_semicolon.csv")
    assert snapshot["source"]["missing_row_means"] == "no_delivery"
    snapshot, _out = imported(capsys, tmp_path, "--format", "google", FIXTURES / "google_furniture_month.csv")
    assert snapshot["source"]["missing_row_means"] == "no_delivery"


# --- F23: a key beside the case set ----------------------------------------------------------


def test_f23_a_key_beside_the_case_set_or_in_writeups_is_refused_by_redact_and_warned_by_check(tmp_path, capsys):
    account = tmp_path / "account.json"
    assert run(capsys, "import", "--format", "google", FIXTURES / "google_furniture_month.csv", "-o", account)[0] == 0
    repo = tmp_path / "repo"
    (repo / "writeups").mkdir(parents=True)
    for key in (repo / "redact.key", repo / "writeups" / "team.key"):
        code, _out, err = run(capsys, "redact", account, "-o", repo / "cases" / "c51-shop", "--key", key)
        assert code == 2 and f"{key}: the key file is in {repo.resolve()}, beside the case set, or in its writeups/" \
            in err, err
        assert not key.exists()
    outside = tmp_path / "keys" / "redact.key"
    assert run(capsys, "redact", account, "-o", repo / "cases" / "c51-shop", "--key", outside)[0] == 0
    (repo / "redact.key").write_bytes(outside.read_bytes())  # copied beside the case set by hand
    code, out, _err = run(capsys, "check", "--cases", repo / "cases")
    assert f"{(repo / 'redact.key').resolve()}:1: warning: looks like a redaction key" in out


# --- F24: messages that point to the fix -----------------------------------------------------


def test_f24_redact_and_import_name_what_the_file_is(tmp_path, capsys):
    code, _out, err = run(capsys, "redact", tmp_path / "nothere.json", "-o", tmp_path / "o.json", "--key", tmp_path / "k")
    assert code == 2 and "nothere.json: file not found" in err and "every case needs" not in err
    code, _out, err = run(capsys, "redact", FIXTURES / "google_furniture_month.csv", "-o", tmp_path / "o.json",
                          "--key", tmp_path / "k")
    assert code == 2 and "an export, not a snapshot: import it first" in err
    for name, data, said in (("x.zip", b"PK\x03\x04rest", "a ZIP archive (or an Excel .xlsx workbook"),
                             ("x.xlsx", b"PK\x03\x04rest", "a ZIP archive (or an Excel .xlsx workbook"),
                             ("x.csv.gz", b"\x1f\x8b\x08rest", "a gzip-compressed file: decompress it")):
        (tmp_path / name).write_bytes(data)
        assert f"{tmp_path / name}:1: not a CSV file: {said}" in refused(capsys, tmp_path, "--format", "google",
                                                                          tmp_path / name)
    rows = rows_of("kwd_semicolon.csv", ";")
    sums = [sum(Decimal(r[i].replace(",", ".")) for r in rows[1:]) for i in (2, 3, 4, 5)]
    total = ["Gesamtergebnis", "", str(sums[0]), str(sums[1]), f"{sums[2]:.3f}".replace(".", ","), str(sums[3])]
    path = write_rows(tmp_path / "gesamt.csv", [*rows, total], ";")
    _snapshot, out = imported(capsys, tmp_path, "--format", "csv", "--mapping", FIXTURES / "kwd_semicolon.mapping.yaml",
                              path)
    assert f"line {len(rows) + 1}: dropped: 'Gesamtergebnis' row: the export's own total, checked" in out
