"""The derived-index figures the auditor quotes, computed when quoted.

The auditor prints figures from the scoring's derived index (``scoring/derived_index.py``) so each is
grounded by construction. The whole index holds every window of every campaign and every corrected
reading of the rows: on a 100,000-row account, 3,334 campaigns times five windows, half a million
names, of which an audit quotes a few hundred. ``QuotedFigures`` answers a name from the same
functions the index is built with, computing only what is asked:

- a scope's figures over one of the index's windows (``campaign 333: CPA, last 7 complete days``):
  ``window_numbers`` on that scope's sums over that window, once per (scope, window);
- the account's sums on one day (``account: cost on 2025-03-11``);
- the account's pacing figures of the rows as they are (``pacing: spend to date``), or of a corrected
  reading (``pacing: spend to date (duplicate rows counted once)``): ``pacing_figures`` of that reading
  without each campaign's and each daily budget's, once.

What is computed is kept on the snapshot (``snapshot_cache``), as the whole index is, so a later audit
of the same loaded snapshot reads it again.

Any other name (a corrected reading's windows, the counts, search terms, ads) is read from the whole index,
built on first need. Each figure equals the index's to the last bit (the same sums in the same order;
``tests/unit/test_quoted_figures.py`` compares every name on the case set), and a name the index does
not hold is not here either. Figures past any real account (a corrupt 1e308 cannot be printed at its
precision) are left out, as ``MAX_METRIC`` bounds the series.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable, Iterator, Mapping

from ..caseset.snapshot import as_object
from ..caseset.snapshot_cache import cache_of, snapshot_data
from ..caseset.snapshot_reader import number, parse_day
from ..scoring.daily_totals import (CONVERSIONS, DUPLICATES_ONCE, METRICS, MICROS_CONVERTED, WIDTH, DailyTotals,
                                    calendar_days, corrected_readings, daily_totals)
from ..scoring.derived_index import derived_index, window_numbers
from ..scoring.named_values import NamedValues
from ..scoring.pacing_figures import pacing_figures
from .series import MAX_METRIC

ZERO_DAYS = "zero-conversion days"
CORRECTED = (DUPLICATES_ONCE, MICROS_CONVERTED)  # the corrected readings whose pacing figures are computed here


def _window_metrics() -> frozenset[str]:
    """Every metric name ``window_numbers`` can give (all of them come out when every figure can be
    computed), and the zero-conversion days the index puts beside them."""
    ones = [1.0] * WIDTH
    return frozenset([metric for metric, _ in window_numbers(ones, 1, 2, 1.0, 1.0, ones)] + [ZERO_DAYS])


WINDOW_METRICS = _window_metrics()


class QuotedFigures(Mapping[str, float]):
    """The derived index of one snapshot as the auditor reads it (see the module's docstring).

    ``failed(exc)`` is told when the whole index cannot be built; the figures are then missing.
    """

    def __init__(self, data: Any, failed: Callable[[Exception], None]) -> None:
        self._data = snapshot_data(data) if isinstance(data, dict) else {}
        self._failed = failed
        self._totals: DailyTotals | None = None
        self._windows: dict[str, tuple[date, date]] | None = None
        self._scopes: dict[tuple[str, str], dict[str, float]] = {}
        self._accounts: dict[str, list[float]] = {}
        self._pacing: dict[str, dict[str, float]] = {}  # by corrected reading ("": the rows as they are)
        self._whole: Mapping[str, float] | None = None

    # -- Mapping -----------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> float:
        value = self._figure(name)
        if value is not None and abs(value) < MAX_METRIC:
            return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (name for name, value in self._index().items() if abs(value) < MAX_METRIC)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    # -- reading -----------------------------------------------------------------------------------

    def _figure(self, name: str) -> float | None:
        if self._whole is None and isinstance(self._data, dict) and self._data:
            try:
                known, value = self._computed(name)
            except Exception:  # the whole index decides (and reports) what this snapshot can give
                known, value = False, None
            if known:
                return value
        return self._index().get(name)

    def _index(self) -> Mapping[str, float]:
        if self._whole is None:
            try:
                self._whole = derived_index(self._data)
            except Exception as exc:  # the auditor still decides; it only quotes fewer figures
                self._failed(exc)
                self._whole = {}
        return self._whole

    def _computed(self, name: str) -> tuple[bool, float | None]:
        """(True, the figure or None when the index has no such name) for a name of the families
        computed here; (False, None) for any other."""
        if name.startswith("pacing: "):
            label = next((label for label in CORRECTED if name.endswith(f" ({label})")), "")
            return True, self._pacing_figures(label).get(name)
        if name.endswith(")"):  # another corrected reading's figure, or an id that ends like one
            return False, None
        if name.startswith("account: ") and " on " in name:
            metric, _, day = name[len("account: "):].rpartition(" on ")
            parsed = parse_day(day)
            if metric in METRICS and parsed is not None and parsed.isoformat() == day:
                sums = self._daily().account.get(parsed)
                return True, _finite(sums[METRICS.index(metric)]) if sums is not None else None
        for window in self._window_dates():
            tail = ", " + window
            if not name.endswith(tail):
                continue
            scope_name, _, metric = name[: -len(tail)].rpartition(": ")
            if metric not in WINDOW_METRICS:
                return False, None
            scope = self._scope(scope_name)
            if scope is None:
                return False, None
            if metric == ZERO_DAYS:
                return True, self._zero_days(scope, window)
            return True, self._scope_figures(scope, window).get(metric)
        return False, None

    def _daily(self) -> DailyTotals:
        if self._totals is None:
            self._totals = daily_totals(self._data)
        return self._totals

    def _window_dates(self) -> dict[str, tuple[date, date]]:
        if self._windows is None:
            self._windows = self._daily().windows()
        return self._windows

    def _scope(self, scope_name: str) -> str | None:
        """``account``, or the id of a campaign with rows; None for a name read from the whole index
        (an id that would read ambiguously inside a name)."""
        if scope_name == "account":
            return "account"
        cid = scope_name.removeprefix("campaign ")
        if cid != scope_name and cid in self._daily().by_campaign and not any(p in cid for p in (": ", ", ", "{", "}")):
            return cid
        return None

    def _scope_figures(self, scope: str, window: str) -> dict[str, float]:
        """One scope's figures over one window, as the index's ``_reading_figures`` puts them."""
        key = (scope, window)
        figures = self._scopes.get(key)
        if figures is None:
            # kept on the snapshot, as the index is: a later audit of it (other thresholds) reads them again
            figures = self._scopes[key] = cache_of(self._data).get(("quoted window figures", scope, window),
                                                                   lambda: self._compute_scope(scope, window))
        return figures

    def _compute_scope(self, scope: str, window: str) -> dict[str, float]:
        totals = self._daily()
        first, last = self._window_dates()[window]
        targets = as_object(self._data.get("targets"))
        target_cpa, target_roas = number(targets.get("target_cpa")), number(targets.get("target_roas"))
        calendar = calendar_days(first, last, totals.last_row)
        sums, active = totals.window(scope, first, last)
        account = None if scope == "account" else self._account_window(window)
        # ``_finite`` of each, spelled out: this runs for each scope a finding quotes
        return {metric: value for metric, value in window_numbers(sums, active, calendar, target_cpa, target_roas, account)
                if value is not None and value - value == 0}

    def _zero_days(self, scope: str, window: str) -> float | None:
        """The days of a window on which a scope recorded no conversion (the index puts them beside
        the scope's window figures: for the account, and for a campaign with rows in the window)."""
        totals = self._daily()
        first, last = self._window_dates()[window]
        days = totals.days(scope)
        if scope != "account" and not any(first <= d <= last for d in days):
            return None
        return float(sum(1 for d, row in days.items() if first <= d <= last and row[CONVERSIONS] == 0))

    def _account_window(self, window: str) -> list[float]:
        """The account's sums over a window, which every campaign's figures over it are shares of:
        summed once."""
        sums = self._accounts.get(window)
        if sums is None:
            first, last = self._window_dates()[window]
            sums = self._accounts[window] = self._daily().window("account", first, last)[0]
        return sums

    def _pacing_figures(self, label: str = "") -> dict[str, float]:
        """The ``pacing: `` figures of the rows as they are, or of the corrected reading ``label``
        (its names end in `` (label)``; none when the snapshot has no such reading)."""
        figures = self._pacing.get(label)
        if figures is None:
            figures = self._pacing[label] = cache_of(self._data).get(("quoted pacing figures", label),
                                                                     lambda: self._compute_pacing(label))
        return figures

    def _compute_pacing(self, label: str) -> dict[str, float]:
        totals = self._daily()
        if label:
            reading = next((reading for reading, named in corrected_readings(self._data, totals) if named == label), None)
            if reading is None:
                return {}
            totals = reading
        pacing = NamedValues()
        pacing_figures(pacing, self._data, totals.period, totals.account, totals.by_campaign,
                       as_object(self._data.get("targets")), f" ({label})" if label else "",
                       once_per_day=totals.once_per_day,
                       per_campaign_and_budget=False)  # only `pacing: ` names are read here
        return pacing.values


def _finite(value: float | None) -> float | None:
    """The value as the index keeps it (``NamedValues.put``: no None, inf or nan)."""
    return value if value is not None and value - value == 0 else None
