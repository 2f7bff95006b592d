"""``assistant.plainly_of_schema``: the walk that spares jsonschema an answer plainly of the output schema.
It may say False of a valid answer (jsonschema then validates it), never True of an invalid one."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from reviewtui import assistant
from reviewtui.assistant import OutputError, _answer_schema, _validator, parse_output, plainly_of_schema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ODD_VALUES = [None, 1, 1.5, True, "", "x", "high", "pacing.overspend", [], {}, ["a"], {"a": 1}]


def answers() -> list[dict]:
    found = []
    for folder in ("honest_declared", "honest_prose", "declared"):
        for path in sorted((FIXTURES / folder).glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            text = data.get("raw_text") if isinstance(data, dict) else None
            try:
                found.append(json.loads(text if isinstance(text, str) else path.read_text(encoding="utf-8")))
            except json.JSONDecodeError:
                continue
    return found


def mutated(doc: dict, rnd: random.Random) -> object:
    doc = copy.deepcopy(doc)
    findings = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(findings, list) or not findings or rnd.random() < 0.1:
        return rnd.choice([{"findings": []}, {"findings": [], "more": 1}, [], None, {"findings": {}}, {}])
    index = rnd.randrange(len(findings))
    finding = findings[index]
    if not isinstance(finding, dict) or rnd.random() < 0.1:
        findings[index] = rnd.choice(ODD_VALUES)
    elif finding and rnd.random() < 0.4:
        finding[rnd.choice(sorted(finding))] = rnd.choice(ODD_VALUES)
    elif finding and rnd.random() < 0.5:
        del finding[rnd.choice(sorted(finding))]
    else:
        finding[rnd.choice(["extra", "figures", "id", "scope"])] = rnd.choice(ODD_VALUES)
    return doc


def test_plainly_of_the_schema_only_when_jsonschema_finds_nothing():
    docs = answers()
    assert len(docs) >= 20 and any("figures" in f for d in docs for f in d["findings"])
    rnd = random.Random(26)
    seen = {True: 0, False: 0}
    for doc in docs:
        for trial in range(25):
            candidate = mutated(doc, rnd) if trial else doc
            items = candidate.get("findings") if isinstance(candidate, dict) else None
            declared = isinstance(items, list) and any(isinstance(i, dict) and "figures" in i for i in items)
            plain = plainly_of_schema(_answer_schema(declared), candidate)
            valid = next(iter(_validator(declared).iter_errors(candidate)), None) is None
            assert valid or not plain, candidate
            assert plain == valid, candidate  # and on these, it never leaves a valid answer to jsonschema
            seen[valid] += 1
    assert seen[True] > 20 and seen[False] > 100


def test_a_schema_saying_more_than_the_walk_reads_is_left_to_jsonschema():
    schema = copy.deepcopy(_answer_schema(False))
    schema["properties"]["findings"]["items"]["properties"]["claim"]["maxLength"] = 3
    doc = {"findings": [{"id": "pacing.overspend", "scope": None, "claim": "far too long", "evidence": "e",
                         "severity": "high"}]}
    assert plainly_of_schema(_answer_schema(False), doc)
    assert not plainly_of_schema(schema, doc)


def test_an_answer_not_plainly_of_the_schema_gets_jsonschemas_reasons(monkeypatch):
    calls = []
    real = assistant._schema_problems
    monkeypatch.setattr(assistant, "_schema_problems", lambda *args: calls.append(1) or real(*args))
    good = {"findings": [{"id": "pacing.overspend", "scope": None, "claim": "c", "evidence": "e", "severity": "high"}]}
    assert [f.id for f in parse_output(json.dumps(good))] == ["pacing.overspend"] and calls == []
    bad = copy.deepcopy(good)
    bad["findings"][0]["severity"] = "dire"
    with pytest.raises(OutputError, match="severity"):
        parse_output(json.dumps(bad))
    assert calls == [1]
