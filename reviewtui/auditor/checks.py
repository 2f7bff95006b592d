"""The auditor's contribution to ``reviewtui check`` (``CHECKS``, collected by ``check.all_checks``).

Warnings, never errors: the reference auditor is a second opinion, and a
senior may know better than its thresholds. See ``support.support_problems``.
"""

from __future__ import annotations

from .support import support_problems

CHECKS = [support_problems]
