"""The tag form's `says` field: what a senior types becomes the list of regexes saved in expected.yaml."""

import pytest

from reviewtui.authoring.drafts import format_says, parse_says


@pytest.mark.parametrize(
    "typed, saved",
    [
        ("", []),
        ("overspend", ["overspend"]),
        ('"off.?target"', ["off.?target"]),
        ("'off.?target'", ["off.?target"]),
        ('["over-?pac", "overspend"]', ["over-?pac", "overspend"]),
        ('"say \\"stop\\""', ['say "stop"']),
    ],
)
def test_typed_patterns_are_saved_without_their_quotes(typed, saved):
    assert parse_says(typed) == saved


def test_format_and_parse_round_trip():
    patterns = ["over-?pac", 'a "quoted" word', "back\\slash"]
    assert parse_says(format_says(patterns)) == patterns


def test_a_broken_list_says_how_to_write_it():
    with pytest.raises(ValueError, match="write it as"):
        parse_says('["unclosed')
