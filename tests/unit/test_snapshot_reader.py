"""The one reader of snapshot values (reviewtui/caseset/snapshot_reader.py), rule by rule, and the
callers that read through it: the derived index, the auditor's series and the app's tables."""

from __future__ import annotations

import math
from datetime import date

import pytest

from reviewtui.auditor.data_quality import micros_not_converted
from reviewtui.auditor.findings import Context
from reviewtui.auditor.series import build_series
from reviewtui.domain.thresholds import Thresholds
from reviewtui.caseset.snapshot_reader import (
    MICROS_OVER_MEDIAN, PointerError, escape_token, last_complete_day, micros_limits, micros_suspects, number,
    parse_day, pointer_to, resolve_pointer, unescape_token,
)
from reviewtui.scoring.daily_totals import daily_totals
from reviewtui.authoring.snapshot_sections import locate, snapshot_sections


@pytest.mark.parametrize("value, expected", [
    (12, 12.0), (-3.5, -3.5), (0, 0.0), ("1,204.50", 1204.5), (" 7 ", 7.0), ("1e3", 1000.0),
    (10**400, None),  # an integer beyond float range
    (None, None), (True, None), (False, None), ("", None), ("twelve", None), ("12 USD", None),
    (float("inf"), None), (float("nan"), None), ("inf", None), ("nan", None), ([1], None), ({"v": 1}, None),
])
def test_a_number_is_a_finite_float_or_none(value, expected) -> None:
    assert number(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("2025-03-09", date(2025, 3, 9)), ("2025-03-09T10:00:00+01:00", date(2025, 3, 9)),
    ("2025-03-09 23:59", date(2025, 3, 9)),
    ("2025-02-30", None), ("09/03/2025", None), ("2025-3-9", None), ("", None), (None, None), (20250309, None),
])
def test_a_day_is_the_first_ten_characters_as_an_iso_date(value, expected) -> None:
    assert parse_day(value) == expected


def test_a_hostile_run_of_distinct_dates_reads_the_same_as_the_first_time() -> None:
    days = [f"20{y:02d}-{m:02d}-{d:02d}" for y in range(30) for m in range(1, 13) for d in range(1, 29)]
    first = [parse_day(d) for d in days]  # more than the memo holds
    assert [parse_day(d) for d in days] == first
    assert first[0] == date(2000, 1, 1) and first[-1] == date(2029, 12, 28)


D = date.fromisoformat


@pytest.mark.parametrize("period, end, last_row, expected", [
    # last_complete_date wins over everything
    ({"last_complete_date": "2025-03-10", "as_of": "2025-03-20"}, D("2025-03-31"), D("2025-03-25"), D("2025-03-10")),
    # else the day before as_of
    ({"as_of": "2025-03-20"}, D("2025-03-31"), D("2025-03-25"), D("2025-03-19")),
    # a closed period ends at its last day
    ({"as_of": "2025-04-05"}, D("2025-03-31"), D("2025-03-31"), D("2025-03-31")),
    ({"as_of": "2025-04-05"}, None, D("2025-03-31"), D("2025-04-04")),
    # else the last date with rows; an unreadable date counts as missing
    ({"as_of": "soon", "last_complete_date": None}, D("2025-03-31"), D("2025-03-25"), D("2025-03-25")),
    ({}, None, None, None),
    # the first day there is has no day before it
    ({"as_of": "0001-01-01"}, None, D("2025-03-25"), D("2025-03-25")),
])
def test_the_last_complete_day_precedence(period, end, last_row, expected) -> None:
    assert last_complete_day(period, end, last_row) == expected


def snapshot(period: dict, days: list[str]) -> dict:
    return {"platform": "google_ads", "account": {"id": "1", "currency_code": "USD", "time_zone": "UTC"},
            "period": {"start": "2025-03-01", "end": "2025-03-31", **period},
            "daily": [{"date": d, "campaign_id": "1", "cost": 10.0, "clicks": 2} for d in days]}


@pytest.mark.parametrize("period, expected", [
    ({"as_of": "2025-03-20", "last_complete_date": "2025-03-12"}, D("2025-03-12")),
    ({"as_of": "2025-03-20"}, D("2025-03-19")),
    ({"as_of": "2025-04-09"}, D("2025-03-31")),
    ({"as_of": None}, D("2025-03-25")),
])
def test_the_derived_index_and_the_auditor_agree_on_the_last_complete_day(period, expected) -> None:
    data = snapshot(period, ["2025-03-01", "2025-03-25"])
    assert daily_totals(data).period.last_complete == expected
    assert build_series(data).last_complete == expected


