"""The snapshot table model behind the author screen's tabs (no terminal needed)."""

from reviewtui.caseset.snapshot_reader import resolve_pointer
from reviewtui.authoring.snapshot_sections import format_cell, locate, snapshot_sections

from tests.app.casegen import snapshot


def test_sections_in_tab_order_with_unknown_sections_kept():
    data = snapshot(6)
    data["custom_export"] = [{"a": 1}]
    names = [t.name for t in snapshot_sections(data)]
    assert names == ["daily", "campaigns", "search_terms", "budgets", "account", "period", "targets", "custom_export", ""]


def test_every_row_pointer_resolves_to_that_row():
    data = snapshot(6)
    for table in snapshot_sections(data):
        for i in range(len(table)):
            value = resolve_pointer(data, table.pointer(i))
            expected = table.items[i] if table.kind == "rows" else table.items[i][1]
            assert value == expected
            assert locate(snapshot_sections(data), table.pointer(i))[1] == i


def test_filters_sort_and_unknown_columns():
    data = snapshot(12)
    data["daily"][3]["note"] = "added by hand"
    daily = snapshot_sections(data)[0]
    assert daily.columns[-1] == "note" and daily.cell(0, "note") == "" and daily.cell(3, "note") == "added by hand"
    assert daily.view(campaign="222") == [1, 3, 5, 7, 9, 11]
    assert daily.view(date_from="2025-03-02", date_to="2025-03-03") == [2, 3, 4, 5]
    costs = [daily.value(i, "cost") for i in daily.view(sort_column="cost", descending=True)]
    assert costs == sorted(costs, reverse=True)
    # A filter that does not apply to a section leaves it whole.
    account = next(t for t in snapshot_sections(data) if t.name == "account")
    assert account.view(campaign="222", date_from="2025-03-02") == list(range(len(account)))


def test_cells_are_shown_as_json_values():
    assert [format_cell(v) for v in (None, True, 0.1, 3, "x", {"a": [1]})] == ["null", "true", "0.1", "3", "x", '{"a":[1]}']
