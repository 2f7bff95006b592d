"""Messages a new user reads, in their own words: each says its place once and names no flag the command
does not have."""

from __future__ import annotations

import pytest

from reviewtui.assistant import OutputError, parse_output
from reviewtui.files.untrusted import BadInput, Limits, load_json

LIMITS = Limits("snapshot.json", max_bytes=1 << 20, max_depth=32, max_items=1000, max_chars=1000)


@pytest.mark.parametrize(("text", "said"), [
    ('{"findings": ["abc', "Unterminated string starting at line 1 column 15"),  # once "starting at at line"
    ('{"findings": []}\n{', "Extra data at line 2 column 1"),
    ("findings", "Expecting value at line 1 column 1"),
])
def test_a_json_error_says_its_place_once(text, said):
    with pytest.raises(OutputError) as raised:
        parse_output(text)
    assert str(raised.value) == f"not JSON: {said}"
    with pytest.raises(BadInput) as bad:
        load_json(text, LIMITS)
    assert bad.value.message == f"malformed JSON: {said}; fix the JSON syntax"


def test_eval_help_says_where_an_offline_run_writes(capsys):
    """Without a key `reviewtui eval` runs the reference auditor, which writes under results/reference/:
    the help once named only results/<PROMPT_VERSION>.csv."""
    from reviewtui.commands.main import main

    assert main(["eval", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "the reference auditor writes under results/reference/" in help_text
