"""Unreadable daily rows are an error in `reviewtui check` and `reviewtui eval`, never a clean result."""

from __future__ import annotations

import json
from pathlib import Path

from reviewtui.commands.check import main as check_main
from reviewtui.commands.eval import main as eval_main


def daily_rows(dates: list[str]) -> list[dict]:
    return [{"date": d, "campaign_id": "916", "impressions": 7350, "clicks": 1, "cost": 1.429999948,
             "conversions": 2} for d in dates]


def write_case(root: Path, daily: list) -> Path:
    case = root / "cases" / "c01-real"
    case.mkdir(parents=True)
    snap = {"schema_version": "1.0", "platform": "meta_ads",
            "account": {"id": "act_1", "currency_code": "USD", "time_zone": "UTC"},
            "period": {"start": "2017-08-01", "end": "2017-08-31", "as_of": "2017-09-01"},
            "campaigns": [{"id": "916", "name": "Campaign 916"}], "daily": daily}
    (case / "snapshot.json").write_text(json.dumps(snap, indent=1))
    (case / "expected.yaml").write_text("case: c01-real\nkind: clean\nmust_find: []\nmay_find: []\nmust_not_say: []\n")
    return case


DD_MM = ["17-08-2017", "18-08-2017", "19-08-2017", "20-08-2017"]


def test_check_refuses_rows_whose_dates_cannot_be_read(tmp_path, capsys):
    case = write_case(tmp_path, daily_rows(DD_MM))
    assert check_main(["--cases", str(tmp_path / "cases")]) == 2
    out = capsys.readouterr().out
    assert f"{case / 'snapshot.json'}:" in out
    assert "4 of 4 daily rows cannot be read, first /daily/0/date '17-08-2017' is not a date: expected YYYY-MM-DD" in out


def test_eval_refuses_them_before_scoring(tmp_path, capsys):
    write_case(tmp_path, daily_rows(DD_MM))
    code = eval_main(["--backend", "rules", "--cases", str(tmp_path / "cases"), "--results-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2
    assert "daily rows cannot be read" in err and "nothing was scored" in err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*.csv"))


def test_mostly_unreadable_numbers_are_an_error_too(tmp_path, capsys):
    rows = daily_rows(["2017-08-17", "2017-08-18", "2017-08-19", "2017-08-20"])
    for row in rows[1:]:
        row["cost"] = "1,429.99 USD"
    write_case(tmp_path, rows)
    assert check_main(["--cases", str(tmp_path / "cases")]) == 2
    assert "3 of 4 daily rows cannot be read, first /daily/1/cost '1,429.99 USD' is not a number" in capsys.readouterr().out


def test_rows_with_no_metric_fields(tmp_path, capsys):
    write_case(tmp_path, [{"date": "2017-08-17", "campaign_id": "916", "spent": 1.43}])
    assert check_main(["--cases", str(tmp_path / "cases")]) == 2
    assert "has none of the metric fields impressions, clicks, cost" in capsys.readouterr().out


def test_a_few_bad_rows_are_left_to_the_auditor(tmp_path, capsys):
    rows = daily_rows([f"2017-08-{d}" for d in range(10, 20)])
    rows[3]["cost"] = "n/a"
    write_case(tmp_path, rows)
    assert check_main(["--cases", str(tmp_path / "cases")]) == 0
