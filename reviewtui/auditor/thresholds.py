"""The thresholds now live in ``reviewtui.domain.thresholds`` (below both the scoring and the
auditor); these names stay importable from here until every caller imports them from there."""

from __future__ import annotations

from ..domain.thresholds import DAILY_CAP, OVERRIDE_ENV, KindThresholds, ThresholdError, Thresholds, cap_multiple

__all__ = ["DAILY_CAP", "OVERRIDE_ENV", "KindThresholds", "ThresholdError", "Thresholds", "cap_multiple"]
