"""No import cycle anywhere in the package at run time, the app included.

The `acyclic_siblings` contract (pyproject.toml) holds the core to no cycle even
through type-only imports; the app's screens name the app's type for the type
checker (``if TYPE_CHECKING`` in ``tui/screens/base.py``, as posting does), which
grimp counts as a cycle. What runs must still have none: this test draws the
graph without the type-only imports and looks for any module that reaches itself.
"""

from __future__ import annotations

import grimp


def _cycles(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    return sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.startswith("reviewtui") and graph.chain_exists(importer=imported, imported=importer)
    )


def test_no_module_imports_itself_through_others_at_run_time():
    graph = grimp.build_graph("reviewtui", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_the_check_sees_a_cycle_when_there_is_one():
    graph = grimp.build_graph("reviewtui", exclude_type_checking_imports=True)
    graph.add_import(importer="reviewtui.files.atomic", imported="reviewtui.runs.session")
    assert ("reviewtui.files.atomic", "reviewtui.runs.session") in _cycles(graph)
