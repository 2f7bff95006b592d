"""The daily rows read once (caseset/daily_rows.py): the columns read every value as the snapshot's
readers do, the validation and the auditor's series give what a row-by-row reading gives, and one
loaded snapshot is read once however many of them ask."""

from __future__ import annotations

import pytest
import json
import random
import sys
from datetime import date, timedelta
from pathlib import Path

from reviewtui.runs import validation
from reviewtui.auditor.audit import audit
from reviewtui.auditor.series import MAX_METRIC, Campaign, Row, Totals, build_series
from reviewtui.caseset import daily_rows as daily_rows_module
from reviewtui.caseset.cases import load_case_set
from reviewtui.caseset.daily_rows import COLUMNS, DailyRows, daily_rows
from reviewtui.caseset.rowcheck import daily_problems, row_problem
from reviewtui.caseset.snapshot import Snapshot
from reviewtui.caseset.snapshot_cache import snapshot_data
from reviewtui.caseset.snapshot_reader import number, parse_day
from reviewtui.scoring.daily_totals import METRICS as DAY_METRICS
from reviewtui.scoring.daily_totals import SHARE_COUNT, SHARE_SUM, WIDTH, DailyTotals
from reviewtui.scoring.daily_totals import SHARES as DAY_SHARES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from large_accounts import make_account  # noqa: E402

# What a hand-edited or badly exported row may hold where a number belongs
ODD_VALUES = [None, "12", "1,204.50", " 7 ", "n/a", "", True, False, float("inf"), 10**400, -3, 2.5e15, -1e16,
              [1], {"v": 1}, 0, -0.0, 1.5]


def hostile(snapshot: dict, seed: int, share: float) -> dict:
    """The snapshot with ``share`` of its rows spoiled: odd values, bad dates, no campaign, not objects."""
    rng = random.Random(seed)
    daily = []
    for row in snapshot["daily"]:
        row = dict(row)
        if rng.random() < share:
            roll = rng.random()
            if roll < 0.05:
                daily.append(rng.choice(["row", 3, None, ["2025-03-01"]]))
                continue
            if roll < 0.15:
                row["date"] = rng.choice(["01/03/2025", None, 20250301, "2025-03-01T10:00:00", ""])
            elif roll < 0.25:
                row["campaign_id"] = rng.choice([None, "", 0, 7.0])
            elif roll < 0.3:
                for name in list(row):
                    if name in COLUMNS:
                        del row[name]
            for name in rng.sample(COLUMNS, rng.randint(1, 4)):
                row[name] = rng.choice(ODD_VALUES)
        daily.append(row)
    return {**snapshot, "daily": daily}


def old_series_rows(data: dict) -> tuple[list[tuple], list[tuple], list[str], dict]:
    """The series' reading as it was, one row at a time: (index, day, campaign, metrics) of each usable
    row, the bad values, the notes of skipped rows and the cell totals."""
    rows, bad, notes, cells = [], [], [], {}
    for index, raw in enumerate(data["daily"]):
        if not isinstance(raw, dict):
            notes.append(f"/daily/{index} is not an object: skipped")
            continue
        day = parse_day(raw.get("date"))
        if day is None:
            notes.append(f"/daily/{index}/date {raw.get('date')!r} is not a YYYY-MM-DD date: row skipped")
            continue
        if raw.get("campaign_id") is None:
            notes.append(f"/daily/{index} has no campaign_id: row skipped")
            continue
        metrics = {}
        for name in COLUMNS:
            if name in raw:
                value = number(raw[name])
                metrics[name] = value if value is not None and abs(value) < MAX_METRIC else None
        rows.append((index, day, str(raw["campaign_id"]), metrics))
        bad += [(index, n, raw[n]) for n, v in metrics.items() if v is None or isinstance(raw[n], str)]
        totals = cells.setdefault((day, str(raw["campaign_id"])), Totals())
        totals.add(metrics)
    return rows, bad, notes, cells


def shapes() -> list[dict]:
    c01 = json.loads((ROOT / "cases" / "c01-outdoor-retail" / "snapshot.json").read_text())
    return [c01, make_account("ads", 3_000), make_account("campaigns", 2_000)]


