"""The fifty cases: one spec per case (profile, seed, month, campaigns, planted scenarios).

c01-c12 are the write-up cases (wu01-wu12). Changing a spec changes its
snapshot; once a case is committed its snapshot is regenerated only to
reproduce it, never to change it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .breakages import (AttributionChange, CurrencyMismatch, DuplicateRows, Healthy, InvalidValues, MicrosNotConverted,
                        MissingDays, PartialLastDay, TimezoneShift, TotalsMismatch)
from .scenarios import (BudgetChange, ConversionConcentration, ConversionLag, ConversionsStopped, CpaDrift, DailyCap,
                        DisapprovedAds, Flight, LearningLimited, LearningPeriod, LostIsBudget, ManyPerClick, Misallocated,
                        MissingValue, OffTarget, Pacing, PrimaryDemoted, RateShift, Scenario, ServingStopped, ShareFloor,
                        SmallSample, SpendConcentration, WeekdaySchedule, ZeroConvCampaign, ZeroConvTerms)

GOOGLE6 = ["brand", "nb1", "nb2", "shopping", "pmax", "display"]
LEADS5 = ["brand", "nb1", "nb2", "nb3", "display"]
META5 = ["prospecting", "lookalike", "retargeting", "advantage", "catalog"]
META4 = ["prospecting", "lookalike", "retargeting", "advantage"]


@dataclass
class CaseSpec:
    case_id: str
    kind: str                   # ordinary | broken_data | clean | trap
    profile: str
    seed: int
    month: tuple[int, int]
    as_of: int
    roles: list[str]
    scenarios: list[Scenario]
    platform: str = "google_ads"
    wu: str | None = None       # write-up id for c01-c12
    totals: bool = False
    size: float = 1.0
    waive: dict[str, str] = field(default_factory=dict)  # condition id -> why it is not material
    # The write-up snapshots were generated with a wider conversion spread; pinned so they regenerate byte for byte.
    conversion_noise: tuple[float, float] | None = None

    @property
    def writeup_snapshot(self) -> str | None:
        return f"writeups/{self.wu}.snapshot.json" if self.wu else None


def _wu(n: int, slug: str) -> str:
    return f"wu{n:02d}-{slug}"


def _writeup_case(case_id: str, kind: str, profile: str, seed: int, month: tuple[int, int], as_of: int, roles: list[str],
                  scenarios: list[Scenario], **kw) -> CaseSpec:
    return CaseSpec(case_id, kind, profile, seed, month, as_of, roles, scenarios, conversion_noise=(0.7, 3.0), **kw)


CASES: list[CaseSpec] = [
    # ---- the twelve write-up cases
    _writeup_case("c01-outdoor-retail", "ordinary", "outdoor-retail", 101, (2025, 3), 19, GOOGLE6,
             [ConversionsStopped(day=11), ZeroConvTerms("nb1"), DisapprovedAds("nb2")], wu=_wu(1, "outdoor-retail")),
    _writeup_case("c02-dental-clinic", "ordinary", "dental-clinic", 102, (2025, 5), 21, LEADS5,
             [Pacing(0.8), LostIsBudget("nb1"), OffTarget("display", 2.3)], wu=_wu(2, "dental-clinic")),
    _writeup_case("c03-b2b-saas", "trap", "b2b-saas", 103, (2025, 4), 17, ["brand", "nb1", "nb2", "nb3", "video"],
             [ConversionLag(3.2), Flight("video", 21, 30), LearningLimited("nb3", budget=60.0)], wu=_wu(3, "b2b-saas")),
    _writeup_case("c04-furniture-store", "ordinary", "furniture-store", 104, (2025, 10), 23, ["brand", "nb1", "shopping", "pmax", "display"],
             [Pacing(1.22), SpendConcentration("pmax", 0.66), MissingValue("shopping", 14)], wu=_wu(4, "furniture-store")),
    _writeup_case("c05-language-school", "ordinary", "language-school", 105, (2025, 9), 18, LEADS5,
             [ZeroConvCampaign("display"), RateShift(day=8, factor=0.4), DailyCap("nb2", 12, 1.9)], wu=_wu(5, "language-school")),
    _writeup_case("c06-fashion-label", "ordinary", "fashion-label", 106, (2025, 11), 20, META5,
             [DailyCap("advantage", 14, 1.6), CpaDrift("prospecting"), ConversionConcentration("advantage", 0.62)],
             platform="meta_ads", wu=_wu(6, "fashion-label")),
    _writeup_case("c07-law-firm", "broken_data", "law-firm", 107, (2025, 6), 24, LEADS5,
             [DuplicateRows([12, 13, 14]), ZeroConvTerms("nb2")], wu=_wu(7, "law-firm")),
    _writeup_case("c08-travel-agency", "ordinary", "travel-agency", 108, (2025, 2), 20, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [Misallocated("nb1", "nb3"), LearningPeriod("pmax", 5), ServingStopped("nb2", 12, rebid=False)], wu=_wu(8, "travel-agency")),
    _writeup_case("c09-pet-supplies", "ordinary", "pet-supplies", 109, (2025, 7), 22, ["brand", "nb1", "nb2", "shopping", "pmax", "remarketing"],
             [RateShift(day=10, factor=2.0), DisapprovedAds("nb1"), ShareFloor("nb2")], wu=_wu(9, "pet-supplies")),
    _writeup_case("c10-home-services", "ordinary", "home-services", 110, (2025, 1), 26, ["brand", "nb1", "nb2", "nb3", "display", "video"],
             [OffTarget("nb3", 2.0), ZeroConvTerms("nb1"), Pacing(1.2)], wu=_wu(10, "home-services")),
    _writeup_case("c11-hotel-group", "broken_data", "hotel-group", 111, (2025, 8), 15, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [MicrosNotConverted("pmax", 9), LostIsBudget("nb1")], wu=_wu(11, "hotel-group")),
    _writeup_case("c12-fitness-app", "ordinary", "fitness-app", 112, (2025, 3), 25, META4,
             [MissingValue("advantage", 12), LearningLimited("lookalike", budget=45.0), Pacing(0.8)],
             platform="meta_ads", wu=_wu(12, "fitness-app")),
]

CASES += [
    # ---- ordinary: 2-3 real problems each; the common kinds recur across cases
    CaseSpec("c13-coffee-roaster", "ordinary", "coffee-roaster", 113, (2025, 6), 18, ["brand", "nb1", "nb2", "shopping", "pmax"],
             [Pacing(1.2), ZeroConvTerms("nb1"), DailyCap("shopping", 9, 1.9)]),
    CaseSpec("c14-university", "ordinary", "university", 114, (2025, 1), 22, ["brand", "nb1", "nb2", "nb3", "display", "video"],
             [ConversionsStopped(day=9, roles=["nb2"]), Pacing(0.8), LearningLimited("nb3", budget=35.0)]),
    CaseSpec("c15-insurance-broker", "ordinary", "insurance-broker", 115, (2025, 4), 24, ["brand", "nb1", "nb2", "nb3", "video"],
             [SpendConcentration("nb1", 0.66), ZeroConvCampaign("video")]),
    CaseSpec("c16-solar-installer", "ordinary", "solar-installer", 116, (2025, 9), 21, LEADS5,
             [RateShift(day=10, factor=0.38), LostIsBudget("nb1")]),
    CaseSpec("c17-car-rental", "ordinary", "car-rental", 117, (2025, 7), 17, ["brand", "nb1", "nb2", "nb3", "pmax", "display"],
             [ConversionConcentration("pmax", 0.62), ZeroConvTerms("nb2"), DisapprovedAds("nb1")]),
    CaseSpec("c18-skincare-brand", "ordinary", "skincare-brand", 118, (2025, 5), 20, META5,
             [Pacing(1.25), MissingValue("advantage", 11)], platform="meta_ads"),
    CaseSpec("c19-dental-group", "ordinary", "dental-clinic", 119, (2025, 10), 20, LEADS5,
             [ConversionsStopped(day=12), ZeroConvTerms("nb3")]),
    CaseSpec("c20-pet-pantry", "ordinary", "pet-supplies", 120, (2025, 11), 19, ["brand", "nb1", "nb2", "nb3", "shopping", "pmax", "remarketing"],
             [SpendConcentration("pmax", 0.7), CpaDrift("nb1", rise=2.8)]),
    CaseSpec("c21-legal-partners", "ordinary", "law-firm", 121, (2025, 3), 21, LEADS5,
             [Misallocated("nb1", "nb2"), ZeroConvTerms("nb3")]),
    CaseSpec("c22-sun-holidays", "ordinary", "travel-agency", 122, (2025, 6), 23, ["brand", "nb1", "nb2", "nb3", "pmax", "video"],
             [RateShift(day=12, factor=2.0), DisapprovedAds("nb3")]),
    CaseSpec("c23-knitwear-label", "ordinary", "fashion-label", 123, (2025, 2), 19, META4,
             [Pacing(0.78), OffTarget("lookalike", 2.2)], platform="meta_ads"),
    CaseSpec("c24-coastal-hotels", "ordinary", "hotel-group", 124, (2025, 5), 24, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [ServingStopped("nb3", 10), ZeroConvTerms("nb1"), ShareFloor("nb2")]),
    CaseSpec("c25-yoga-app", "ordinary", "fitness-app", 125, (2025, 10), 21, META5,
             [CpaDrift("advantage"), DailyCap("prospecting", 9, 1.7)], platform="meta_ads"),
    CaseSpec("c26-expense-saas", "ordinary", "b2b-saas", 126, (2025, 9), 24, ["brand", "nb1", "nb2", "nb3", "display"],
             [OffTarget("nb3", 2.4), ZeroConvTerms("nb1"), LearningPeriod("nb2", 6)]),
    CaseSpec("c27-heating-pros", "ordinary", "home-services", 127, (2025, 11), 20, LEADS5,
             [LostIsBudget("nb2"), ConversionConcentration("nb1", 0.66), WeekdaySchedule("nb3")]),
    CaseSpec("c28-sofa-outlet", "ordinary", "furniture-store", 128, (2025, 4), 19, ["brand", "nb1", "nb2", "shopping", "pmax", "display"],
             [ConversionsStopped(day=9, roles=["shopping"]), Pacing(1.2)]),
    CaseSpec("c29-language-hub", "ordinary", "language-school", 129, (2025, 2), 22, LEADS5,
             [PrimaryDemoted(day=9), ZeroConvTerms("nb2")], size=1.6),
    CaseSpec("c30-coffee-club", "ordinary", "coffee-roaster", 130, (2025, 8), 23, ["brand", "nb1", "nb2", "shopping", "pmax", "display"],
             [LearningLimited("nb2", budget=30.0), ServingStopped("display", 9), MissingValue("pmax", 13)]),
    CaseSpec("c31-car-cover", "ordinary", "insurance-broker", 131, (2025, 12), 19, LEADS5,
             [Pacing(0.76), CpaDrift("nb1", rise=2.8), DisapprovedAds("nb2")]),
    CaseSpec("c32-van-hire", "ordinary", "car-rental", 132, (2025, 3), 21, ["brand", "nb1", "nb2", "pmax", "video"],
             [DailyCap("pmax", 10, 2.5), SpendConcentration("pmax", 0.68), ZeroConvCampaign("video")]),
    CaseSpec("c33-business-school", "ordinary", "university", 133, (2025, 6), 20, LEADS5,
             [RateShift(day=9, factor=0.42), LostIsBudget("brand", lost=0.22, efficiency=0.3)]),
    # ---- broken data: the breakage, plus what it would corrupt in must_not_say
    CaseSpec("c34-skincare-duplicates", "broken_data", "skincare-brand", 134, (2025, 8), 22, META5,
             [DuplicateRows([8, 9]), OffTarget("lookalike", 2.1)], platform="meta_ads"),
    CaseSpec("c35-solar-gaps", "broken_data", "solar-installer", 135, (2025, 4), 23, LEADS5,
             [MissingDays([9, 10]), ZeroConvTerms("nb2")]),
    CaseSpec("c36-outdoor-nordic", "broken_data", "outdoor-retail", 136, (2025, 5), 20, ["brand", "nb1", "nb2", "nb3", "shopping", "pmax"],
             [CurrencyMismatch("nb3"), LostIsBudget("nb1")]),
    CaseSpec("c37-saas-utc", "broken_data", "b2b-saas", 137, (2025, 10), 22, LEADS5,
             [TimezoneShift(), OffTarget("nb3", 2.2)]),
    CaseSpec("c38-pet-partial", "broken_data", "pet-supplies", 138, (2025, 9), 17, ["brand", "nb1", "nb2", "shopping", "pmax"],
             [PartialLastDay(), DisapprovedAds("nb2")]),
    CaseSpec("c39-law-invalid", "broken_data", "law-firm", 139, (2025, 11), 24, LEADS5,
             [InvalidValues(["nb1", "nb2"]), ConversionConcentration("nb1", 0.66)]),
    CaseSpec("c40-hotel-attribution", "broken_data", "hotel-group", 140, (2025, 3), 24, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [AttributionChange(day=11), ZeroConvTerms("nb2")]),
    CaseSpec("c41-travel-totals", "broken_data", "travel-agency", 141, (2025, 9), 19, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [TotalsMismatch("pmax"), LostIsBudget("nb1")]),
    # ---- clean: healthy accounts, with platform behaviour that tempts a finding
    CaseSpec("c42-roastery-clean", "clean", "coffee-roaster", 142, (2025, 10), 21, ["brand", "nb1", "nb2", "shopping", "pmax"],
             [Healthy(), DailyCap("nb1", 7, 1.9), ShareFloor("nb2")]),
    CaseSpec("c43-dental-clean", "clean", "dental-clinic", 143, (2025, 8), 22, LEADS5,
             [Healthy(), WeekdaySchedule("nb3"), ConversionLag(2.4)]),
    CaseSpec("c44-fashion-clean", "clean", "fashion-label", 144, (2025, 4), 18, META5,
             [Healthy(), DailyCap("advantage", 11, 1.22)], platform="meta_ads"),
    CaseSpec("c45-rental-clean", "clean", "car-rental", 145, (2025, 11), 24, ["brand", "nb1", "nb2", "pmax", "remarketing", "video"],
             [Healthy(), ManyPerClick("remarketing"), Flight("video", 3, 12, share=0.12)]),
    CaseSpec("c46-insurance-clean", "clean", "insurance-broker", 146, (2025, 7), 20, LEADS5,
             [Healthy(), BudgetChange(["nb1", "nb2", "nb3"], 11, 1.9)]),
    # ---- traps: the tempting finding is the wrong one
    CaseSpec("c47-furniture-trap", "trap", "furniture-store", 147, (2025, 1), 19, ["brand", "nb1", "nb2", "shopping", "pmax", "display"],
             [BudgetChange(["nb1", "shopping", "pmax"], 12, 2.0), SmallSample("display"), ZeroConvTerms("nb1")]),
    CaseSpec("c48-language-trap", "trap", "language-school", 148, (2025, 11), 24, LEADS5,
             [PrimaryDemoted(day=10, trap=True), DailyCap("nb1", 15, 1.9)]),
    CaseSpec("c49-university-trap", "trap", "university", 149, (2025, 9), 23, ["brand", "nb1", "nb2", "nb3", "display"],
             [ConversionConcentration("brand", 0.6), LearningPeriod("nb1", 4, trap=True)]),
    CaseSpec("c50-services-trap", "trap", "home-services", 150, (2025, 5), 22, ["brand", "nb1", "nb2", "nb3", "display"],
             [Healthy(), SmallSample("display"), ShareFloor("nb2"), DailyCap("nb1", 13, 1.9)]),
]
