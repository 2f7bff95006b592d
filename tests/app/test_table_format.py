"""The snapshot tables read for people: money, counts and shares formatted; the raw value kept; ids sorted as numbers."""

from __future__ import annotations

import pytest
import json

from reviewtui.authoring.snapshot_sections import snapshot_sections


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


@pytest.mark.slow
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


@pytest.mark.slow
async def test_columns_line_up_in_terminal_cells_with_wide_characters(repo):
    """Twelve Japanese characters take 24 cells: the table pads by cells (rich's cell functions), so the
    column after a Japanese campaign name starts where it starts after an ASCII one."""
    from rich.cells import cell_len

    from tests.app.apphelpers import SIZE, make_app, open_case, settle

    snapshot_path = repo / "cases" / "c01-shoes-tracking" / "snapshot.json"
    data = json.loads(snapshot_path.read_text(encoding="utf-8"))
    data["campaigns"][0]["name"] = "東京本店ブランド検索広告"  # 12 characters, 24 cells
    snapshot_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_case(pilot, "c01-shoes-tracking")
        panel = screen.panel
        panel.show_tab(next(i for i, t in enumerate(panel.tables) if t.name == "campaigns"))
        await settle(pilot)
        table = panel.active_table
        width = table.scrollable_content_region.width
        lines = [table.render_line(y) for y in range(3)]  # the header and the two campaigns
        assert all(strip.cell_length == width for strip in lines)
        texts = [strip.text for strip in lines]
        after_name = table.section.columns[table.section.columns.index("name") + 1]
        starts = [cell_len(texts[0][:texts[0].index(after_name)])]
        for row, text in zip((0, 1), texts[1:]):
            value = table.section.cell(row, after_name)
            starts.append(cell_len(text[:text.index(value, text.index(table.section.cell(row, "name")))]))
        assert len(set(starts)) == 1, starts
