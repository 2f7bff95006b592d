"""Where a derived value comes from: the snapshot rows behind it, described, then listed on demand.

The index records one ``Rows`` description per group of names while it is built (cheap: no row
is listed); ``rows_of`` turns descriptions into JSON Pointers for the few figures a finding
cites (``RowList``: row numbers per section until listed, so a 100,000-row window costs little).
"""

from __future__ import annotations

import bisect
from datetime import date
from typing import Any, Iterable, NamedTuple

from ..caseset.snapshot import as_array as _list
from ..caseset.snapshot_cache import cache_of, snapshot_data
from ..caseset.snapshot_reader import escape_token, number, parse_day
from ..domain.budgets import budget_campaigns
from .daily_totals import CONVERSIONS, COST, daily_totals


ROWS_LIMIT = 500  # pointers kept per figure in a result file; the count says how many there are in all


class Rows(NamedTuple):
    """One part of the rows a derived value is computed from, described, not listed.

    ``section``: ``daily``, ``search_terms``, ``ads``, ``campaigns``, ``budgets``, ``flight_plan``,
    an object section (``period``, ``targets``), ``""`` for top-level fields, or ``budget
    figure`` (a ``budget <id>: ...`` value: the budget and its history, plus the daily rows of
    its campaigns on the day a ``cost over daily budget on <day>`` names, or only the history
    entries of the day a ``new amount over old on <day>`` names, or the platform for its daily
    maximum). ``campaigns``: the campaign ids whose rows count (None: every row; ``NAMED``: the
    one the derived name holds). ``first``/``last``: the daily window (None: open), or, with
    ``day_from_name``, the one day the derived name ends with. ``only`` filters rows: ``zero
    conversions`` (search terms), ``disapproved`` (ads), ``enabled`` and ``with cost``
    (campaigns), ``duplicated`` (daily rows of a (date, campaign) pair that has more than one),
    ``trailing zero-conversion days`` (the daily rows of the run of zero-conversion days at the
    end of the data), ``daily`` (DAILY budgets), ``by metric`` (the target a metric such as
    ``CPA over target`` is compared with). ``once_per_day``: the first daily row of each
    (date, campaign) only. ``weekday``: daily rows of that weekday (Monday 0). ``budget``: one
    budget id (``NAMED_BUDGET``: the one the name holds); ``history``: with the budget's history
    entries. ``fields``: the fields of an object section (all of them when empty).
    """

    section: str
    campaigns: tuple[str, ...] | None = None
    first: date | None = None
    last: date | None = None
    only: str | None = None
    once_per_day: bool = False
    weekday: int | None = None
    day_from_name: bool = False
    budget: str | None = None
    history: bool = False
    fields: tuple[str, ...] = ()


PERIOD_ROWS = Rows("period")
TARGET_OF_METRIC = Rows("targets", only="by metric")
# Placeholders: the campaign (budget) id is the part of the derived name after the family's
# prefix, up to ": " (or all of it), resolved against the snapshot's ids when rows are asked for.
NAMED = ("\0campaign named in the name",)
NAMED_BUDGET = "\0budget named in the name"
TRAILING_ZERO = "trailing zero-conversion days"
BUDGET_FIGURE = "budget figure"


class RowList:
    """Snapshot rows as JSON Pointers, in the order added, without repeats.

    Rows of list sections are kept as row numbers until listed, so a window of
    100,000 rows costs a list of ints, and only the first ``limit`` pointers
    are ever formatted. ``len()`` is the number of distinct rows in all.
    """

    def __init__(self) -> None:
        self._parts: list[tuple[str, list[int]] | str] = []
        self._seen: dict[str, list[int] | set[int]] = {}  # a section's first list, a set once there are two
        self._pointers: set[str] = set()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, section: str, indices: list[int]) -> None:
        """Rows ``indices`` of the list section ``section`` (no repeats within ``indices``)."""
        if not indices:
            return
        seen = self._seen.get(section)
        if seen is None:
            self._seen[section] = indices
        else:
            if isinstance(seen, list):
                seen = self._seen[section] = set(seen)
            indices = [i for i in indices if i not in seen]
            seen.update(indices)
        if indices:
            self._parts.append((section, indices))
            self._count += len(indices)

    def add_pointer(self, pointer: str) -> None:
        if pointer not in self._pointers:
            self._pointers.add(pointer)
            self._parts.append(pointer)
            self._count += 1

    def extend(self, other: "RowList") -> None:
        for part in other._parts:
            if isinstance(part, str):
                self.add_pointer(part)
            else:
                self.add(*part)

    def pointers(self, limit: int | None = ROWS_LIMIT) -> list[str]:
        """The first ``limit`` pointers (all of them with None)."""
        out: list[str] = []
        for part in self._parts:
            if limit is not None and len(out) >= limit:
                break
            if isinstance(part, str):
                out.append(part)
                continue
            section, indices = part
            prefix = f"/{escape_token(section)}/"
            take = indices if limit is None else indices[:limit - len(out)]
            out.extend(f"{prefix}{i}" for i in take)
        return out


