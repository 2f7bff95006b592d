"""A run's case file (results/<version>/cases/<id>.json) edited by hand: refused naming the file and the
field, never read as a case that scored 0 (compare then reported it as newly failing) or as another case."""

from __future__ import annotations

import json
import shutil

import pytest

from reviewtui.commands.compare import main as compare_main
from reviewtui.commands.eval import main as eval_main
from reviewtui.runs.case_records import read_case_record
from reviewtui.runs.result_files import ResultsError
from tests.stub_backends import FIXTURE_CASES

CASE = "c01-tracking-stopped"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    assert eval_main(["--backend", "rules", "--cases", str(FIXTURE_CASES), "--results-dir", str(results)]) in (0, 1)
    (found,) = results.glob("reference/*/manifest.json")
    return found.parent


def edited(run_dir, tmp_path, edit) -> tuple:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    path = copy / "cases" / f"{CASE}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return copy, path


@pytest.mark.parametrize("field", ["score", "output"])
def test_a_deleted_score_or_output_is_named(run_dir, tmp_path, capsys, field):
    copy, path = edited(run_dir, tmp_path, lambda d: d.pop(field))
    with pytest.raises(ResultsError, match=f"the top level has no '{field}'"):
        read_case_record(path)
    assert compare_main([str(run_dir), str(copy)]) == 2
    assert f"{path}:1:" in capsys.readouterr().err


def test_a_score_set_to_null_beside_an_output_is_named(run_dir, tmp_path):
    _, path = edited(run_dir, tmp_path, lambda d: d.update(score=None))
    with pytest.raises(ResultsError, match=rf"{path}:1: .*/score is null while /output is not"):
        read_case_record(path)


def test_a_file_holding_another_case_is_named(run_dir, tmp_path):
    _, path = edited(run_dir, tmp_path, lambda d: d.update(case_id="c02-brand-lost-is"))
    with pytest.raises(ResultsError, match=rf"{path}:1: .*'c02-brand-lost-is', not '{CASE}'"):
        read_case_record(path)


def test_the_run_as_written_reads(run_dir):
    assert read_case_record(run_dir / "cases" / f"{CASE}.json").scores