def test_the_corrected_reading_converts_rows_a_thousand_times_the_median_row() -> None:
    rows = [{"cost": c, "conversions_value": v} for c, v in ((10.0, 50.0), (12.0, 40.0), (11.0, 45.0))]
    assert micros_limits(rows) is None
    # the upper median of 10, 11, 12 and 20,000 (12) times MICROS_OVER_MEDIAN is the cost limit; no
    # value is over its own; what is not a row or not a number is left out
    over = [*rows, {"cost": 20_000.0, "conversions_value": "45"}, "not a row", {"cost": None}, {"cost": "junk"}]
    assert micros_limits(over) == (12.0 * MICROS_OVER_MEDIAN, math.inf)
    assert micros_limits([{"cost": 10.0}, {"cost": 10.0 * MICROS_OVER_MEDIAN}]) is None  # at the limit is not over
    assert micros_limits([]) is None


def test_the_auditor_flags_micros_only_past_the_taxonomy_threshold_or_its_cpc() -> None:
    costs, clicks, values = [10.0, 12.0, 11.0, 0.0], [5.0, 6.0, 5.0, 0.0], [0.0, 0.0, 0.0, 0.0]
    assert micros_suspects(costs, clicks, values, 10_000, 1_000) == ([], 11.0)
    # 5,000 times the median is micros to the corrected reading, not to the auditor
    assert micros_suspects([*costs, 55_000.0], [*clicks, 100.0], [*values, 0.0], 10_000, 1_000)[0] == []
    assert micros_suspects([*costs, 200_000.0], [*clicks, 1_000.0], [*values, 0.0], 10_000, 1_000)[0] == [4]
    assert micros_suspects([*costs, 5_000.0], [*clicks, 2.0], [*values, 0.0], 10_000, 1_000)[0] == [4]  # CPC 2,500
    # value rows come after the cost rows, each row once
    assert micros_suspects([1.0, 1.0, 1.0, 9e9], [1, 1, 1, 1], [9e9, 2.0, 2.0, 2.0], 10_000, 1_000) == ([3, 0], 1.0)
    assert micros_suspects([0.0], [0.0], [9e9], 10_000, 1_000) == ([], None)  # no cost: nothing to read against


def test_the_auditor_finding_and_the_rule_read_the_same_rows() -> None:
    data = snapshot({"as_of": "2025-03-05"}, ["2025-03-01", "2025-03-02", "2025-03-03", "2025-03-04"])
    data["daily"][3]["cost"] = 10.0 * 20_000
    ctx = Context(build_series(data), Thresholds())
    micros_not_converted(ctx)
    [finding] = [a for a in ctx.assessments if a.kind == "data.micros_not_converted"]
    assert finding.supported and finding.rows == ["/daily/3"]


@pytest.mark.parametrize("key", ["plain", "a/b", "a~b", "~1", "~0/~", "/", "", "ünï cødé"])
def test_a_pointer_token_round_trips(key) -> None:
    assert unescape_token(escape_token(key)) == key
    doc = {key: [{"x": 1}, {key: "found"}]}
    assert resolve_pointer(doc, pointer_to(key, 1, key)) == "found"


def test_escaping_order_keeps_tilde_one_apart_from_slash() -> None:
    assert escape_token("~1") == "~01" and escape_token("/") == "~1"
    assert pointer_to("budgets", 0, "history", 2) == "/budgets/0/history/2"
    assert pointer_to() == ""


@pytest.mark.parametrize("pointer, message", [
    ("daily", "must start with '/'"), ("/nope", "has no key 'nope'"), ("/rows/x", "is not an index"),
    ("/rows/01", "is not an index"), ("/rows/5", "index 5 is past the end"), ("/rows/0/v/deeper", "is a value"),
])
def test_a_pointer_that_does_not_resolve_names_the_failing_step(pointer, message) -> None:
    with pytest.raises(PointerError, match=message):
        resolve_pointer({"rows": [{"v": 1}]}, pointer)
    assert resolve_pointer({"rows": []}, "") == {"rows": []}


def test_the_apps_tables_use_the_same_pointers() -> None:
    data = {"daily": [{"date": "2025-03-01"}], "odd/key~": {"a/b": 1}}
    tables = snapshot_sections(data)
    [odd] = [t for t in tables if t.name == "odd/key~"]
    [row] = [i for i in range(len(odd)) if odd.label(i) == "a/b"]
    assert odd.pointer(row) == pointer_to("odd/key~", "a/b")
    assert resolve_pointer(data, odd.pointer(row)) == 1
    assert locate(tables, odd.pointer(row)) == (tables.index(odd), row)
