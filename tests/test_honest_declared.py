"""The scorer on honest answers it was not written against (tests/fixtures/honest_declared/README.md):
answers independent auditors wrote as the assistant, every figure declared, are passed with every
figure grounded; and the same answers with one figure made up fail the gate on that figure."""

from __future__ import annotations

import pytest
import csv
import json
import shutil
from pathlib import Path

from reviewtui.commands.main import main

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "tests" / "fixtures" / "honest_declared"


def replay(tmp_path: Path, answers: Path, capsys) -> tuple[int, list[dict[str, str]], str]:
    results = tmp_path / "results"
    code = main(["eval", "--backend", "replay", "--replay-dir", str(answers), "--cases", str(ROOT / "cases"),
                 "--results-dir", str(results)])
    out = capsys.readouterr().out
    rows = list(csv.DictReader((results / "replay" / answers.name / "audit-v4.csv").open(encoding="utf-8")))
    return code, rows, out


@pytest.mark.slow
def test_honest_declared_answers_pass_with_every_figure_grounded(tmp_path, capsys):
    code, rows, out = replay(tmp_path, ANSWERS, capsys)
    assert code == 0, out
    assert len(rows) == len(list((ROOT / "cases").glob("*/expected.yaml")))
    assert all(float(r["recall"]) == 1.0 and float(r["precision"]) == 1.0 for r in rows), out
    assert "fabrications    0" in out and ", 0 untraceable" in out and ", 0 fabricated" in out


@pytest.mark.slow
def test_one_figure_made_up_in_an_honest_answer_fails_the_gate(tmp_path, capsys):
    """c22's "2.1 times" (declared as 190.3 / 92.1) made 2.3 in the text and its declaration alike."""
    answers = tmp_path / "honest_declared"
    shutil.copytree(ANSWERS, answers)
    path = answers / "c22-sun-holidays.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    finding = doc["findings"][0]
    assert "about 2.1 times" in finding["claim"]
    finding["claim"] = finding["claim"].replace("about 2.1 times", "about 2.3 times")
    for figure in finding["figures"]:
        if figure["printed"] == "2.1":
            figure["printed"] = "2.3"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, rows, out = replay(tmp_path, answers, capsys)
    assert code == 1
    assert "c22-sun-holidays: 1: figure \"2.3 times\" in finding #1 claim" in out
