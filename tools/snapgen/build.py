"""Generate one case from its spec: snapshot, drafted entries, unlisted conditions."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from . import sanity
from .catalogue import CASES, CaseSpec
from .entries import Entry, merge
from .output import expected_doc, snapshot_text, yaml_text
from .plan import AccountPlan, build_plan
from .profiles import PROFILES
from .simulate import build_snapshot


@dataclass
class Generated:
    spec: CaseSpec
    plan: AccountPlan
    snapshot: dict[str, Any]
    entries: list[Entry]
    unlisted: dict[str, str]     # conditions in the rows that no list mentions (must be empty to ship)

    @property
    def snapshot_text(self) -> str:
        return snapshot_text(self.snapshot)

    def expected_text(self) -> str:
        names = "; ".join(s.describe(self.plan) for s in self.spec.scenarios) or "none"
        header = (f"Drafted by tools/snapgen (seed {self.spec.seed}) from the planted scenarios: {names}.\n"
                  "From here on this file is the seniors' own: edit it by hand; the generator never writes over it.")
        source = f"writeups/{self.spec.wu}.md" if self.spec.wu else None
        return yaml_text(expected_doc(self.spec.case_id, self.spec.kind, source, self.entries, header))


def spec_for(case_id: str) -> CaseSpec:
    for spec in CASES:
        if spec.case_id == case_id:
            return spec
    raise SystemExit(f"unknown case {case_id!r}; `python -m tools.snapgen list` shows the catalogue")


def generate(spec: CaseSpec) -> Generated:
    rng = random.Random(spec.seed)
    year, month = spec.month
    plan = build_plan(spec.case_id, PROFILES[spec.profile], platform=spec.platform, year=year, month=month,
                      as_of_day=spec.as_of, roles=spec.roles, rng=rng, size=spec.size)
    plan.totals = spec.totals
    if spec.conversion_noise:
        plan.conversion_noise = spec.conversion_noise
    snap = build_snapshot(plan, spec.scenarios, rng)
    entries = merge([e for s in spec.scenarios for e in s.expect(plan, snap)])
    ids = {e.id for e in entries}
    unlisted = {k: v for k, v in sanity.uncovered(sanity.conditions(snap), ids).items() if k not in spec.waive}
    return Generated(spec, plan, snap, entries, unlisted)
