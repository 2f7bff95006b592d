"""The audit's domain: the thresholds and the terms they are written in.

Below both the scoring and the reference auditor (an import-linter contract holds it): the
thresholds (``thresholds.py``), budgets over time and the platform's daily cap (``budgets.py``),
the conversion-lag model (``lag.py``), the chance tests (``chance.py``), pacing against the budget
schedule (``pacing.py``), the currency scale of a CPC (``currency.py``), what a day without a row
means and the weekly rhythm a campaign serves on (``delivery.py``) and the remaining terms (``terms.py``). Each term the prompt's glossary
defines (``reviewtui/glossary.yaml``) names the function here, or in the auditor for the terms
only the auditor uses, that computes it.
"""
