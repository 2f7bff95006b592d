"""Sentence splitting of markdown write-ups (reviewtui.caseset.writeup)."""

from reviewtui.caseset.writeup import claim_key, parse_writeup, plain_text, split_sentences


def texts(md: str) -> list[str]:
    return [s.text for s in split_sentences(md)]


def test_spans_point_into_the_source():
    md = "# Title\n\nSpend rose in March. Conversions fell to zero!\n"
    sentences = split_sentences(md)
    assert [md[s.start:s.end] for s in sentences] == ["Spend rose in March.", "Conversions fell to zero!"]


def test_decimals_and_thousands_do_not_split():
    md = "Search terms spent 1,234.50 with no conversions. CPA was 45.00 against 40.5 target.\n"
    assert texts(md) == ["Search terms spent 1,234.50 with no conversions.", "CPA was 45.00 against 40.5 target."]


def test_abbreviations_and_initials_do_not_split():
    md = "Brand terms, e.g. Acme Shoes, hold vs. February. Spend in the U.S. Market is approx. 3,000.\nNext one.\n"
    assert texts(md) == [
        "Brand terms, e.g. Acme Shoes, hold vs. February.",
        "Spend in the U.S. Market is approx. 3,000.",
        "Next one.",
    ]


def test_lower_case_after_a_point_continues_the_sentence():
    assert texts("The file wu03.md says it. the rest follows.\n") == ["The file wu03.md says it. the rest follows."]


def test_list_items_are_sentences_even_without_a_full_stop():
    md = "Findings:\n\n- Tracking stopped on 2025-03-09\n- 14 terms wasted 1,240.50. Add negatives.\n1. Numbered item\n"
    assert texts(md) == [
        "Findings:",
        "Tracking stopped on 2025-03-09",
        "14 terms wasted 1,240.50.",
        "Add negatives.",
        "Numbered item",
    ]


def test_line_breaks_inside_a_paragraph_collapse():
    md = "Clicks held near 410 a day\nwhile conversions were 0.\n"
    assert texts(md) == ["Clicks held near 410 a day while conversions were 0."]


def test_headings_code_and_tables_are_not_sentences():
    md = "## Pacing\n\n```\nx = 1. Y = 2.\n```\n\n| a | b |\n|---|---|\n\nReal sentence.\n"
    wu = parse_writeup(md)
    assert [b.kind for b in wu.blocks] == ["heading", "code", "table", "paragraph"]
    assert [s.text for s in wu.sentences] == ["Real sentence."]


def test_quotes_closing_marks_and_emphasis():
    md = 'He said "spend is fine." **Budget is capped.** Then (it stopped.) Done?\n'
    assert texts(md) == ['He said "spend is fine."', "**Budget is capped.**", "Then (it stopped.)", "Done?"]


def test_find_matches_a_claim_without_markup():
    wu = parse_writeup("Intro.\n\n- **Conversions** stopped on\n  2025-03-09.\n")
    found = wu.find("Conversions stopped on 2025-03-09.")
    assert found is not None and found.block == 1
    assert wu.find("Something else.") is None
    assert plain_text("a **b** `c` [d](http://x) *e*") == "a b c d e"
    assert claim_key("  A\n b ") == "a b"


def test_a_header_of_label_fields_holds_no_sentence():
    """"**To:** ... / **Date:** ..." is the write-up's header, not a claim: no sentence of it can be tagged
    (it once was, with its raw `**`) or disputed. A paragraph with one such line among others stays prose."""
    text = ("# Audit\n\n**To:** Jonas Weber, Head of E-commerce  \n**From:** Margit Halvorsen  \n**Date**: 20 March 2025\n\n"
            "Purchase tracking has stopped.\n\n**Note:** this one is prose. It has two sentences.\n")
    writeup = parse_writeup(text)
    assert [b.kind for b in writeup.blocks] == ["heading", "fields", "paragraph", "paragraph"]
    assert [s.text for s in writeup.sentences] == [
        "Purchase tracking has stopped.", "**Note:** this one is prose.", "It has two sentences."]
