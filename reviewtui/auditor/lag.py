"""The lag model now lives in ``reviewtui.domain.lag`` (below both the scoring and the auditor);
these names stay importable from here until every caller imports them from there."""

from __future__ import annotations

from ..domain.chance import poisson_zero
from ..domain.lag import LagModel

__all__ = ["LagModel", "poisson_zero"]
