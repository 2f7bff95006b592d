"""What is a figure, and is it grounded: a table of texts against a real snapshot on disk.

The snapshot (tests/fixtures/scoring/snapshot.json) is small enough to check
by hand: campaign 111 spends 120.00 a day for 18 complete days (2,160.00, 20
conversions, CPA 108.00 against a 45.00 target); campaign 333 has 9,503
impressions, 1,187 clicks and 1,234.38 of cost (CTR 0.124908); campaign 222
spends 300.00 a day from 2025-03-10; 2025-03-19 is the incomplete as_of day.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reviewtui.scoring.figures import Identifiers, find_figures, scan
from reviewtui.scoring.grounding import GroundingIndex, verdicts_for_text
from reviewtui.caseset.snapshot import Snapshot

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"

G, F, N = "grounded", "fabricated", "not a figure"

# (text, verdict of its one figure (N: the text holds no figure), a fragment of the reason)
FIGURE_CASES = [
    # docs/scoring.md's table of what is and is not a figure
    ("Campaign 333 over the period: $1,234", G, "campaign 333: cost"),
    ("Campaign 333 over the period: 12.5% CTR", G, "campaign 333: CTR"),
    ("Campaign 333 over the period: 1.2k clicks", G, ""),
    ("Campaign 333 over the period: $48,213.77 wasted", F, "nothing in the values"),
    ("Campaign 111 over the period: CPA 108.00 is 2.4x the 45.00 target", G, ""),
    ("on 2025-03-09", N, ""),
    # currency symbols and codes, before and after
    ("Campaign 333 over the period: €1,234.38", G, "1,234.38"),
    ("Campaign 333 over the period: 1,234.38 EUR", G, "1,234.38"),
    ("Campaign 333 over the period: 1234.38€", G, "1,234.38"),
    ("Campaign 111 over the period: EUR 2,160.00", G, "campaign 111: cost"),
    ("Campaign 111 over the period: USD 2,160", G, "campaign 111: cost"),
    ("Campaign 111 over the period: 2,160 euros", G, "campaign 111: cost"),
    ("£3,450.00 lost", F, ""),
    # thousands separators and decimals at printed precision
    ("Campaign 333 over the period: cost 1,234.4", G, "1,234.38"),
    ("1,234.3", F, "±0.05"),
    ("$2,161", F, "±0.5"),
    ("6,094.38 spent to date", G, "account: cost, the period to the last complete day"),
    ("1,240.50", F, ""),
    ("Campaign 333 over the period: 1.234,38 € in continental notation", G, "campaign 333: cost"),
    ("Campaign 333 over the period: a CTR of 12,5 %", G, "campaign 333: CTR"),
    ("2.160.000 spent", F, ""),
    # negatives: the sign is wording, the magnitude is checked
    ("Campaign 333 over the period: CTR -12.5%", G, "CTR"),
    ("Campaign 333 over the period: −$1,234", G, "1,234.38"),
    ("-$48,213", F, ""),
    # percentages against ratios and values already in percent
    ("91% impression share", G, "search_impression_share"),
    ("12.4%", F, "±0.05"),
    ("65.5% of the expected spend", G, "spend to date over expected, budget schedule"),
    ("a CTR of 47%", F, ""),
    # scale suffixes and words
    ("Campaign 333 over the period: 1.19k clicks", G, "campaign 333: clicks"),
    ("1.18k clicks", F, "±5"),
    ("6.1k spent", G, "6,094.38"),
    ("the account spent $6.12 thousand over the period", G, "account: cost, the period"),
    ("2 million impressions", F, ""),
    ("$1.2bn", F, ""),
    ("0.5M", F, ""),
    # multipliers
    ("Campaign 111 over the period: CPA 108.00, 2.4x the target", G, "CPA over target"),
    ("Campaign 111 over the period: CPA 108.00, 2.4× the target", G, "CPA over target"),
    ("7.5x target", F, ""),
    # in-finding arithmetic: difference, ratio, percent change of two grounded figures
    ("campaign 333 cost $411.46 on 2025-03-16 and campaign 222 $300.00 on 2025-03-17, down 27.1%", G, "arithmetic in this finding: change from"),
    ("campaign 333 cost $411.46 on 2025-03-16 and campaign 222 $300.00 on 2025-03-17, a $111.46 gap", G, "arithmetic in this finding: $411.46 - $300.00"),
    ("$111.46 gap", F, ""),
    ("down 27.1%", F, ""),
    # hedges, and trailing zeros as rounding (three significant digits or more)
    ("Campaign 333 over the period: spent about $1,230", G, "campaign 333: cost"),
    # a hedge adds 2% but at most one unit of the last digit: 1,234.38 is 1.8% from 1,212, yet 22 units
    ("Campaign 333 over the period: spent about $1,212", F, "not grounded"),
    ("Campaign 333 over the period: some 1,180 clicks", G, "campaign 333: clicks"),
    ("Campaign 333 over the period: about $48,000 wasted", F, "about: 47,039.5 to 48,960.5"),
    ("17,400 expected on the straight line", G, "expected spend to date, straight line"),
    ("17,500 expected on the straight line", F, "±50"),
    ("6,100 spent", F, "±0.5"),
    ("Campaign 333 over the period: 1,190 clicks", G, "campaign 333: clicks"),  # 119 tens: a trailing zero after three significant digits
    ("1,180 clicks", F, "±5"),
    # a sum of two figures of the finding
    ("over the period campaigns 111 and 222 spent 2,160.00 and 2,700.00, 4,860.00 together", G, "4,860"),
    ("4,860.00 together", F, ""),
    # ranges, weeks and weekdays the finding names, for the campaigns it names (by a part of the name)
    ("PMax spent 900.00 from 2025-03-16 to 2025-03-18", G, "campaign 222: cost, 2025-03-16 to 2025-03-18"),
    ("PMax spent 900.00", F, ""),
    ("Generic 24/7 had a 12.19% CTR on 2025-03-17", G, "campaign 333: CTR, on 2025-03-17"),
    ("the account spent 2,340.00 in week 2", G, "account: cost, week 2"),
    ("the account spent 2,340.00", F, ""),
    ("cost averaged 457.15 a day on Mondays", G, "account: cost per day, on Mondays"),
    ("cost averaged 457.15 a day", F, ""),
    # zero and day counts
    ("0 conversions", G, "zero"),
    ("$0.00", G, "zero"),
    ("over the last 7 days", G, "the window the finding names in words"),
    ("for 90 days", F, ""),
    # derived index figures
    ("211.50 spent on zero-conversion search terms", G, "search terms, zero-conversion cost"),
    ("17,419.35 expected on the straight line", G, "expected spend to date, straight line"),
    ("10,496 projected by month end", G, "projected month-end spend, straight line"),
    # units: a figure grounds only on a value measuring what it measures (money, a count, a ratio)
    ("Campaign 333 over the period: $9,503 wasted", F, "campaign 333: impressions, the period = 9,503 is the same size but a count, not money"),
    ("Campaign 333 over the period: wasted 1,187.00 USD", F, "a count, not money"),
    ("Campaign 333 over the period: spent 1,187", F, "a count, not money"),
    ("Campaign 111 over the period: CPA 20.00", F, "a count, not money"),
    ("Campaign 333 over the period: 1,187 clicks", G, "campaign 333: clicks"),
    ("Campaign 333 over the period: 1,234 clicks", F, "money, not a count"),
    ("Campaign 111 over the period: CPA 108.00 for 20 conversions", G, "campaign 111: CPA"),
    ("Campaign 333 over the period: 9,503 impressions", G, "campaign 333: impressions"),
    ("the share of the 30,000.00 monthly budget", G, "monthly_budget"),  # what a share is of, not a share
    # platform constants, only where the text names the platform's rule
    ("Google allows up to 2x the daily budget", G, "platform constant: Google"),
    ("within Meta's 1.25x daily cap", G, "platform constant: Meta"),
    ("Meta's 1.75x allowance since 2025-05-29", G, "platform constant: Meta lets a day spend up to 1.75x"),
    ("Meta may spend 25% above the daily budget", G, "platform constant: Meta lets a day spend up to 25% above"),
    ("Google may spend up to 200% of the daily budget", G, "platform constant: Google"),
    ("1.25x the daily budget", F, ""),
    ("Meta allows up to 7.5x the daily budget", F, ""),
    # dates and times in several forms
    ("on 9 March 2025", N, ""),
    ("since 09/03/2025", N, ""),
    ("from March 9", N, ""),
    ("from Mar 9th", N, ""),
    ("March 9-18", N, ""),
    ("changed 2025-03-10T14:02", N, ""),
    ("at 14:02", N, ""),
    ("in 2024", N, ""),
    ("on 9.3.2025", N, ""),
    # ordinals
    ("the 3rd day", N, ""),
    ("on the 21st", N, ""),
    # digits inside names and ids from the snapshot, taxonomy ids, row pointers, words
    ("campaign PMax | DE 2025", N, ""),
    ("Generic 24/7 campaign", N, ""),
    ("campaign Search | Generic 24/7", N, ""),
    ("search term widget 3000 price", N, ""),
    ("account 123-456-7890", N, ""),
    ("campaigns 111 and 222", N, ""),
    ("ad 5551", N, ""),
    ("waste.zero_conv_campaign@333", N, ""),
    ("rows /daily/12 and /daily/13", N, ""),
    ("the GA4 tag", N, ""),
]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    path = tmp_path_factory.mktemp("case") / "snapshot.json"
    shutil.copyfile(FIXTURE, path)
    return Snapshot.load(path)


def test_table_has_every_category() -> None:
    assert len(FIGURE_CASES) >= 40
    assert {v for _, v, _ in FIGURE_CASES} == {G, F, N}


@pytest.mark.parametrize(("text", "verdict", "reason"), FIGURE_CASES, ids=[c[0] for c in FIGURE_CASES])
def test_figure_verdict(snapshot: Snapshot, text: str, verdict: str, reason: str) -> None:
    verdicts = verdicts_for_text(text, snapshot)
    if verdict == N:
        assert verdicts == [], [v.to_dict() for v in verdicts]
        return
    # Every figure of a multi-figure text must share the verdict; the reason fragment is on one of them.
    assert verdicts, f"no figure found in {text!r}"
    want = verdict == G
    assert all(v.grounded is want for v in verdicts), [(v.figure.text, v.reason) for v in verdicts]
    assert any(reason in v.reason for v in verdicts), [v.reason for v in verdicts]


def test_arithmetic_uses_only_figures_grounded_directly_in_the_same_finding(snapshot: Snapshot) -> None:
    # Strict mode: no derived index. 60.00 is 120.00 / 2 (both snapshot values cited in the finding);
    # 1.33x would need 60.00, which is itself only grounded by arithmetic: arithmetic does not chain.
    strict = GroundingIndex.for_snapshot(snapshot, "strict")
    verdicts = strict.check_texts(
        {"claim": "Campaign 111 spent 120.00 on 2025-03-05 for 2 conversions: 60.00 per conversion",
         "evidence": "1.33x the 45.00 target"})
    by_text = {v.figure.text: v for v in verdicts}
    assert by_text["60.00"].grounded and "120.00 / 2" in by_text["60.00"].reason
    assert not by_text["1.33x"].grounded
    # The evidence field counts as the same finding: 411.46 / 45.00 = 9.14.
    verdicts = strict.check_texts({"claim": "9.1x the target", "evidence": "campaign 333 spent 411.46 on 2025-03-16 against the 45.00 target"})
    assert verdicts[0].figure.text == "9.1x" and verdicts[0].grounded
    assert not strict.check_texts({"claim": "9.1x the target"})[0].grounded


def test_arithmetic_keeps_units(snapshot: Snapshot) -> None:
    # money / count is money: 2,160.00 over 20 conversions grounds a CPA of 108.00, not 108 clicks
    texts = {"claim": "Campaign 111 spent 2,160.00 on 20 conversions from 2025-03-01 to 2025-03-18",
             "evidence": "CPA 108.00; 108 clicks each"}
    verdicts = {v.figure.text: v for v in GroundingIndex.for_snapshot(snapshot).check_texts(texts)}
    assert verdicts["108.00"].grounded
    assert not verdicts["108"].grounded and "money, not a count" in verdicts["108"].reason
    # money - money is money, not a count
    strict = GroundingIndex.for_snapshot(snapshot, "strict")
    verdicts = strict.check_texts({"claim": "campaign 333 cost 411.46 on 2025-03-16, campaign 222 300.00 on 2025-03-17: "
                                            "111.46 less, 111.46 fewer clicks"})
    assert [v.grounded for v in verdicts if v.figure.text == "111.46"] == [True, False]


def test_a_plain_ratio_times_money_is_money() -> None:
    index = GroundingIndex({"totals": {"cost": 3100.0, "roas": 11.5}}, "strict")
    verdicts = index.check_texts({"claim": "cost 3,100.00 at ROAS 11.5 is 35,650.00 of revenue"})
    assert [v.grounded for v in verdicts] == [True, True, True]
    assert verdicts[2].reason == "arithmetic in this finding: 3,100.00 x 11.5 = 35,650"
    # a count times a ratio is a count, not money
    (wrong,) = [v for v in index.check_texts({"claim": "3,100 clicks at ROAS 11.5 is 35,650.00 of revenue"})
                if v.figure.text == "35,650.00"]
    assert not wrong.grounded


def test_a_figure_equal_to_a_row_field_names_that_field() -> None:
    # 1.27 is a row's float32-style CPC (1.269999981) and also, near enough, another campaign's
    # derived cost per click: the row's own field is what grounds it.
    data = {"platform": "google_ads", "period": {"start": "2025-03-01", "end": "2025-03-31"},
            "campaigns": [{"id": "1", "name": "A"}, {"id": "2", "name": "B"}],
            "daily": [{"date": "2025-03-01", "campaign_id": "1", "clicks": 100, "cost": 127.004, "average_cpc": 1.269999981},
                      {"date": "2025-03-01", "campaign_id": "2", "clicks": 10, "cost": 12.7}]}
    index = GroundingIndex(data)
    (verdict,) = index.check_texts({"claim": "campaign 1 had a CPC of 1.27 on 2025-03-01"})
    assert verdict.reason == "snapshot /daily/0/average_cpc = 1.269999981"
    assert index.rows(verdict).pointers() == ["/daily/0/average_cpc"]


def test_reasons_print_values_with_separators_at_full_precision() -> None:
    data = {"account": {"id": "1"}, "totals": {"cost": 3250540.79, "impressions": 204823716}}
    index = GroundingIndex(data, "strict")
    reasons = [v.reason for v in index.check_texts({"claim": "cost 3,250,540.79 on 204,823,716 impressions"})]
    assert reasons == ["snapshot /totals/cost = 3,250,540.79", "snapshot /totals/impressions = 204,823,716"]


def test_strict_mode_grounds_on_snapshot_values_alone(snapshot: Snapshot) -> None:
    text = ("Campaign 333 over the period: 211.50 spent on zero-conversion search terms, CTR 12.5%; "
            "campaign 111 spent 120.00 on 2025-03-05")
    derived = {v.figure.text: v.grounded for v in verdicts_for_text(text, snapshot)}
    strict = {v.figure.text: v.grounded for v in verdicts_for_text(text, snapshot, mode="strict")}
    assert derived == {"211.50": True, "12.5%": True, "120.00": True}
    assert strict == {"211.50": False, "12.5%": False, "120.00": True}


def test_figure_keeps_span_value_unit_and_precision() -> None:
    text = "Spend of EUR 1,234.50 (-12.5%) at 2.4x, 1.2k clicks"
    figures = find_figures(text)
    assert [(text[f.start:f.end], f.value, f.unit, f.decimals) for f in figures] == [
        ("EUR 1,234.50", 1234.5, "money", 2),
        ("-12.5%", -12.5, "percent", 1),
        ("2.4x", 2.4, "multiplier", 1),
        ("1.2k", 1200.0, "plain", 1),
    ]
    assert figures[0].currency == "EUR"
    assert figures[3].half_unit == pytest.approx(50.0)


MEASURE_CASES = [
    ("About $48,213.77 of it is wasted.", ["money"]),
    ("wasted 113.00 USD", ["money"]),
    ("CPA 24.00", ["money"]),
    ("CPA of 24.00", ["money"]),
    ("spend to date 48,213.77", ["money"]),
    ("cost per click 1.27", ["money"]),
    ("482,925 spent", ["money"]),
    ("Roughly 48,000 was wasted", ["money"]),
    ("conversion value 2,345.10", ["money"]),
    ("1,187 clicks", ["count"]),
    ("482,925 impressions", ["count"]),
    ("clicks held near 410 a day", ["count"]),
    ("clicks per day 410", ["count"]),
    ("over 7 days", ["count"]),
    ("ROAS 2.35", ["ratio"]),
    ("impression share 0.35", ["ratio"]),
    ("12.5%", ["percent"]),
    ("2.4x", ["multiplier"]),
    ("0.91", ["unknown"]),
    ("60.00 per conversion", ["unknown"]),
    ("cost over daily budget 1.6", ["unknown"]),
    ("CPA over target 2.4", ["unknown"]),
    ("a share of 0.35", ["unknown"]),
    ("the share of the 21,700.00 monthly budget", ["money"]),
    # the word belongs to the figure before it
    ("2 conversions: 60.00 each", ["count", "unknown"]),
    ("at a 5.16% conversion rate about 53 were expected", ["percent", "unknown"]),
    # a figure after "X to", "X and", "X against (a)" measures what X does
    ("cost fell from 411.46 to 300.00", ["money", "money"]),
    ("CPA 108.00 against a 45.00 target", ["money", "money"]),
    ("clicks averaged 200 and 210 a day", ["count", "count"]),
]


@pytest.mark.parametrize(("text", "measures"), MEASURE_CASES, ids=[t for t, _ in MEASURE_CASES])
def test_what_a_figure_measures_is_read_from_its_text(text: str, measures: list[str]) -> None:
    assert [f.measure for f in find_figures(text)] == measures


def test_skipped_spans_say_why() -> None:
    names = Identifiers(["Search | DE 2025", "b1"])
    figures, skipped = scan("Search | DE 2025 on 2025-03-09 (3rd week), budget b1 at 400", names)
    assert [f.text for f in figures] == ["400"]
    assert [(s.text, s.why) for s in skipped] == [
        ("Search | DE 2025", "identifier: Search | DE 2025"),
        ("2025-03-09", "date"),
        ("3rd", "ordinal"),
        ("b1", "identifier: b1"),
    ]


def test_identifier_must_stand_alone() -> None:
    # "b1" names a budget; "b12" is another word and its digits are not that name.
    assert [s.text for s in Identifiers(["b1"]).spans("b12 and b1")] == ["b1"]


def test_index_is_built_once_per_snapshot_object(snapshot: Snapshot) -> None:
    first = GroundingIndex.for_snapshot(snapshot)
    assert GroundingIndex.for_snapshot(snapshot) is first
    assert GroundingIndex.for_snapshot(snapshot, "strict") is not first
    other = Snapshot.load(snapshot.path)
    assert GroundingIndex.for_snapshot(other) is not first