class DailyPositions:
    """Where each daily row is, by campaign and date: built in one pass over the rows, on the
    first request for daily rows, so index building pays nothing for it."""

    def __init__(self, data: dict[str, Any]) -> None:
        entries: dict[str, list[tuple[date, int]]] = {}
        self.first_of_day: set[int] = set()  # the first row of each (date, campaign)
        self.duplicated: set[int] = set()  # every row of a (date, campaign) with more than one
        first_row: dict[tuple[str, date], int] = {}
        for i, row in enumerate(_list(data.get("daily"))):
            if not isinstance(row, dict):
                continue
            day = parse_day(row.get("date"))
            if day is None:
                continue
            cid = str(row.get("campaign_id")) if row.get("campaign_id") is not None else "(no campaign)"
            entries.setdefault(cid, []).append((day, i))
            key = (cid, day)
            first = first_row.get(key)
            if first is None:
                first_row[key] = i
                self.first_of_day.add(i)
            else:
                self.duplicated.update((first, i))
        everything = sorted(e for rows in entries.values() for e in rows)
        self._scopes: dict[str | None, tuple[list[date], list[int]]] = {None: _split(everything)}
        for cid, rows in entries.items():
            rows.sort()
            self._scopes[cid] = _split(rows)
        self.size = len(everything)

    def rows(self, campaigns: tuple[str, ...] | None, first: date | None, last: date | None, *,
             once_per_day: bool = False, weekday: int | None = None, duplicated: bool = False) -> list[int]:
        """Row numbers, in snapshot order, of the campaigns' rows (every row with None) from
        ``first`` to ``last`` inclusive (open ends with None)."""
        found: list[int] = []
        for scope in (None,) if campaigns is None else dict.fromkeys(campaigns):
            dates, indices = self._scopes.get(scope, ((), ()))
            lo = 0 if first is None else bisect.bisect_left(dates, first)
            hi = len(dates) if last is None else bisect.bisect_right(dates, last)
            if weekday is not None:
                found += [indices[k] for k in range(lo, hi) if dates[k].weekday() == weekday]
            else:
                found += indices[lo:hi]
        if once_per_day:
            found = [i for i in found if i in self.first_of_day]
        if duplicated:
            found = [i for i in found if i in self.duplicated]
        found.sort()
        return found


def _split(entries: list[tuple[date, int]]) -> tuple[list[date], list[int]]:
    return [d for d, _ in entries], [i for _, i in entries]


def daily_positions(data: dict[str, Any]) -> DailyPositions:
    """The ``DailyPositions`` of a snapshot, kept on the snapshot (``snapshot_cache``)."""
    return cache_of(data).get("daily positions", lambda: DailyPositions(data))


def rows_of(data: dict[str, Any], parts: Iterable[Rows], name_part: str = "") -> RowList:
    """The rows ``parts`` describe, in order. ``name_part``: the part of the derived name between
    its family's prefix and tail: a campaign or budget id first for ``NAMED`` parts, then a date
    for ``day_from_name`` or a metric for ``by metric``."""
    out = RowList()
    if not isinstance(data, dict):
        return out
    data = snapshot_data(data)
    for part in parts:
        rest = name_part
        if part.campaigns == NAMED:
            found = _split_id(name_part, _campaign_ids(data))
            if found is None:
                continue
            cid, rest = found
            part = part._replace(campaigns=(cid,))
        if part.budget == NAMED_BUDGET:
            found = _split_id(name_part, {str(b.get("budget_id")) for b in _list(data.get("budgets"))
                                          if isinstance(b, dict)})
            if found is None:
                continue
            bid, rest = found
            part = part._replace(budget=bid)
        _add_rows(out, data, part, rest)
    return out


def _split_id(name_part: str, known: set[str]) -> tuple[str, str] | None:
    """(id, the rest) of ``"<id>: <rest>"`` or ``"<id>"``, the id being one of ``known`` (ids may
    hold ": " themselves: the longest known one wins)."""
    if name_part in known:
        return name_part, ""
    end = name_part.rfind(": ")
    while end > 0:
        if name_part[:end] in known:
            return name_part[:end], name_part[end + 2:]
        end = name_part.rfind(": ", 0, end)
    return None


def _campaign_ids(data: dict[str, Any]) -> set[str]:
    """Every campaign id a derived name may hold, as the index wrote it."""
    return cache_of(data).get("campaign ids", lambda: _all_campaign_ids(data))


