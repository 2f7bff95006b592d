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

    @property
    def writeup_snapshot(self) -> str | None:
        return f"writeups/{self.wu}.snapshot.json" if self.wu else None


def _wu(n: int, slug: str) -> str:
    return f"wu{n:02d}-{slug}"


CASES: list[CaseSpec] = [
    # ---- the twelve write-up cases
    CaseSpec("c01-outdoor-retail", "ordinary", "outdoor-retail", 101, (2025, 3), 19, GOOGLE6,
             [ConversionsStopped(day=11), ZeroConvTerms("nb1"), DisapprovedAds("nb2")], wu=_wu(1, "outdoor-retail")),
    CaseSpec("c02-dental-clinic", "ordinary", "dental-clinic", 102, (2025, 5), 21, LEADS5,
             [Pacing(0.8), LostIsBudget("nb1"), OffTarget("display", 2.3)], wu=_wu(2, "dental-clinic")),
    CaseSpec("c03-b2b-saas", "trap", "b2b-saas", 103, (2025, 4), 17, ["brand", "nb1", "nb2", "nb3", "video"],
             [ConversionLag(3.2), Flight("video", 21, 30), LearningLimited("nb3", budget=60.0)], wu=_wu(3, "b2b-saas")),
    CaseSpec("c04-furniture-store", "ordinary", "furniture-store", 104, (2025, 10), 23, ["brand", "nb1", "shopping", "pmax", "display"],
             [Pacing(1.22), SpendConcentration("pmax", 0.66), MissingValue("shopping", 14)], wu=_wu(4, "furniture-store")),
    CaseSpec("c05-language-school", "ordinary", "language-school", 105, (2025, 9), 18, LEADS5,
             [ZeroConvCampaign("display"), RateShift(day=8, factor=0.4), DailyCap("nb2", 12, 1.9)], wu=_wu(5, "language-school")),
    CaseSpec("c06-fashion-label", "ordinary", "fashion-label", 106, (2025, 11), 20, META5,
             [DailyCap("advantage", 14, 1.6), CpaDrift("prospecting"), ConversionConcentration("advantage", 0.62)],
             platform="meta_ads", wu=_wu(6, "fashion-label")),
    CaseSpec("c07-law-firm", "broken_data", "law-firm", 107, (2025, 6), 24, LEADS5,
             [DuplicateRows([12, 13, 14]), ZeroConvTerms("nb2")], wu=_wu(7, "law-firm")),
    CaseSpec("c08-travel-agency", "ordinary", "travel-agency", 108, (2025, 2), 20, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [Misallocated("nb1", "nb3"), LearningPeriod("pmax", 5), ServingStopped("nb2", 12)], wu=_wu(8, "travel-agency")),
    CaseSpec("c09-pet-supplies", "ordinary", "pet-supplies", 109, (2025, 7), 22, ["brand", "nb1", "nb2", "shopping", "pmax", "remarketing"],
             [RateShift(day=10, factor=2.0), DisapprovedAds("nb1"), ShareFloor("nb2")], wu=_wu(9, "pet-supplies")),
    CaseSpec("c10-home-services", "ordinary", "home-services", 110, (2025, 1), 26, ["brand", "nb1", "nb2", "nb3", "display", "video"],
             [OffTarget("nb3", 2.0), ZeroConvTerms("nb1"), Pacing(1.2)], wu=_wu(10, "home-services")),
    CaseSpec("c11-hotel-group", "broken_data", "hotel-group", 111, (2025, 8), 15, ["brand", "nb1", "nb2", "nb3", "pmax"],
             [MicrosNotConverted("pmax", 9), LostIsBudget("nb1")], wu=_wu(11, "hotel-group")),
    CaseSpec("c12-fitness-app", "ordinary", "fitness-app", 112, (2025, 3), 25, META4,
             [MissingValue("advantage", 12), LearningLimited("lookalike", budget=45.0), Pacing(0.8)],
             platform="meta_ads", wu=_wu(12, "fitness-app")),
]
