"""The weekly view (the app's "weekly" mode, f4) and the screens it opens: the stamp check for a new
run (gate.py), an account's report (account_report.py) and the rows behind one of its figures
(account_rows.py)."""

from .view import WeeklyScreen

__all__ = ["WeeklyScreen"]
