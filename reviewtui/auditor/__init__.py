"""The reference auditor: deterministic detectors for every taxonomy kind.

``audit(snapshot_data)`` returns the findings in the assistant's output
format (the offline ``rules`` backend); ``check_support(snapshot, id)`` says
whether the rows support a finding id, and which rows (``support.py``).
One module per detector family; thresholds live in ``reviewtui/taxonomy.yaml``.
"""

from .audit import AUDITOR_VERSION, AuditResult, audit
from .support import Support, check_support
from ..domain.thresholds import Thresholds, ThresholdError

__all__ = ["AUDITOR_VERSION", "AuditResult", "audit", "Support", "check_support", "Thresholds", "ThresholdError"]