def test_the_columns_read_every_value_as_the_readers_do():
    for seed, snapshot in enumerate(shapes()):
        data = hostile(snapshot, seed, 0.3)
        view = DailyRows(data["daily"])
        assert len(view) == len(data["daily"])
        for i, row in enumerate(data["daily"]):
            if not isinstance(row, dict):
                assert i in view.not_objects and view.days[i] is None
                continue
            assert view.days[i] == parse_day(row.get("date"))
            assert view.campaigns[i] == (None if row.get("campaign_id") is None else str(row["campaign_id"]))
            odd = []
            for name in COLUMNS:
                value = number(row[name]) if name in row else None
                assert view.columns[name][i] == value and type(view.columns[name][i]) is type(value), (i, name)
                assert view.present(i, name) is (name in row)
                plain = type(row.get(name)) in (int, float) and number(row[name]) is not None
                if name in row and not plain:
                    odd.append(name)
            assert view.irregular.get(i, []) == odd, i
        usable = [i for i in range(len(view)) if view.days[i] is not None and view.campaigns[i] is not None]
        cells: dict = {}
        for i in usable:
            cells.setdefault((view.campaigns[i], view.days[i]), []).append(i)
        assert view.by_cell == cells
        assert sum(map(len, view.by_campaign.values())) == sum(map(len, view.by_day.values())) == len(usable)


@pytest.mark.slow
def test_the_series_is_what_the_row_by_row_reading_gave():
    for seed, snapshot in enumerate(shapes()):
        for share in (0.0, 0.2):
            data = hostile(snapshot, seed, share)
            rows, bad, notes, cells = old_series_rows(data)
            series = build_series(snapshot_data(data))
            assert [(r.index, r.day, r.campaign_id, r.metrics) for r in series.rows] == rows
            assert all(r.raw is data["daily"][r.index] for r in series.rows)
            assert [(r.index, n, raw) for r, n, raw in series.bad_values] == bad
            assert [n for n in series.notes if n.startswith("/daily/")] == notes
            assert series.cells == cells
            assert list(series.cells) == list(cells)
            # the day and campaign totals: each row added in row order (a campaign's within the period)
            days: dict = {}
            in_period: dict = {}
            for _, day, cid, metrics in rows:
                days.setdefault(day, Totals()).add(metrics)
                if series.in_period(day):
                    in_period.setdefault(cid, Totals()).add(metrics)
            assert series.days == days and list(series.days) == list(days)
            assert series.campaign_totals == in_period and list(series.campaign_totals) == list(in_period)
            # the rows by cell, day and campaign, each made when read
            by_cell: dict = {}
            for index, day, cid, _ in rows:
                by_cell.setdefault((day, cid), []).append(index)
            assert {key: [r.index for r in group] for key, group in series.rows_by_cell.items()} == by_cell
            assert all(series.rows_by_cell.get(key) is not None for key in by_cell)
            assert series.rows_by_cell.get((date(1999, 1, 1), "none")) is None
            assert sorted(r.index for group in series.rows_by_day.values() for r in group) == [r[0] for r in rows]
            for cid, group in series.rows_by_campaign.items():
                assert [r.index for r in group] == [index for index, _, c, _ in rows if c == cid]
            assert len(series.rows) == len(rows) and [r.index for r in series.rows[:3]] == [r[0] for r in rows[:3]]
            for name in COLUMNS:
                assert series.holds(name) is any(name in metrics for _, _, _, metrics in rows), name
                assert series.reads(name) is any(metrics.get(name) is not None for _, _, _, metrics in rows), name
            assert set(series.campaigns) >= {cid for _, _, cid, _ in rows}
            assert all(isinstance(c, Campaign) for c in series.campaigns.values())
            assert all(isinstance(r, Row) for rs in series.rows_by_cell.values() for r in rs)


@pytest.mark.slow
def test_the_row_check_gives_the_message_of_a_row_by_row_scan():
    refused = []
    for seed, snapshot in enumerate(shapes()):
        for share in (0.0, 0.3, 0.7, 1.0):
            data = hostile(snapshot, seed, share)
            bad = [(i, m) for i, row in enumerate(data["daily"]) if (m := row_problem(i, row)) is not None]
            expected = [] if len(bad) <= 0.5 * len(data["daily"]) else [
                ("error", f"{len(bad)} of {len(data['daily'])} daily rows cannot be read, first {bad[0][1]}; "
                          "an audit over them would read nothing: fix the rows (or re-import the export)")]
            assert daily_problems(snapshot_data(data)) == expected, (seed, share)
            refused.append(bool(expected))
    assert True in refused and False in refused  # snapshots refused and snapshots let through were both tried