def _all_campaign_ids(data: dict[str, Any]) -> set[str]:
    found = set(daily_totals(data).by_campaign)
    for section, key in (("campaigns", "id"), ("search_terms", "campaign_id"), ("ads", "campaign_id"),
                         ("flight_plan", "campaign_id")):
        found.update(str(r.get(key)) for r in _list(data.get(section)) if isinstance(r, dict))
    for budget in _list(data.get("budgets")):
        if isinstance(budget, dict):
            found.update(str(c) for c in _list(budget.get("campaign_ids")))
    return found


def _in_campaigns(row: dict[str, Any], campaigns: tuple[str, ...] | None, key: str = "campaign_id") -> bool:
    return campaigns is None or str(row.get(key)) in campaigns


def _add_rows(out: RowList, data: dict[str, Any], part: Rows, name_part: str) -> None:
    section, only = part.section, part.only
    first, last = part.first, part.last
    if part.day_from_name:
        first = last = parse_day(name_part.strip()[-10:])
        if first is None:
            return
    if section == BUDGET_FIGURE:
        _add_budget_figure_rows(out, data, part, name_part)
        return
    if only == TRAILING_ZERO:
        days = daily_totals(data).days("account" if part.campaigns is None else part.campaigns[0])
        ordered = sorted(days, reverse=True)
        run = next((n for n, day in enumerate(ordered) if days[day][CONVERSIONS] != 0), len(ordered))
        if not run:
            return
        part, first, last, only = part._replace(only=None), ordered[run - 1], ordered[0], None
    if section == "daily":
        out.add("daily", daily_positions(data).rows(
            part.campaigns, first, last, once_per_day=part.once_per_day, weekday=part.weekday,
            duplicated=only == "duplicated"))
        return
    if section in ("search_terms", "ads", "flight_plan", "campaigns"):
        rows = _list(data.get(section))
        with_cost: set[str] = set()
        if only == "with cost":
            with_cost = {cid for cid, days in daily_totals(data).by_campaign.items()
                         if any(s[COST] > 0 for s in days.values())}
        keep = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            if not _in_campaigns(row, part.campaigns, "id" if section == "campaigns" else "campaign_id"):
                continue
            if only == "zero conversions" and number(row.get("conversions")) != 0:
                continue
            if only == "disapproved" and str(row.get("approval_status", "")).upper() != "DISAPPROVED":
                continue
            if only == "enabled" and str(row.get("status", "")).upper() != "ENABLED":
                continue
            if only == "with cost" and str(row.get("id")) not in with_cost:
                continue
            keep.append(i)
        out.add(section, keep)
        return
    if section == "budgets":
        campaigns = _list(data.get("campaigns"))
        for i, budget in enumerate(_list(data.get("budgets"))):
            if not isinstance(budget, dict):
                continue
            if part.budget is not None and str(budget.get("budget_id")) != part.budget:
                continue
            if only == "daily" and str(budget.get("period") or "DAILY").upper() != "DAILY":
                continue
            if part.campaigns is not None and not set(part.campaigns) & set(budget_campaigns(budget, campaigns)):
                continue
            out.add("budgets", [i])
            if part.history:
                for j, change in enumerate(_list(budget.get("history"))):
                    if isinstance(change, dict) and (not part.day_from_name
                                                     or parse_day(change.get("changed_at")) == first):
                        out.add_pointer(f"/budgets/{i}/history/{j}")
        return
    # Fields of an object section, or of the top level.
    _add_fields(out, data, section, part.fields, only, name_part)


def _add_budget_figure_rows(out: RowList, data: dict[str, Any], part: Rows, rest: str) -> None:
    """A ``budget <id>: <rest>`` value: the budget and its history, and what ``rest`` adds."""
    if rest.startswith("new amount over old on "):
        _add_rows(out, data, Rows("budgets", budget=part.budget, history=True, day_from_name=True), rest)
        return
    _add_rows(out, data, Rows("budgets", budget=part.budget, history=True), rest)
    if rest.startswith("cost over daily budget on "):
        cids: list[str] = []
        for budget in _list(data.get("budgets")):
            if isinstance(budget, dict) and str(budget.get("budget_id")) == part.budget:
                cids += [str(c) for c in _list(budget.get("campaign_ids"))]
        if cids:
            _add_rows(out, data, Rows("daily", tuple(cids), day_from_name=True, once_per_day=part.once_per_day), rest)
    elif rest.startswith("platform daily maximum"):
        _add_fields(out, data, "", ("platform",), None, rest)


def _add_fields(out: RowList, data: dict[str, Any], section: str, fields: tuple[str, ...], only: str | None,
                name_part: str) -> None:
    node = data if section == "" else data.get(section)
    if not isinstance(node, dict):
        return
    if only == "by metric":
        fields = tuple(key for word, key in (("CPA", "target_cpa"), ("ROAS", "target_roas"))
                       if word in name_part and "target" in name_part)
    elif not fields:
        fields = tuple(node)
    prefix = "" if section == "" else f"/{escape_token(section)}"
    for key in fields:
        if key in node:
            out.add_pointer(f"{prefix}/{escape_token(str(key))}")
