"""The snapshot tables read for people: money, counts and shares formatted; the raw value kept; ids sorted as numbers."""

from __future__ import annotations

import json

from reviewtui.caseset.snapshot_sections import snapshot_sections


def tables(data: dict) -> dict:
    return {t.name: t for t in snapshot_sections(data)}


SNAP = {
    "schema_version": "1.0", "platform": "meta_ads",
    "account": {"id": "act_1", "currency_code": "USD", "time_zone": "UTC"},
    "period": {"start": "2023-08-01", "end": "2023-08-31", "as_of": "2023-09-01"},
    "targets": {"monthly_budget": 60000.0, "pacing_tolerance": 0.1},
    "campaigns": [{"id": "916"}, {"id": "1178"}, {"id": "936"}],
    "daily": [{"date": "2023-08-17", "campaign_id": "916", "impressions": 1143000, "clicks": 12,
               "cost": 2041.7499899040004, "conversions": 2.5, "search_impression_share": 0.0999}],
}


def test_money_counts_and_shares_are_formatted_and_the_raw_value_kept():
    daily = tables(SNAP)["daily"]
    assert daily.cell(0, "cost") == "2,041.75"
    assert daily.raw(0, "cost") == "2041.7499899040004"
    assert daily.cell(0, "impressions") == "1,143,000"
    assert daily.cell(0, "conversions") == "2.50"
    assert daily.cell(0, "search_impression_share") == "9.99%"
    targets = tables(SNAP)["targets"]
    assert [targets.cell(i, "value") for i in range(2)] == ["60,000.00", "10.00%"]


def test_money_follows_the_currency_decimals():
    yen = json.loads(json.dumps(SNAP))
    yen["account"]["currency_code"] = "JPY"
    assert tables(yen)["daily"].cell(0, "cost") == "2,042"


def test_ids_written_as_digits_sort_as_numbers():
    campaigns = tables(SNAP)["campaigns"]
    order = campaigns.view(sort_column="id")
    assert [campaigns.raw(i, "id") for i in order] == ["916", "936", "1178"]


async def test_the_status_line_shows_the_current_cell_as_the_snapshot_has_it(repo):
    from tests.app.apphelpers import SIZE, make_app, open_case, screen_text, settle

    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c01-shoes-tracking")
        panel = screen.panel
        panel.active_table.focus()
        await settle(pilot)
        columns = panel.active_table.section.columns
        await pilot.press(*["right"] * columns.index("impressions"))
        await settle(pilot)
        status = str(panel.query_one("#snapshot-status").render())
        raw = panel.active_table.section.raw(panel.active_table.current_index, "impressions")
        assert f"impressions = {raw}" in status and "," not in raw
        assert f"{int(raw):,}" in screen_text(app)  # the table shows it with separators
        await pilot.press(*["right"] * len(columns))  # scrolled sideways to the last column
        await settle(pilot)
        assert f"{columns[-1]} = " in str(panel.query_one("#snapshot-status").render())
        assert columns[-1] in screen_text(app)  # its header is still shown above it