@pytest.mark.slow
def test_a_loaded_snapshot_is_read_once_by_the_validation_and_the_audit(tmp_path, monkeypatch):
    case = tmp_path / "cases" / "c01-big"
    case.mkdir(parents=True)
    (case / "snapshot.json").write_text(json.dumps(make_account("ads", 2_000)))
    (case / "expected.yaml").write_text("case: c01-big\nkind: clean\nmust_find: []\nmay_find: []\nmust_not_say: []\n")
    readings = []
    original = daily_rows_module.DailyRows.__init__

    def counted(self, daily):
        readings.append(len(daily))
        original(self, daily)

    monkeypatch.setattr(daily_rows_module.DailyRows, "__init__", counted)
    monkeypatch.setenv("REVIEWTUI_CACHE_DIR", str(tmp_path / "cache"))
    case_set = load_case_set(tmp_path / "cases")
    validation.run_checks(case_set)  # the row check, then the support check's audit
    snapshot = case_set.cases[0].snapshot
    assert readings == [len(snapshot.data["daily"])]
    assert daily_rows(snapshot.data) is daily_rows(snapshot.data)
    audit(snapshot.data)
    assert len(readings) == 1
    # A snapshot loaded again is read again: nothing is shared between two loaded objects
    audit(Snapshot.load(case / "snapshot.json").data)
    assert len(readings) == 2


def old_daily_sums(data: dict, once_per_day: bool = False, micros_over: tuple[float, float] | None = None,
                   shift_days: int = 0, invalid_left_out: bool = False) -> dict:
    """The derived index's day sums as they were read, one row at a time: (campaign, date) -> sums."""
    sums: dict = {}
    for row in data["daily"]:
        day = parse_day(row.get("date")) if isinstance(row, dict) else None
        if day is None:
            continue
        day += timedelta(days=shift_days)
        key = (str(row["campaign_id"]) if row.get("campaign_id") is not None else "(no campaign)", day)
        clicks, impressions = number(row.get("clicks")), number(row.get("impressions"))
        skip = ("clicks", "impressions") if (invalid_left_out and clicks is not None and impressions is not None
                                             and clicks > impressions) else ()
        if once_per_day and key in sums:
            continue
        cell = sums.setdefault(key, [0.0] * WIDTH)
        for i, metric in enumerate(DAY_METRICS):
            value = number(row.get(metric))
            if value is not None:
                if micros_over and ((metric == "cost" and value > micros_over[0])
                                    or (metric == "conversions_value" and value > micros_over[1])):
                    value /= 1e6
                if invalid_left_out and (value < 0 or metric in skip):
                    continue
                cell[i] += value
        for i, share in enumerate(DAY_SHARES):
            value = number(row.get(share))
            if value is not None and not (invalid_left_out and not 0 <= value <= 1):
                cell[SHARE_SUM + i] += value
                cell[SHARE_COUNT + i] += 1
    return {key: tuple(cell) for key, cell in sums.items()}


def test_the_derived_index_day_sums_are_what_the_row_by_row_reading_gave():
    for seed, snapshot in enumerate(shapes()):
        data = snapshot_data(hostile(snapshot, seed, 0.2))
        for options in ({}, {"once_per_day": True}, {"micros_over": (500.0, 2_000.0)}, {"shift_days": 1},
                        {"invalid_left_out": True}):
            totals = DailyTotals(data, **options)
            nested: dict = {}
            for (cid, day), day_sums in old_daily_sums(data, **options).items():
                nested.setdefault(cid, {})[day] = day_sums
            assert totals.by_campaign == nested, (seed, options)
            # the same order of campaigns and of their days
            assert [(cid, list(days)) for cid, days in totals.by_campaign.items()] == [
                (cid, list(days)) for cid, days in nested.items()]
            # the account's day: its campaigns' sums added in the order the campaigns first come
            account: dict = {}
            for days in nested.values():
                for day, day_sums in days.items():
                    if day in account:
                        account[day] = [a + b for a, b in zip(account[day], day_sums)]
                    else:
                        account[day] = list(day_sums)
            assert totals.account == {day: tuple(sums) for day, sums in account.items()}, (seed, options)
            assert list(totals.account) == list(account)


def test_the_row_check_is_answered_once_per_loaded_snapshot(monkeypatch):
    """The app's live validation asks after every edit; a loaded snapshot's rows are checked once, and a
    caller changing the list it got does not change the next answer."""
    from reviewtui.caseset import rowcheck

    data = snapshot_data(hostile(make_account("ads", 300), 1, 1.0))
    calls = []
    real = rowcheck._daily_problems
    monkeypatch.setattr(rowcheck, "_daily_problems", lambda d: calls.append(1) or real(d))
    first = daily_problems(data)
    assert first and first[0][0] == "error"
    first.clear()
    assert daily_problems(data) == real(data) and len(calls) == 1
    assert daily_problems(hostile(make_account("ads", 300), 1, 1.0)) == real(data)  # a plain dict: computed, not kept
    assert len(calls) == 2
