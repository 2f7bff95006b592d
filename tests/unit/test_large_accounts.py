"""The benchmarks' large accounts show what their expected.yaml says (benchmarks/large_accounts.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_eval_scale import write_case  # noqa: E402
from large_accounts import PLANTED, SHAPES, make_account  # noqa: E402

from reviewtui.auditor.audit import audit  # noqa: E402
from reviewtui.caseset.cases import load_case, validate_case  # noqa: E402


@pytest.mark.parametrize("shape", SHAPES)
def test_the_reference_auditor_finds_what_the_expected_yaml_of_each_shape_asks(shape: str, tmp_path: Path) -> None:
    case = load_case(write_case(tmp_path, f"c-{shape}", make_account(shape, 1000), shape))
    assert [p for p in validate_case(case) if p.severity == "error"] == []
    assert case.snapshot is not None
    found = {f.kind + (f"@{f.scope}" if f.scope else "") for f in audit(case.snapshot.data).findings}
    assert [item.id for item in case.must_find] == PLANTED[shape][0]
    assert all(item.id in found for item in case.must_find), found
    assert case.must_not_say and not any(f.split("@")[0] == item.id for item in case.must_not_say for f in found), found
