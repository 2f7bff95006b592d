"""Figure grounding by the prose rules: is each number of a finding's text traceable to the rows
the finding names? (docs/scoring.md, "The prose rules")

A figure is grounded when, at its printed precision (half a unit of its last printed digit, of
the scaled unit for ``1.2k``; see ``Figure.bounds`` for rounded and hedged figures), it equals a
value of the finding's grounding set. The set is narrow on purpose, so that a made-up figure
rarely meets a value by chance:

1. the account's own values: targets, budgets, the period, the conversion actions, any section
   that is not about one campaign, and the derived index's account-wide figures that are not
   over a window (pacing, counts, the platform's daily multiple);
2. the values of the campaigns the finding names (by scope, by id, bare ids included, by name
   or by a part of a name only one campaign has): their search terms, ads, change events,
   flights, and their daily rows on the dates the finding names (or each day of a range of a
   week or less it names); their derived figures that are not over a window;
3. (derived mode) the sums, rates, daily averages and shares of the account, of each named
   campaign, of the campaigns it lists together and (with "rest", "other", "without") of the
   account without them, over the date ranges the finding names (``named_scope.py``), in the
   rows as they are and in the corrected readings the data or the finding's words call for;
   and the derivations of ``derivations.py`` (a daily budget times days, the monthly budget
   spread over a range, expected conversions, an even share, the micros factor);
4. arithmetic on two figures grounded by 1-3 in the same finding (all its text fields
   together): difference, sum, ratio, percent change, a rate times a count, the same figure
   rounded, micros; with "chance" or "Poisson", the Poisson chance and z of two counts.

A figure whose words name a metric ("591 clicks", "cost over those days 1,066.44", "CPA about
26.4") is compared only with values of that metric (``named_values.value_metric``); one whose
words name none, only with values of a compatible unit (money, a count, a ratio). Signs are not
compared; zero is always grounded, and "N days" when N is the length of a range the finding
names or a count of the month (days in it, elapsed, remaining).

``GroundingIndex.for_snapshot(snapshot, mode)`` builds the account-wide tables once per
snapshot; each finding adds what it names. Every verdict carries a reason a person can read:
what grounded the figure, by name, or why nothing did (with the nearest value). A grounded
verdict keeps its ``sources`` and ``GroundingIndex.rows(verdict)`` lists the snapshot rows
behind it on demand.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import math
import re
from dataclasses import dataclass
from operator import itemgetter
from datetime import date
from typing import Any, Iterable, NamedTuple

from .. import taxonomy
from ..caseset.snapshot import as_array, as_object
from ..caseset.snapshot_cache import cache_of, snapshot_data
from ..caseset.snapshot_reader import number, parse_day, pointer_to
from ..domain.budgets import budget_campaigns
from ..domain.chance import poisson_at_most, poisson_z
from .daily_totals import DUPLICATES_ONCE, corrected_readings, daily_totals, named_readings
from .derivations import derivations
from .derived_index import derived_rows, grounding_named
from .figures import SENTENCE_END, Figure, Identifiers, Skipped, is_date_or_time, scan
from .named_scope import NamedScope
from .named_values import VALUE_UNITS, metric_accepts, value_metric, value_unit
from .ranges import WEEKDAYS, RangeValues, range_values
from .row_provenance import RowList, Rows, daily_positions, rows_of

FIGURE_MODES = ("derived", "strict")
_HAS_DIGIT = re.compile(r"\d")
_RATIO_KEY = re.compile(r"share|rate|ratio|tolerance|ctr|cvr|roas|pct|percent", re.IGNORECASE)
_PERCENT_KEY = re.compile(r"pct|percent", re.IGNORECASE)
_MONEY_KEY = re.compile(r"cost|budget|amount|value|cpa|cpc|micros|spend|revenue|price", re.IGNORECASE)
_COUNT_KEY = re.compile(r"clicks|impressions|conversions|rows|count|days", re.IGNORECASE)
# The units of grounding values a figure may match, by what the figure measures (figures.MEASURES):
# money never grounds on a count or a ratio, a count never on money; "other" (numbers inside
# strings, ids, fields of no known unit) stays open to both, and a figure of unknown measure
# matches anything.
ACCEPTS = {"money": ("money", "other"), "count": ("count", "other"), "ratio": ("ratio", "other"), "unknown": VALUE_UNITS,
           "percent": ("ratio",), "multiplier": ("ratio",)}
_UNIT_WORDS = {"money": "money", "count": "a count", "ratio": "a ratio", "other": "a value"}
_INF = float("inf")
_SENTENCE_TEXT = re.compile(r"[a-z]{2,}\s+[a-z]{2,}\s+[^|]*\d")  # words, then a number: "target CPA raised to 52.50"
_NUMBER_IN_TEXT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# Sections of the snapshot whose items are about one campaign (by campaign_id, or the campaign's
# own id); the daily rows are read by campaign and date on demand (row_provenance.DailyPositions).
_DAILY = "daily"
_ACCOUNT_SECTIONS = ("budgets",)  # about campaigns, but the account's budget plan: every finding may quote it
_DATE_KEYS = ("date", "change_date_time", "changed_at", "date_time", "timestamp", "time", "day")
# Derived names over one of the index's fixed windows or on one day: over ranges, the finding names them
_WINDOWED = re.compile(r"^(?:account|campaign .+?): (?!search terms|ads)[^,]+, (?:period|to last complete day|last 7 complete days|"
                       r"previous 7 complete days|last 14 complete days|all rows)(?: \(.+\))?$|^account: \S+ on \d{4}-\d{2}-\d{2}")
_DAY_IN_NAME = re.compile(r" on (\d{4}-\d{2}-\d{2})")
_PACING_DAYS = re.compile(r"^pacing: days ")


@dataclass(frozen=True)
class FigureVerdict:
    field: str
    figure: Figure
    grounded: bool
    reason: str  # what grounded it, by name, or why nothing did
    # What grounded it, for GroundingIndex.rows: ("snapshot", Source), ("derived", name),
    # ("range", (RangeValues, metric)) or ("rows", (Rows, ...)); arithmetic has its operands' sources.
    sources: tuple = dataclasses.field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        f = self.figure
        return {
            "field": self.field, "text": f.text, "start": f.start, "end": f.end, "value": f.value,
            "unit": f.unit, "measure": f.measure, "decimals": f.decimals, "grounded": self.grounded,
            "reason": self.reason,
        }


class ScannedTexts(NamedTuple):
    """The figures of a finding's text fields: (field, figure) in field order, and per field its text,
    figures and skipped spans."""

    found: list[tuple[str, Figure]]
    fields: list[tuple[str, list[Figure], list[Skipped]]]


ZERO_REASON = "zero is always grounded"


# Where a value of the set came from, kept cheap to build and named only when a reason needs it:
# (parent path, key) for a snapshot number, (parent path, key, string) for a number inside a string,
# or the derived index's name.
Source = Any
# A value of the grounding set: (magnitude, unit, metric, kind, payload); kind "snapshot" (payload
# a Source), "derived" (a name), "range" ((RangeValues, metric)) or "percent" (a Source already in percent).
Entry = tuple[float, str, str, str, Any]


def show_number(value: float, *, computed: bool = False) -> str:
    """A value for a reason: with thousands separators and never in exponent form
    (``3,250,540.79``, ``204,823,716``, ``1.269999981``). A snapshot value is shown at its full
    precision, as written; a ``computed`` one (derived, arithmetic) to six significant digits and
    at least two decimals (``17,419.35``, ``0.124908``)."""
    if not math.isfinite(value):
        return str(value)
    if computed and value:
        digits = max(2, 5 - math.floor(math.log10(abs(value))))
        value = round(value, digits)
    if value == int(value) and abs(value) < 1e18:
        return f"{int(value):,}"
    shown = format(value, ",")
    if "e" in shown:  # very small or very large: spell it out
        shown = f"{value:,.12f}".rstrip("0").rstrip(".")
    return shown


def describe_source(source: Source, value: float) -> str:
    """``snapshot /daily/12/cost = 243.6``, ``derived: account: CTR, period = 0.0125``..."""
    if isinstance(source, str):
        return f"derived: {source} = {show_number(value, computed=True)}"
    if len(source) == 3:
        return f"snapshot {pointer_to(*source[0], source[1])} {source[2]!r}"
    return f"snapshot {pointer_to(*source[0], source[1])} = {show_number(value)}"


def _describe(entry: Entry, figure: Figure | None = None) -> str:
    """What a value of the set is, by name, with its value (as a percentage too, for a percentage)."""
    value, _, _, kind, payload = entry
    if kind == "percent":
        return describe_source(payload, value) + " (in percent)"
    if kind in ("snapshot", "derived"):
        text = describe_source(payload, value)
    else:
        table, metric = payload
        where = "derived from what this finding names" if table.rows else "derived over a range this finding names"
        text = f"{where}: {table.name(metric)} = {show_number(value, computed=True)}"
    if figure is not None and figure.measure == "percent":
        text += f" (as a percentage: {show_number(value * 100.0, computed=True)})"
    return text


_MAGNITUDE = itemgetter(0)  # an entry's magnitude; a table per finding sorts thousands of entries by it


class _Table:
    """Values sorted by magnitude, for bisect lookups with a tolerance."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = sorted(entries, key=_MAGNITUDE)
        self.keys = [e[0] for e in self.entries]

    def within(self, low: float, high: float) -> list[Entry]:
        return self.entries[bisect.bisect_left(self.keys, low):bisect.bisect_right(self.keys, high)]

    def nearest(self, target: float) -> Iterable[Entry]:
        i = bisect.bisect_left(self.keys, target)
        return self.entries[max(0, i - 1):i + 1]


class _DerivedPart:
    """The account-wide table of a snapshot (its own values and the derived index's figures that are
    not over a window) and the derived figures each campaign or budget adds when a finding names it."""

    def __init__(self, snapshot_entries: list[Entry], data: dict[str, Any] | None) -> None:
        account = list(snapshot_entries)
        self.sources: dict[str, list] = {}
        # The names of each campaign and budget (most of the index: every budget's figure on every
        # day), made entries only when a finding names the owner (``owned``).
        self._names_of: dict[str, list[tuple[str, float]]] = {}
        self._by_owner: dict[str, list[tuple[Entry, date | None]]] = {}
        self._account_values = 0
        self.pacing_days: set[int] = set()
        if data is not None:
            named = grounding_named(data)
            self.sources = named.sources
            names_of = self._names_of
            for name, value in named.values.items():
                owner = _owner(name)
                if owner is not None:
                    names = names_of.get(owner)
                    if names is None:
                        names = names_of[owner] = []
                    names.append((name, value))
                    continue
                if _WINDOWED.match(name):
                    continue
                self._account_values += 1
                account.append((abs(value), value_unit(name), value_metric(name), "derived", name))
                if _PACING_DAYS.match(name) and "as_of" not in name and value == int(value):
                    self.pacing_days.add(int(value))  # counted to the last complete day, as pacing is
        self.account = _Table(account)

    def owned(self, owner: str) -> list[tuple[Entry, date | None]]:
        """The derived figures of ``owner`` (``campaign 333``, ``budget b1``) with the day each is on,
        in the index's order; made once (two threads may both make them: the same list)."""
        made = self._by_owner.get(owner)
        if made is None:
            made = []
            for name, value in self._names_of.get(owner, ()):
                if not _WINDOWED.match(name):
                    day = _DAY_IN_NAME.search(name)
                    made.append(((abs(value), value_unit(name), value_metric(name), "derived", name),
                                 _day_of(day.group(1)) if day else None))
            self._by_owner[owner] = made
        return made

    @property
    def values(self) -> int:
        """How many values of the derived index the prose rules may ground on (every owner's made)."""
        return self._account_values + sum(len(self.owned(owner)) for owner in self._names_of)


@functools.lru_cache(maxsize=1024)
def _day_of(text: str) -> date | None:
    """A day written in a derived name (a budget's figure on each day of the month repeats a few)."""
    return parse_day(text)


class GroundingIndex:
    """The grounding set of one snapshot: its account-wide values, ready for fast lookups, and
    what each campaign adds when a finding names it."""

    def __init__(self, data: dict[str, Any], mode: str = "derived") -> None:
        if mode not in FIGURE_MODES:
            raise ValueError(f"unknown figures mode {mode!r}; use one of {', '.join(FIGURE_MODES)}")
        self.mode = mode
        data = snapshot_data(data)  # a plain dict: the derived index and the ranges read from one cache
        self._data = data if isinstance(data, dict) else {}
        found = _Collector()
        if isinstance(data, (dict, list)):
            found.walk(data, ())
        self._snapshot_entries: list[Entry] = [(v, unit, value_metric(str(src[1])), "snapshot", src)
                                               for unit, values in found.by_unit.items() for v, src in values.items()]
        self._snapshot_entries += [(v, "ratio", "", "percent", src) for v, src in found.in_percent.items()]
        self.snapshot_values = sum(len(values) for values in found.by_unit.values()) + sum(
            len(items) for items in found.scoped.values())
        self._scoped = found.scoped
        # The account-wide table and what the derived index adds per campaign and budget: built on the
        # first figure the prose rules judge (an answer whose figures are all declared needs none of it).
        self._derived: _DerivedPart | None = None
        ids = set(found.ids) | set(daily_totals(self._data).by_campaign)
        self.identifiers = Identifiers(found.names, ids)
        self.period_days = _period_days(self._data)
        # reading -> (scope, first, last) -> figures, shared by the findings of this snapshot
        # Which reading and key each table of the range cache is under (by the table's id; the cache
        # keeps the tables alive), noted as each is stored: a cited range's rows are found without a
        # pass over every range the snapshot's findings named.
        self._range_keys: dict[int, tuple[RangeValues, str, Any]] = {}
        self._daily_entries: dict[int, list[Entry]] = {}  # a daily row's place -> its values
        self._range_cache: dict[str, _RangeCache] = {}
        self._derivation_cache: dict[Any, Any] = {}
        # Each range table's entries, made once: the cached tables recur in many findings.
        self._table_entries: dict[int, tuple[RangeValues, list[Entry]]] = {}
        self._name_parts = _unique_name_parts(self._data)
        self._rows_cache: dict[Any, tuple[Any, RowList]] = {}  # a derived name or a range -> (its table, its rows)
        campaigns = as_array(self._data.get("campaigns"))
        self._campaign_by_name = {
            str(c.get("name")).lower(): str(c.get("id"))
            for c in campaigns if isinstance(c, dict) and c.get("name") and c.get("id") is not None}
        self._campaign_ids = {str(c.get("id")) for c in campaigns if isinstance(c, dict) and c.get("id") is not None}
        self._campaign_ids |= set(daily_totals(self._data).by_campaign)
        self._budgets_of = _budgets_by_campaign(self._data)

    # -- construction and cache ------------------------------------------------

    @classmethod
    def for_snapshot(cls, snapshot: Any, mode: str = "derived") -> "GroundingIndex":
        """The index of a ``Snapshot`` object, built once per snapshot and mode and kept on it
        (``snapshot_cache``)."""
        data = snapshot.data
        return cache_of(data).get(("grounding index", mode), lambda: cls(data, mode))

    def _derived_part(self) -> "_DerivedPart":
        """The account-wide values (the snapshot's and, derived mode, the derived index's), built once."""
        part = self._derived
        if part is None:
            part = self._derived = _DerivedPart(self._snapshot_entries, self._data if self.mode == "derived" else None)
        return part

    @property
    def _account(self) -> "_Table":
        return self._derived_part().account

    @property
    def _derived_sources(self) -> dict[str, list]:
        return self._derived_part().sources

    @property
    def _pacing_days(self) -> set[int]:
        return self._derived_part().pacing_days

    @property
    def derived_values(self) -> int:
        """How many values of the derived index the prose rules ground on, those over its fixed
        windows left out (0 in strict mode)."""
        return self._derived_part().values

    # -- one finding -----------------------------------------------------------------

    def scan_texts(self, texts: dict[str, str]) -> "ScannedTexts":
        """The figures of one finding's text fields, in field order, and what each field skipped."""
        found: list[tuple[str, Figure]] = []
        fields: list[tuple[str, list[Figure], list[Skipped]]] = []
        for field_name, text in texts.items():
            if isinstance(text, str) and text:
                figures, spans = scan(text, self.identifiers, words=False)
                found.extend((field_name, f) for f in figures)
                fields.append((text, figures, spans))
        return ScannedTexts(found, fields)

    def check_texts(self, texts: dict[str, str], scopes: Iterable[str | None] = (), kind: str | None = None,
                    scanned: "ScannedTexts | None" = None) -> list[FigureVerdict]:
        """Verdicts for every figure in the text fields of one finding, in field order.

        ``scopes``: the finding's scope (campaign id), which it names as if written. Figures are
        grounded by the finding's grounding set (the module's 1-3), then by arithmetic on two
        figures grounded so (arithmetic does not chain). ``scanned``: ``scan_texts(texts)``, when
        the caller has it already.
        """
        found, fields = scanned if scanned is not None else self.scan_texts(texts)
        if not found:
            return []
        joined = "\n".join(t for t in texts.values() if isinstance(t, str))
        scopes = list(scopes)
        named = self._scope(fields, scopes)
        named.scoped = any(scopes)
        pool = self._pool(named)
        verdicts: list[FigureVerdict | None] = [None] * len(found)
        operands: list[Operand] = []
        for n, (field_name, figure) in enumerate(found):
            hit = self._direct(figure, texts[field_name], named, pool, kind)
            if hit is not None:
                value, reason, sources, unit, metric = hit
                verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
                if value:
                    # what the operand measures: what the text says, else what it matched
                    unit = _MEASURE_UNIT.get(figure.measure) or unit or "other"
                    metric = figure.metric or _sentence_rate(figure) or (metric if metric not in _OWN_WORDS else "")
                    operands.append((n, abs(figure.value), figure.text, unit, metric))
                    if value != abs(figure.value):
                        operands.append((n, value, figure.text, unit, metric))
        # A plain ratio ("ROAS 11.5") multiplies like a multiplier: 3,100.00 of spend at ROAS 11.5 is 35,650 of value.
        units = {n: "multiplier" if figure.measure == "ratio" else figure.unit for n, (_, figure) in enumerate(found)}
        chance = "chance" in named.words or bool(re.search(r"(?i)\b(?:chance|poisson|standard deviations?)\b", joined))
        sentences = _sentence_numbers(texts, found)
        by_number = {n: figure for n, (_, figure) in enumerate(found)}
        computed: list[Operand] = []  # figures grounded by arithmetic: operands of a chance only
        for n, (field_name, figure) in enumerate(found):
            if verdicts[n] is not None:
                continue
            near = [op for op in operands if _nearby(sentences, found, texts, n, op[0])]
            follows = _arithmetic(figure, operands, n, units, chance, near, by_number, month_days=self.period_days)
            if follows is None and field_name == _SUMMARY_FIELD:
                # a claim sums up the evidence: any two figures of the finding, but no share or change of them
                follows = _arithmetic(figure, operands, n, units, chance, operands, by_number, summary=True,
                                      month_days=self.period_days)
            if follows is not None:
                reason, used = follows
                sources = tuple(s for k in used for s in verdicts[k].sources)  # type: ignore[union-attr]
                verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
                # what a computed figure is of: its words, else what its operands are all of ("111.46 less")
                of = {op[4] for op in operands if op[0] in used}
                computed.append((n, abs(figure.value), figure.text, _MEASURE_UNIT.get(figure.measure, "other"),
                                 figure.metric or (of.pop() if len(of) == 1 and figure.unit == "plain" else "")))
        for n, (field_name, figure) in enumerate(found):
            if verdicts[n] is not None:
                continue
            # "would have bought about 17 conversions (648.31 / 38.0); 7 or fewer has a chance of 0.5%"
            near = [op for op in operands + computed if _nearby(sentences, found, texts, n, op[0])]
            counts = [op for op in near if op[3] in ("count", "other")]
            follows = _chance(figure, counts, n, by_number) if chance and computed else None
            if follows is None and field_name == _SUMMARY_FIELD:
                # a claim repeats the evidence's figures, computed ones too ("about 19% short")
                follows = _arithmetic(figure, computed, n, units, figures=by_number, summary=True, single_only=True)
            if follows is not None:
                reason, used = follows
                sources = tuple(s for k in used for s in verdicts[k].sources)  # type: ignore[union-attr]
                verdicts[n] = FigureVerdict(field_name, figure, True, reason, sources)
            else:
                verdicts[n] = FigureVerdict(field_name, figure, False, self._not_grounded(figure, pool))
        return [v for v in verdicts if v is not None]

    def _scope(self, fields: list[tuple[str, list[Figure], list[Skipped]]], scopes: Iterable[str | None]) -> NamedScope:
        spans = [self._campaigns_named(skipped) for _, _, skipped in fields]
        campaigns = [str(s) for s in scopes if s is not None] + [cid for found in spans for _, _, cid in found]
        campaigns += self._campaigns_by_name_part("\n".join(text for text, _, _ in fields))
        return NamedScope.read(fields, daily_totals(self._data), campaigns, spans)

    def _campaigns_named(self, skipped: list[Skipped]) -> list[tuple[int, int, str]]:
        """(start, end, id) of each campaign the text names by id or by its full name."""
        named = []
        for span in skipped:
            if span.why.startswith("identifier: id ") and span.text in self._campaign_ids:
                named.append((span.start, span.end, span.text))
            elif span.why.startswith("identifier: ") and span.text.lower() in self._campaign_by_name:
                named.append((span.start, span.end, self._campaign_by_name[span.text.lower()]))
        return named

    def _campaigns_by_name_part(self, text: str) -> list[str]:
        """Campaigns named by a part of a name only one campaign has ("Greece")."""
        if self._name_parts is None:
            return []
        return self._name_parts.find(text)

    def _pool(self, named: NamedScope) -> _Table:
        """What the finding adds to the account-wide values: its campaigns' own values, their rows
        on the days it names, and (derived mode) the figures over the ranges it names."""
        days = named.days()
        entries: list[Entry] = []
        positions = daily_positions(self._data) if days else None
        daily = as_array(self._data.get(_DAILY))
        owners = list(dict.fromkeys(named.campaigns))
        text = named.text.lower()
        speaks_of_ads = _ADS.search(text) is not None
        for cid in owners:
            for entry, day, name in self._scoped.get(cid, ()):
                if (day is None or day in days) and (name is None or name.removeprefix(_AD_PREFIX) in text
                                                      or (speaks_of_ads and name.startswith(_AD_PREFIX))):
                    entries.append(entry)
            for day in sorted(days):
                for i in positions.rows((cid,), day, day) if positions is not None else ():
                    entries += self._row_entries_of(daily, i)
        if self.mode != "derived":
            return _Table(entries)
        budgets = {b for cid in owners for b in self._budgets_of.get(cid, ())}
        derived = self._derived_part()
        for owner in [*(f"campaign {cid}" for cid in owners), *(f"budget {b}" for b in budgets)]:
            for entry, day in derived.owned(owner):
                if day is None or day in named.dates:  # a budget's day figure: on a date the finding names
                    entries.append(entry)
        for table in self._ranges(named):
            entries += self._entries_of(table)
        return _Table(entries)

    def _row_entries_of(self, daily: list[Any], i: int) -> list[Entry]:
        """A daily row's values, read once: the findings that name its campaign and day share them."""
        made = self._daily_entries.get(i)
        if made is None:
            made = self._daily_entries[i] = _row_entries(daily[i], i)
        return made

    def _entries_of(self, table: RangeValues) -> list[Entry]:
        made = self._table_entries.get(id(table))
        if made is None or made[0] is not table:  # the table is kept with its entries, so its id is not reused
            made = self._table_entries[id(table)] = (table, [(v, *_metric_tags(metric), "range", (table, metric))
                                                             for v, metric in table.amounts])
        return made[1]

    def _ranges(self, named: NamedScope) -> list[RangeValues]:
        """The figures over the ranges a finding names, for the account and the campaigns it names,
        in every reading the data or its words call for, and the derivations over them."""
        totals = daily_totals(self._data)
        if not named.windows:
            return []
        targets = as_object(self._data.get("targets"))
        target_cpa, target_roas = number(targets.get("target_cpa")), number(targets.get("target_roas"))
        readings = [(totals, ""), *corrected_readings(self._data, totals), *named_readings(self._data, named.words)]
        tables: list[RangeValues] = []
        for reading, label in readings:
            tables += range_values(reading, named.windows, named.campaigns, target_cpa, target_roas,
                                   self._range_cache_of(label), suffix=f" ({label})" if label else "",
                                   weekdays="weekdays" in named.words)
        tables += derivations(self._data, totals, readings, named, self._derivation_cache)
        return tables

    # -- lookups ---------------------------------------------------------------------

    def _direct(self, figure: Figure, text: str, named: NamedScope, pool: _Table, kind: str | None = None,
                ) -> tuple[float | None, str, tuple, str | None, str] | None:
        """(value usable for arithmetic or None, reason, sources, unit of the value, its metric)
        when grounded by the finding's set, or by a platform constant the text names."""
        if figure.value == 0:
            return None, ZERO_REASON, (), None, ""
        if (figure.day_count or figure.metric == "days") and abs(figure.value) == int(abs(figure.value)):
            n = int(abs(figure.value))
            near = named.lengths_near(text, figure.start)
            if _WINDOW_BEFORE.search(text, max(0, figure.start - 25), figure.start) and self.period_days and n <= self.period_days \
                    and (not near or n in near):  # "the last 7 complete days" (2025-01-15 to 2025-01-21, if written, is 7 days)
                return (float(n), f"{n:,} days: the window the finding names in words", (("rows", (Rows("period"),)),), "count", "days")
            month = n == self.period_days or (n in self._pacing_days and _MONTH_DAYS.search(text, max(0, figure.start - 30), figure.end + 30))
            if not (n in near or month) and near and n < max(near) and _EACH_OF.search(text, max(0, figure.start - 20), figure.start):
                # "0 on each of 5 days" of a 6-day range: the days whose rows say so (a day of unreadable rows is none)
                return (float(n), f"{n:,} days: within the range written in its sentence", (("rows", (Rows("period"),)),), "count", "days")
            if n in near or month:
                why = "a count of days of the month" if month else "the length of the range written in its sentence"
                return (float(n), f"{n:,} days: {why}", (("rows", (Rows("period"),)),), "count", "days")
        constant = _platform_constant(figure, text)
        if constant is not None:
            return (*constant, "")
        hit = self._match(figure, pool, figure.tolerance, text, named.scoped, bool(named.lengths_near(text, figure.start)))
        if hit is None and kind and _THRESHOLD_WORDS.search(text, max(0, figure.start - 25), figure.start):
            # "well under ~30": a threshold of the finding's kind, which the prompt states
            hit = self._match(figure, _Table(_thresholds(kind)), figure.tolerance, text)
        if hit is None:
            return None
        entry, value = hit
        return value, _describe(entry, figure), (_source_of(entry),), entry[1], entry[2]

    def _row_fits(self, figure: Figure, entry: Entry, text: str) -> bool | str:
        """A row of a list section (a day, a search term, an ad) is copied exactly, never hedged; a
        search term's values ground the figures written after its name, up to the next term's."""
        if entry[3] != "snapshot" or not entry[4][0] or entry[4][0][0] not in _ROW_SECTIONS:
            return True
        if figure.approximate:
            return False
        path = entry[4][0]
        if path[0] != "search_terms" or len(path) != 2:
            return True
        terms = self._data.get("search_terms")
        term = terms[path[1]].get("search_term") if isinstance(terms, list) and isinstance(terms[path[1]], dict) else None
        if not isinstance(term, str):
            return True
        quoted = _QUOTED.findall(text[:figure.start])
        if not quoted:
            return True
        return "bound" if quoted[-1].strip().lower() == term.strip().lower() else False

    @staticmethod
    def _scope_fits(figure: Figure, entry: Entry, text: str, scoped: bool, near_range: bool = False) -> bool:
        """A day count is a range's length or a count of the month (``_direct``), not another day
        value of the index; a figure with decimals is no count of days or items; a hedged figure is
        no single day's sum; in a finding about one campaign, the account's figures over a range
        are only for a sentence that speaks of the account."""
        kind, payload, metric = entry[3], entry[4], entry[2]
        if metric in ("days", "items") and figure.decimals:
            return False
        if kind == "derived":
            if payload.startswith("budget ") and " on " in payload and near_range:
                return False  # a budget's use on one day is not its use over the range the sentence writes
            if (figure.day_count or figure.metric == "days") and payload.startswith("pacing: days"):
                return False  # a day count of the month is _direct's, counted to the last complete day
            section = _SECTION_NAME.search(payload)
            if section is not None:  # the ads' or search terms' totals, for a finding about them
                return _SECTION_WORDS[section.group(1)].search(text) is not None
            return True
        if kind != "range":
            return True
        table = payload[0]
        if table.rows:
            return True
        if figure.approximate and table.label.startswith("on "):
            return False
        if scoped and table.scope == "account":
            begin, end = _sentence_span(text, figure.start)
            return "account" in text[begin:end].lower()
        return True

    def _candidates(self, figure: Figure, pool: _Table, low: float, high: float, text: str = "",
                    scoped: bool = False, near_range: bool = False) -> list[tuple[Entry, float]]:
        """(entry, its value in the figure's unit) of every value from ``low`` to ``high`` (in the
        figure's unit) that the figure's unit and metric accept."""
        scale = 100.0 if figure.measure == "percent" else 1.0
        accepts = ACCEPTS[figure.measure]
        out = []
        for table in (self._account, pool):
            for entry in table.within(low / scale, high / scale):
                if entry[3] != "percent" and entry[1] in accepts and _per_day_fits(figure, entry) \
                        and self._scope_fits(figure, entry, text, scoped, near_range):
                    fits = self._row_fits(figure, entry, text)
                    # a search term's value written after the term's name needs no metric word of its sentence
                    context = frozenset() if fits == "bound" else figure.sentence_metrics
                    if fits and metric_accepts(figure.metric, entry[2], context, figure.expected):
                        out.append((entry, entry[0] * scale))
            if figure.measure == "percent":
                for entry in table.within(low, high):
                    if entry[3] == "percent":
                        out.append((entry, entry[0]))
        return out

    def _match(self, figure: Figure, pool: _Table, tolerance: float, text: str = "", scoped: bool = False,
               near_range: bool = False) -> tuple[Entry, float] | None:
        """The value that grounds the figure, in the figure's own unit (a percentage's ratio times
        100): a field of the snapshot that rounds to the figure as printed first (so a figure that
        is a row's field, ``1.27`` for a stored ``1.269999981``, names that field), else the
        nearest."""
        target = figure.center
        exact = abs(figure.value) if figure.approximate != "-odd" else target
        exact_tolerance = figure.half_unit + 1e-9 * max(1.0, exact)
        found = self._candidates(figure, pool, target - tolerance, target + tolerance, text, scoped, near_range)
        if not found:
            return None
        return min(found, key=lambda h: (not (h[0][3] in ("snapshot", "percent") and abs(h[1] - exact) <= exact_tolerance),
                                         abs(h[1] - target), _rank(h[0])))

    def _not_grounded(self, figure: Figure, pool: _Table) -> str:
        searched = "the snapshot values of what this finding names" if self.mode == "strict" else (
            "the values, derived figures and date ranges of what this finding names")
        metric = f" as {figure.metric}" if figure.metric else {
            "money": " as money", "count": " as a count", "ratio": " as a ratio"}.get(figure.measure, "")
        reason = (f"not grounded: nothing in {searched} rounds to {figure.text!r}{metric} "
                  f"({_describe_bounds(figure)}), nor any difference, ratio or percent change of "
                  f"two figures grounded in this finding")
        target = figure.center
        scale = 100.0 if figure.measure == "percent" else 1.0
        near = [(entry, entry[0] * scale) for table in (self._account, pool) for entry in table.nearest(target / scale)
                if entry[3] != "percent" and entry[1] in ACCEPTS[figure.measure]
                and metric_accepts(figure.metric, entry[2], figure.sentence_metrics, figure.expected)]
        if near:
            entry, _ = min(near, key=lambda h: abs(h[1] - target))
            reason += f"; nearest: {_describe(entry, figure)}"
        if figure.measure in ("money", "count", "ratio"):
            other = [entry for table in (self._account, pool) for entry in table.within(*figure.bounds)
                     if entry[1] not in ACCEPTS[figure.measure]]
            if other:
                reason += f"; {_describe(other[0])} is the same size but {_UNIT_WORDS[other[0][1]]}, not {_UNIT_WORDS[figure.measure]}"
        return reason

    # -- the rows behind a verdict -------------------------------------------------------

    ROWS_CACHE_SIZE = 256

    def rows(self, verdict: FigureVerdict) -> RowList:
        """The snapshot rows behind a grounded verdict (empty for a fabricated one, and for zero):
        a snapshot value's own field, the rows a derived value or a named range was computed
        from, the union of the operands' rows for arithmetic, in that order."""
        out = RowList()
        if not verdict.grounded:
            return out
        for kind, payload in verdict.sources:
            if kind == "snapshot":
                out.add_pointer(pointer_to(*payload[0], payload[1]))
                continue
            # A range's table is not hashable: its entry is keyed by id() and holds the table, so the
            # id cannot pass to another table while the entry lives
            table = payload[0] if kind == "range" else None
            key = (kind, payload if table is None else (id(table), payload[1]))
            entry = self._rows_cache.get(key)
            if entry is None or entry[0] is not table:
                entry = (table, self._rows_behind(kind, payload))
                if len(self._rows_cache) >= self.ROWS_CACHE_SIZE:
                    del self._rows_cache[next(iter(self._rows_cache))]
                self._rows_cache[key] = entry
            out.extend(entry[1])
        return out

    def _rows_behind(self, kind: str, payload: Any) -> RowList:
        if kind == "derived":
            return derived_rows(self._data, payload, self._derived_sources) or RowList()
        if kind == "rows":
            return rows_of(self._data, payload)
        table, metric = payload
        return rows_of(self._data, table.rows or self._range_rows(table), metric)

    def _range_rows(self, table: RangeValues) -> tuple[Rows, ...]:
        """What a range a finding names covers: its scope, dates and reading, found by the
        table's place in the range cache."""
        found = self._range_keys.get(id(table))
        if found is None or found[0] is not table:
            return ()
        _, reading, key = found
        scope, first, last = key
        campaigns = None if scope == "account" else (scope,)
        once = reading == DUPLICATES_ONCE
        if first == "weekdays":
            weekday = next((i for i, name in enumerate(WEEKDAYS) if f"on {name}s" in table.label), None)
            return (Rows("daily", campaigns, once_per_day=once, weekday=weekday),)
        return (Rows("daily", campaigns, first, last, once_per_day=once),
                Rows("targets", only="by metric"))

    def _range_cache_of(self, reading: str) -> "_RangeCache":
        cache = self._range_cache.get(reading)
        if cache is None:
            cache = self._range_cache[reading] = _RangeCache(reading, self._range_keys)
        return cache


class _RangeCache(dict[Any, Any]):
    """One reading's range tables by (scope, first, last), noting each table's key as it is stored."""

    def __init__(self, reading: str, keys: dict[int, tuple[RangeValues, str, Any]]) -> None:
        super().__init__()
        self._reading, self._keys = reading, keys

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        for table in (value if isinstance(value, list) else (value,)):
            self._keys.setdefault(id(table), (table, self._reading, key))


@functools.lru_cache(maxsize=4096)
def _metric_tags(metric: str) -> tuple[str, str]:
    """(unit, metric) of a range table's metric: the few names every table repeats, read once."""
    return value_unit(metric), value_metric(metric)


_ROW_SECTIONS = ("daily", "search_terms", "ads")
# Of two values equally near, the one a reviewer checks most directly: a field, a range's rows, a derived name
_KIND_ORDER = {"snapshot": 0, "percent": 0, "range": 1, "derived": 2}


def _rank(entry: Entry) -> int:
    """A derivation (a daily budget times days...) after the index's own names."""
    return 3 if entry[3] == "range" and entry[4][0].rows else _KIND_ORDER.get(entry[3], 9)
_CHANGE_VALUES = ("old", "new", "old_value", "new_value")  # a change event's values are of its changed_field
_OWN_WORDS = ("expected", "expected_all", "relative", "gap", "budget_use")  # what a value is, not what an operand measures
_QUOTED = re.compile(r"(?<!\w)['\"\u2018\u201c]([^'\"\u2019\u201d]{2,80}?)['\"\u2019\u201d](?!\w)")


_THRESHOLD_WORDS = re.compile(r"(?i)(?:~|\bthreshold\s+(?:of\s+)?|\bat\s+least\s+|\bminimum\s+(?:of\s+)?)\s*$")
_SECTION_NAME = re.compile(r": (ads|search terms), ")
_SECTION_WORDS = {"ads": re.compile(r"(?i)\bads?\b"), "search terms": re.compile(r"(?i)\b(?:search\s+)?(?:terms?|quer(?:y|ies))\b")}
_EACH_OF = re.compile(r"(?i)\beach\s+of\s+$")
_WINDOW_BEFORE = re.compile(r"(?i)\b(?:last|previous|prior|past|first|latest|final|preceding)\s+$")
_MONTH_DAYS = re.compile(r"(?i)\b(?:remaining|elapsed|left|month|of\s+\d+\s+days)\b")
_PER_DAY_NAME = re.compile(r"per day|per remaining day|budget per day")
_DAILY_AMOUNT = re.compile(r"daily budget|budget schedule on|daily budgets|schedule's planned spend, (\d{4}-\d{2}-\d{2}) to \1")


def _per_day_fits(figure: Figure, entry: Entry) -> bool:
    """A figure a day ("about 1,516 a day") is a daily average or a daily budget, and only such a
    figure is a daily average: "clicks per day" of a range grounds "410 a day", not "410 clicks"."""
    kind, payload = entry[3], entry[4]
    if kind in ("snapshot", "percent"):
        return not figure.per_day or (bool(payload[0]) and payload[0][0] == "budgets")
    name = payload if kind == "derived" else payload[1]
    if name.endswith((", lowest", ", highest")):
        return figure.extreme  # the lowest or highest day, for "between 118 and 129 a day"
    if _PER_DAY_NAME.search(name):
        return figure.per_day
    return not figure.per_day or bool(_DAILY_AMOUNT.search(name))


@functools.lru_cache(maxsize=64)
def _thresholds(kind: str) -> tuple[Entry, ...]:
    """The numbers of one kind's thresholds in taxonomy.yaml ("well under ~30 conversions a
    month"): the prompt gives them to the model, so a finding may quote its own kind's."""
    found = taxonomy.kinds().get(kind)
    out: list[Entry] = []

    def walk(node: Any, key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, (int, float)) and not isinstance(node, bool) and math.isfinite(node):
            name = f"taxonomy threshold of {kind}: {key}"
            out.append((abs(float(node)), "other", "", "derived", name))
            if abs(node) <= 1:
                out.append((abs(float(node)), "ratio", "", "derived", name))

    walk(found.thresholds if found else {}, "")
    return tuple(out)


def _source_of(hit: Entry) -> tuple[str, Any]:
    kind, payload = hit[3], hit[4]
    return ("snapshot", payload) if kind == "percent" else (kind, payload)


def _owner(name: str) -> str | None:
    """``campaign <id>`` or ``budget <id>`` for a derived name about one of them; None for the account's."""
    if name.startswith(("campaign ", "budget ")):
        end = name.find(": ")
        return name if end < 0 else name[:end]
    return None


def _row_entries(row: Any, i: int) -> list[Entry]:
    """The numbers of one daily row, as values of the grounding set."""
    if not isinstance(row, dict):
        return []
    out: list[Entry] = []
    place = (_DAILY, i)
    for key, raw in row.items():
        tags = _ROW_KEY_TAGS.get(key)
        if tags is None:
            tags = _row_key_tags(key)
        if tags is _ID_KEY:
            continue
        value = number(raw)  # a numeric string counts as its number, as every reader reads it
        if value is not None:
            out.append((abs(value), tags[0], tags[1], "snapshot", (place, key)))
    return out


_ID_KEY = ("", "")  # the tags of a key whose values name things
_ROW_KEY_TAGS: dict[Any, tuple[str, str]] = {}  # a daily row's key -> (unit, metric): rows repeat their few keys


def _row_key_tags(key: Any) -> tuple[str, str]:
    tags = _ID_KEY if _is_id_key(key) else (_key_unit(key), value_metric(str(key)))
    if len(_ROW_KEY_TAGS) < 10_000:
        _ROW_KEY_TAGS[key] = tags
    return tags


def _budgets_by_campaign(data: dict[str, Any]) -> dict[str, list[str]]:
    campaigns = as_array(data.get("campaigns"))
    out: dict[str, list[str]] = {}
    for budget in as_array(data.get("budgets")):
        if isinstance(budget, dict) and budget.get("budget_id") is not None:
            for cid in budget_campaigns(budget, campaigns):
                out.setdefault(cid, []).append(str(budget["budget_id"]))
    return out


class NameParts:
    """The parts of campaign names ("Search | NB | Greece | IT") that name one campaign only
    ("Greece"), found in a text: at each place, the longest part written there, then on after it.

    The word boundaries are those of the one alternation of every part, longest first, that this
    replaces (``(?<![\\w])A|B|...|Z(?![\\w])``): no word character may precede the first (longest)
    part, nor follow the last (shortest); the parts between are found anywhere. Kept as it was so
    that verdicts do not change. The parts are looked up by length (a set per length): the cost is
    the text's length times the number of distinct lengths, not times the number of campaigns (the
    alternation of 3,334 names took 20 ms a finding)."""

    def __init__(self, unique: dict[str, str]) -> None:
        self.owner = unique
        ordered = sorted(unique, key=len, reverse=True)
        self._first, self._last = ordered[0], ordered[-1]
        by_length: dict[int, set[str]] = {}
        for part in ordered:
            by_length.setdefault(len(part), set()).add(part)
        self._lengths = sorted(by_length.items(), reverse=True)
        # where a part may start: a character class, one step per character in C
        self._start = re.compile("[" + "".join(sorted({re.escape(part[0]) for part in ordered})) + "]")

    def find(self, text: str) -> list[str]:
        """The campaign ids of the parts in ``text``, in order of place."""
        found = []
        end = len(text)
        candidate = self._start.search(text)
        while candidate is not None:
            i = candidate.start()
            part = next((text[i:i + n] for n, parts in self._lengths if i + n <= end and self._fits(text, i, n, parts)), None)
            if part is not None:
                found.append(self.owner[part])
                candidate = self._start.search(text, i + len(part))
            else:
                candidate = self._start.search(text, i + 1)
        return found

    def _fits(self, text: str, i: int, n: int, parts: set[str]) -> bool:
        part = text[i:i + n]
        if part not in parts:
            return False
        if part == self._first and i > 0 and _is_word_char(text[i - 1]):
            return False
        return not (part == self._last and i + n < len(text) and _is_word_char(text[i + n]))


_WORD_CHAR = re.compile(r"\w")


def _is_word_char(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def _unique_name_parts(data: dict[str, Any]) -> NameParts | None:
    """The parts of campaign names that name one campaign only, or None when there are none."""
    owners: dict[str, set[str]] = {}
    for camp in data.get("campaigns") or [] if isinstance(data.get("campaigns"), list) else []:
        if isinstance(camp, dict) and isinstance(camp.get("name"), str) and camp.get("id") is not None:
            for part in camp["name"].split("|"):
                part = part.strip()
                if len(part) >= 3 and not part.isdigit():
                    owners.setdefault(part, set()).add(str(camp["id"]))
    unique = {part: next(iter(ids)) for part, ids in owners.items() if len(ids) == 1}
    return NameParts(unique) if unique else None


def _describe_bounds(figure: Figure) -> str:
    low, high = figure.bounds
    if figure.approximate:
        return f"{figure.approximate}: {show_number(low, computed=True)} to {show_number(high, computed=True)}"
    return f"±{show_number(figure.half_unit, computed=True)}"


# (figure number, value, label, unit of the value, metric): a figure grounded directly, as an operand.
Operand = tuple[int, float, str, str, str]
# The unit of a value a figure of this measure stands for (an unknown figure takes its match's).
_MEASURE_UNIT = {"money": "money", "count": "count", "ratio": "ratio", "percent": "ratio", "multiplier": "ratio"}
# What a quotient and a product of two metrics are a figure of ("" when the words would not name it).
_QUOTIENTS = {("cost", "conversions"): "cpa", ("cost", "clicks"): "cpc", ("value", "cost"): "roas",
              ("clicks", "impressions"): "ctr", ("conversions", "clicks"): "cvr", ("all_conversions", "clicks"): "cvr",
              ("value", "conversions"): "value", ("cost", "cpa"): "conversions", ("value", "roas"): "cost",
              ("cost", "target"): "conversions", ("value", "target"): "cost"}
_RATES = ("cvr", "ctr", "share", "roas", "is", "lost_budget", "lost_rank", "cpa", "cpc")
_RATIO_RESULTS = ("", "share", "relative", "change", "points", "cvr", "ctr", "roas", "is", "lost_budget", "lost_rank")
_PRODUCTS = {("cvr", "clicks"): "conversions", ("roas", "cost"): "value", ("cpa", "conversions"): "cost",
             ("cpc", "clicks"): "cost", ("ctr", "impressions"): "clicks", ("is", "impressions"): "impressions"}


def _sentence_rate(figure: Figure) -> str:
    """The rate a percentage or multiplier with no metric of its own is, when its sentence names
    one rate only ("at the campaign's conversion rate ... about 3.5%")."""
    if figure.unit not in ("percent", "multiplier"):
        return ""
    rates = [m for m in figure.sentence_metrics if m in _RATES]
    return rates[0] if len(rates) == 1 else ""


def _sum_units(a: str, b: str) -> tuple[str, ...]:
    """money - money is money; money - count is nothing; a value of no known unit takes the other's."""
    if a == b or b == "other":
        return (a,)
    return (b,) if a == "other" else ()


def _sum_metric(a: str, b: str) -> str | None:
    """cost - cost is cost; clicks - cost is nothing; an unnamed metric takes the other's, and so
    does a target (CPA 36.0 against a 24.00 target: 12.00 above it)."""
    if not a or not b or a == b or "target" in (a, b):
        return b if a in ("", "target") else a
    return None


def _quotient_units(a: str, b: str) -> tuple[str, ...]:
    """What a / b may be: money per count is money (CPA, CPC, cost a day); money per money a ratio,
    or a count when the divisor is a price (cost / CPA is conversions); count per count a ratio
    (CTR) or a count (clicks a day); a value divided by a ratio keeps its unit (value / ROAS is
    cost)."""
    if "other" in (a, b):
        return ("other",)
    if a == b:
        return ("ratio",) if a == "ratio" else ("ratio", "count")
    if b == "ratio":
        return (a,)
    return ("money",) if (a, b) == ("money", "count") else ("other",)


def _quotient_metric(a: str, b: str) -> str | None:
    """What a / b is a figure of: CPA for cost / conversions and the like, a share of two figures of
    one metric, a ratio to a target, a figure a day for one over days; unknown ("") when either
    names no metric; None (no figure at all) for two metrics whose ratio means nothing (clicks /
    conversions, ROAS / CPC)."""
    if (a, b) in _QUOTIENTS:
        return _QUOTIENTS[a, b]
    if not a or not b:
        return ""
    if a == b:
        return "share"
    if "target" in (a, b):
        return "relative"
    return a if b == "days" else None


def _product_metric(a: str, b: str) -> str | None:
    """What a rate times an amount is a figure of (a conversion rate times clicks: conversions;
    a share of an amount: that amount); None for two metrics whose product means nothing."""
    if (a, b) in _PRODUCTS or (b, a) in _PRODUCTS:
        return _PRODUCTS.get((a, b)) or _PRODUCTS.get((b, a))
    if a in ("share", ""):
        return b
    return a if b in ("share", "") else None




def _sentence_span(text: str, position: int) -> tuple[int, int]:
    begin, end = 0, len(text)
    for m in SENTENCE_END.finditer(text):
        if m.end() <= position:
            begin = m.end()
        else:
            end = m.end()
            break
    return begin, end


def _sentence_numbers(texts: dict[str, str], found: list[tuple[str, Figure]]) -> list[tuple[str, int]]:
    """(field, sentence number) of each figure."""
    ends = {name: [m.start() for m in SENTENCE_END.finditer(text)] for name, text in texts.items() if isinstance(text, str)}
    return [(name, bisect.bisect_left(ends[name], figure.start)) for name, figure in found]


_SUMMARY_FIELD = "claim"  # a claim sums up the evidence: its figures may combine any two of the finding's


def _nearby(sentences: list[tuple[str, int]], found: list[tuple[str, Figure]], texts: dict[str, str], n: int, k: int) -> bool:
    """Is figure ``k`` an operand figure ``n`` may be computed from: written before it, in its
    sentence or the one before, in the same field (a figure computed from others follows them),
    or right after it as what it is a share of ("about 71% of the campaign's 4,746.58", "76%
    (612.31 of 805.00)", "2.65x the 45.00 target")?"""
    (field_n, at_n), (field_k, at_k) = sentences[n], sentences[k]
    if field_n != field_k or not at_n - 1 <= at_k <= at_n:
        return False
    if k < n:
        return True
    between = texts[field_n][found[n][1].end:found[k][1].start]
    return bool(_OF_WHAT.match(between))


_OF_WHAT = re.compile(r"(?i)^\s*(?:(?:the\s+|its\s+|their\s+|a\s+)?(?:[a-z_]+\s+){0,3}of\s+(?:the\s+|its\s+|their\s+|a\s+)?"
                      r"(?:[\w-]+['\u2019]s?\s+|[a-z_]+\s+){0,3}|\((?:[^()]{0,60}?:\s*)?(?:[\d.,]+\s+of\s+)?|the\s+|its\s+)$")


def _arithmetic(
    figure: Figure, operands: list[Operand], own: int, units: dict[int, str], chance: bool = False,
    near_operands: list[Operand] | None = None, figures: dict[int, Figure] | None = None, summary: bool = False,
    single_only: bool = False, month_days: int | None = None,
) -> tuple[str, tuple[int, ...]] | None:
    """(the reason a figure follows from one or two figures grounded in the same finding, the
    numbers of those figures).

    From two: their difference, sum, ratio or percent change (and, when one
    of them is a rate, a percentage or a multiplier, their product: "4,598
    clicks at 5.25% is 242 expected"); with ``chance`` (the finding speaks of a
    chance, Poisson or standard deviations), the Poisson chance of at most the
    one when the other is expected, and how many standard deviations apart they
    are. From one: the same figure printed less precisely, or the same money
    read out of micros (divided or multiplied by a million). Units and metrics
    are kept: a result grounds only a figure whose measure accepts the result's
    unit (money - money is money, money / count is money, count / count is a
    ratio, which only a percentage, a multiplier or a figure of unknown measure
    may be) and whose words do not name another metric (cost / conversions is
    a CPA, not clicks). Two figures combine only when both are in the figure's
    sentence or the one before it (``near_operands``); a quotient is of two
    amounts (never of a percentage or a multiplier), a percent change of two
    figures of one metric.
    """
    near_operands = operands if near_operands is None else near_operands
    target, tolerance = figure.center, figure.tolerance
    accepts = ACCEPTS[figure.measure] + (("other",) if figure.measure in ("percent", "multiplier") else ())

    def near(value: float) -> bool:
        return abs(value - target) <= tolerance

    def fits(unit_choices: tuple[str, ...], metric: str | None) -> bool:
        if metric is None or not any(u in accepts for u in unit_choices):
            return False
        if figure.unit in ("percent", "multiplier") and metric not in _RATIO_RESULTS:
            return False  # a percentage is a share, a rate, a change or a ratio to a target, never a CPA
        return metric_accepts(figure.metric, metric)

    for na, a, la, ua, ma in operands:
        if na == own or ua not in accepts or not metric_accepts(figure.metric, ma):
            continue
        other = figures.get(na) if figures else None
        same_kind = other is None or (other.per_day == figure.per_day and other.expected == figure.expected
                                      and _written_unit(other) == _written_unit(figure))
        if abs(a - abs(figure.value)) <= figure.half_unit + 1e-9 * max(1.0, a) and same_kind and (
                summary or other is None or other.half_unit < figure.half_unit):
            # "ROAS 14.45" in the evidence, "14.5" in the claim; a claim may repeat the evidence's figure
            return f"the same figure as {la} in this finding, rounded", (na,)
        if summary and figure.below and 0.8 * abs(figure.value) <= a < abs(figure.value) and ua in accepts:
            return f"{la} in this finding is below it", (na,)  # "spending under 80% of them"
        if figure.at_most and figure.decimals == 0 and math.floor(a + 1e-9) == abs(figure.value):
            return f"the whole count at most {la} in this finding", (na,)  # "8.98 conversions ... 8 or fewer"
        if figure.measure != "percent" and ua in ("money", "other"):
            for value, how in ((a / 1e6, f"{la} read as micros"), (a * 1e6, f"{la} in micros")):
                if near(value):
                    return f"arithmetic in this finding: {how} = {show_number(value, computed=True)}", (na,)
    if single_only:
        return None
    for i, (na, a, la, ua, ma) in enumerate(near_operands):
        for nb, b, lb, ub, mb in near_operands[i + 1:]:
            if na in (nb, own) or nb == own:
                continue
            if (ma == "days") != (mb == "days") and not ((figure.per_day or figure.per_days) and mb == "days"):
                continue  # "60-day lookback" is no operand of a count; a figure a day may be one over days
            same, same_metric = _sum_units(ua, ub), _sum_metric(ma, mb)
            results: list[tuple[float, str, tuple[str, ...], str | None]] = [
                (abs(a - b), f"{la} - {lb}", same, same_metric), (a + b, f"{la} + {lb}", same, same_metric)]
            # a plain ratio ("ROAS 5.3") divides like an amount: target 9.0 is 1.7x it
            amounts = not ({units.get(na), units.get(nb)} & {"percent", "multiplier"}) or (
                {ma, mb} & {"roas", "target"} and not ({units.get(na), units.get(nb)} & {"percent"}))
            if b and amounts:
                results.append((a / b, f"{la} / {lb}", _quotient_units(ua, ub), _quotient_metric(ma, mb)))
                if mb == "target" and ma != "target":  # 411.46 / 45.00: conversions at target, or 9.1x the target
                    results.append((a / b, f"{la} / {lb}", ("ratio",), "relative"))
                if figure.per_days and mb == "days" and (figure.per_days > 0 or month_days):
                    # "6.86 conversions over 21 days, about 10 per 30 days" (or "a month")
                    over = figure.per_days if figure.per_days > 0 else month_days or 0
                    results.append((a / b * over, f"{la} / {lb} x {over}", (ua,), ma))
            if a and amounts:
                results.append((b / a, f"{lb} / {la}", _quotient_units(ub, ua), _quotient_metric(mb, ma)))
            if figure.measure == "percent":
                results = [(r * 100.0, f"{how} as a percentage", unit, m) for r, how, unit, m in results if "/" in how]
                results.append((abs(a - b), f"{la} - {lb} (points)", same, "points"))
                # a change is between two figures of one metric of like size ("from 24.49 to 48.45")
                change = ("ratio",) if same and same_metric is not None and min(a, b) * 3 >= max(a, b) else ()
                if b:
                    results.append((abs(a - b) / b * 100.0, f"change from {lb} to {la}", change, "change"))
                if a:
                    results.append((abs(a - b) / a * 100.0, f"change from {la} to {lb}", change, "change"))
            elif figure.measure == "multiplier":
                results = [(r, how, unit, m) for r, how, unit, m in results if "/" in how]
            else:
                for rate_n, rate, count, count_unit, rate_metric, count_metric in (
                        (na, a, b, ub, ma, mb), (nb, b, a, ua, mb, ma)):
                    if rate_metric not in _RATES:
                        continue  # "202.97 x 108%": a product only of a rate its words name
                    if units.get(rate_n) == "percent":
                        results.append((rate * count / 100.0, f"{la} x {lb}", (count_unit,), _product_metric(rate_metric, count_metric)))
                    elif units.get(rate_n) == "multiplier":
                        results.append((rate * count, f"{la} x {lb}", (count_unit,), _product_metric(rate_metric, count_metric)))
            if chance and ua in ("count", "other") and ub in ("count", "other"):
                results += _chances(a, b, la, lb, figure, _expected_of(figures, na, nb))
            if summary and figure.unit in ("percent", "multiplier"):
                # a claim's share or change of two figures is the evidence's own, rounded; only a
                # ratio to a target ("9.1x the target") it may work out itself
                results = [r for r in results if r[3] == "relative" or (figure.metric == "relative" and r[3] == "share")]
            for value, how, result_units, metric in results:
                if near(value) and fits(result_units, metric):
                    return f"arithmetic in this finding: {how} = {show_number(value, computed=True)}", (na, nb)
    return None


def _chance(figure: Figure, operands: list[Operand], own: int, figures: dict[int, Figure] | None = None,
            ) -> tuple[str, tuple[int, ...]] | None:
    """A Poisson chance or z of two counts of the finding, one of which may itself be computed."""
    target, tolerance = figure.center, figure.tolerance
    for i, (na, a, la, ua, ma) in enumerate(operands):
        for nb, b, lb, ub, mb in operands[i + 1:]:
            if own in (na, nb) or na == nb or ua not in ("count", "other") or ub not in ("count", "other") or "days" in (ma, mb):
                continue
            for value, how, _, _ in _chances(a, b, la, lb, figure, _expected_of(figures, na, nb)):
                if abs(value - target) <= tolerance or (figure.below and value < abs(figure.value)):
                    return f"arithmetic in this finding: {how} = {show_number(value, computed=True)}", (na, nb)
    return None


def _written_unit(figure: Figure) -> str:
    return "plain" if figure.unit == "money" else figure.unit


def _expected_of(figures: dict[int, Figure] | None, na: int, nb: int) -> tuple[bool, bool]:
    """Which of two operands its words call expected (both may be, when nothing says)."""
    if not figures or na not in figures or nb not in figures:
        return True, True
    return figures[na].expected, figures[nb].expected


def _chances(a: float, b: float, la: str, lb: str, figure: Figure, expected: tuple[bool, bool] = (True, True),
             ) -> list[tuple[float, str, tuple[str, ...], str | None]]:
    """The Poisson chance of at most one count when the other, a count its words call expected, is
    expected (the reference auditor's ``poisson_at_most``), and (a - b) / sqrt(b), each way round."""
    out: list[tuple[float, str, tuple[str, ...], str | None]] = []
    for observed, due, lo, le, is_expected in ((a, b, la, lb, expected[1]), (b, a, lb, la, expected[0])):
        expected_count = due
        if not is_expected or expected_count <= 0 or observed > expected_count:
            continue
        p = poisson_at_most(observed, expected_count)
        out.append((p * 100.0 if figure.measure == "percent" else p, f"Poisson chance of at most {lo} when {le} are expected",
                    ("ratio", "other"), ""))
        out.append((abs(poisson_z(observed, expected_count)), f"({lo} - {le}) / sqrt({le})", ("ratio", "other", "count"), ""))
    return out


_PLATFORMS = {"google": "google", "meta": "meta", "facebook": "meta", "instagram": "meta"}
_PLATFORM_NAME = re.compile(r"(?i)\b(?P<platform>google|meta|facebook|instagram)(?:\s+ads)?(?P<possessive>['\u2019]s)?\b")
_RULE_WORD = re.compile(
    r"(?i)\b(?:allows?|allowed|allowance|lets?|permits?|may|can|up\s+to|caps?|capped|limits?|maximum|max|rule|"
    r"overdeliver\w*|over-deliver\w*)\b")
_PLATFORM_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")


@functools.lru_cache(maxsize=1)
def platform_constants() -> dict[str, tuple[float, ...]]:
    """Each platform's most a day may spend, as multiples of the daily budget, from the taxonomy
    (``pacing.daily_cap_exceeded`` thresholds): every number under a key that names the platform
    (``google_multiple: 2.0``, ``meta_multiple: 1.25``), so a multiple that changed on a date and
    is listed with its dates grounds in either form."""
    kind = taxonomy.kinds().get("pacing.daily_cap_exceeded")
    found: dict[str, set[float]] = {}

    def walk(node: Any, platform: str | None) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                named = next((p for word, p in _PLATFORMS.items() if word in str(key).lower()), platform)
                walk(value, named)
        elif isinstance(node, list):
            for value in node:
                walk(value, platform)
        elif platform and isinstance(node, (int, float)) and not isinstance(node, bool) and node > 1:
            found.setdefault(platform, set()).add(float(node))

    walk(kind.thresholds if kind else {}, None)
    return {platform: tuple(sorted(values)) for platform, values in found.items()}


def _platform_constant(figure: Figure, text: str) -> tuple[float, str, tuple, str] | None:
    """A multiplier or percentage that is a platform's daily multiple ("Google allows up to 2x the
    daily budget", "Meta's 1.25x", "up to 25% above it"), grounded only where its sentence
    names the platform's rule."""
    if figure.measure not in ("multiplier", "percent") or _PLATFORM_NAME.search(text) is None:
        return None
    begin = 0
    for end in _PLATFORM_SENTENCE_END.finditer(text):
        if end.start() >= figure.start:
            sentence = text[begin:end.start()]
            break
        begin = end.end()
    else:
        sentence = text[begin:]
    constants = platform_constants()
    names_rule = _RULE_WORD.search(sentence) is not None
    for rule in _PLATFORM_NAME.finditer(sentence):
        if not (names_rule or rule.group("possessive")):
            continue
        platform = _PLATFORMS[rule.group("platform").lower()]
        for multiple in constants.get(platform, ()):
            forms = [(multiple, f"{multiple:g}x")] if figure.measure == "multiplier" else [
                (multiple * 100.0, f"{multiple * 100.0:g}% of the daily budget"),
                ((multiple - 1.0) * 100.0, f"{(multiple - 1.0) * 100.0:g}% above the daily budget")]
            for value, form in forms:
                if abs(value - figure.center) <= figure.tolerance:
                    name = "Google" if platform == "google" else "Meta"
                    return (value, f"platform constant: {name} lets a day spend up to {form} "
                                   f"(taxonomy: pacing.daily_cap_exceeded thresholds)", (), "ratio")
    return None


class _Collector:
    """Walks a snapshot (but its daily rows) for every number (values and numbers inside strings),
    every name with digits and every id. A number inside an item about one campaign (one with a
    ``campaign_id``, or the campaign's own entry) is kept apart for that campaign, with the item's
    date, and grounds only a finding that names the campaign; the rest are the account's. Numbers
    under a ratio-like key (``search_impression_share``, ``pacing_tolerance``, ``target_roas``)
    are ratios too; numbers under a percent key, or followed by ``%`` inside a string, are
    already in percent."""

    def __init__(self) -> None:
        self.by_unit: dict[str, dict[float, Source]] = {unit: {} for unit in VALUE_UNITS}  # the account's, by unit
        self.in_percent: dict[float, Source] = {}
        # campaign -> its values, their dates and what a finding must name for them to count
        self.scoped: dict[str, list[tuple[Entry, date | None, str | None]]] = {}
        self.names: set[str] = set()
        self.ids: set[str] = set()
        self._texts: dict[str, list[tuple[float, bool]]] = {}

    def walk(self, node: Any, path: tuple, campaign: str | None = None, day: date | None = None,
             named: str | None = None) -> None:
        """``campaign``, ``day``: the item being walked is about that campaign, on that day;
        ``named``: what a finding must name for the item's values to count (a search term, an ad)."""
        is_dict = isinstance(node, dict)
        key: Any  # a str in an object, an int in a list
        for key, value in (node.items() if is_dict else enumerate(node)):
            kind = type(value)
            if kind is float or kind is int:
                magnitude = float(value if value >= 0 else -value) if -1e300 < value < 1e300 else _INF
                if magnitude == _INF:  # (nan fails the range test above)
                    if is_dict and kind is float and value == value and _is_id_key(key):
                        self.ids.add(str(value))  # an id of 1e308 is quoted as "1e+308": an identifier, not the figure 308
                    continue
                if is_dict and kind is int and _is_id_key(key):
                    self.ids.add(str(value))
                    continue
                field = node.get("changed_field") if is_dict and key in _CHANGE_VALUES else None
                self._add(magnitude, key if is_dict else None, (path, key), campaign, day, named=named,
                          metric=value_metric(str(field)) if isinstance(field, str) else None)
            elif kind is str:
                if is_dict and _is_id_key(key):
                    self.ids.add(value)
                    continue
                as_number = number(value) if is_dict and _HAS_DIGIT.search(value) else None
                if as_number is not None:  # "12,5": a numeric string counts as its number, as every reader reads it
                    self._add(abs(as_number), key, (path, key), campaign, day, named=named)
                    continue
                numbers = self._texts.get(value)
                if numbers is None:
                    numbers = self._texts[value] = self._numbers_in(value)
                for number_in_text, percent in numbers:
                    self._add(number_in_text, None, (path, key, value), campaign, day, percent, named)
            elif kind is dict or kind is list:
                if is_dict and kind is list and _is_id_key(key):
                    self.ids.update(str(v) for v in value if type(v) in (str, int))
                if not path and key == _DAILY:
                    self._daily_ids(value)
                    continue
                child_campaign, child_day, child_named = campaign, day, named
                if kind is dict:
                    child_campaign, child_day = _context(value, path, campaign, day)
                    child_named = _name_of(value, path) or named
                self.walk(value, path + (key,), child_campaign, child_day, child_named)

    def _add(self, magnitude: float, key: Any, source: Source, campaign: str | None, day: date | None,
             percent: bool = False, named: str | None = None, metric: str | None = None) -> None:
        unit = _key_unit(key) if key is not None else "other"
        if campaign is not None:
            if metric is None:
                metric = value_metric(str(key)) if key is not None else ""
            entries = self.scoped.setdefault(campaign, [])
            entries.append(((magnitude, unit, metric, "snapshot", source), day, named))
            if percent or (key is not None and unit == "ratio" and _PERCENT_KEY.search(key)):
                entries.append(((magnitude, "ratio", "", "percent", source), day, named))
            return
        values = self.by_unit[unit]
        if magnitude not in values:
            values[magnitude] = source
        if percent or (key is not None and unit == "ratio" and _PERCENT_KEY.search(key)):
            self.in_percent.setdefault(magnitude, source)

    def _daily_ids(self, rows: Any) -> None:
        """The daily rows' campaign ids, and the texts with digits in their metric fields (a
        finding quoting "clicks is the text '[1]'" quotes a name, not a figure)."""
        if not isinstance(rows, list):
            return
        for row in rows:
            if isinstance(row, dict):
                cid = row.get("campaign_id")
                if cid is not None:
                    self.ids.add(str(cid))
                # most rows hold no text but their date and campaign: their values need no look
                if list(map(type, row.values())).count(str) == (type(row.get("date")) is str) + (type(cid) is str):
                    continue
                for key, value in row.items():
                    if type(value) is str and key not in ("date", "campaign_id") and _HAS_DIGIT.search(value) \
                            and number(value) is None and not is_date_or_time(value):
                        self.names.add(value)

    def _numbers_in(self, text: str) -> list[tuple[float, bool]]:
        # A date's parts are not figures (the day of month would ground every small number), and
        # a name's digits name ("ACCT-14", "Search | DE 2025"): only a sentence states numbers
        # ("target CPA raised to 52.50").
        if not _HAS_DIGIT.search(text) or is_date_or_time(text):
            return []
        self.names.add(text)
        if not _SENTENCE_TEXT.search(text):
            return []
        return [(float(m.group().replace(",", "")), text[m.end():m.end() + 1] == "%")
                for m in _NUMBER_IN_TEXT.finditer(text)]


def _context(item: dict[str, Any], path: tuple, campaign: str | None, day: date | None) -> tuple[str | None, date | None]:
    """The campaign and day an object of the snapshot is about, from its own fields (or its parent's)."""
    section = path[0] if path else None
    if section in _ACCOUNT_SECTIONS:
        return None, None
    cid = item.get("campaign_id")
    if cid is None and section == "campaigns" and len(path) == 1:
        cid = item.get("id")
    if cid is not None and not isinstance(cid, (dict, list)):
        campaign = str(cid)
    for key in _DATE_KEYS:
        found = parse_day(item.get(key))
        if found is not None:
            return campaign, found
    return campaign, day


# Items a finding quotes by name: a search term's values count when the finding names the term,
# an ad's when it names the ad (the campaign's other terms and ads are not what it speaks of).
_NAMED_ITEMS = {"search_terms": "search_term", "ads": "ad_id"}


_AD_PREFIX = "\0ad "  # an ad's values count when the finding names the ad, or speaks of its campaign's ads
_ADS = re.compile(r"\bads?\b")


def _name_of(item: dict[str, Any], path: tuple) -> str | None:
    key = _NAMED_ITEMS.get(path[0]) if len(path) == 1 else None
    name = item.get(key) if key else None
    if name is None or isinstance(name, (dict, list)):
        return None
    return (_AD_PREFIX if path[0] == "ads" else "") + str(name).lower()


def _key_unit(key: Any, _known: dict[str, str] = {}) -> str:  # noqa: B006 - deliberate memo
    """The unit of a snapshot field by its key: ``ratio`` (shares, rates, CTR/CVR, ROAS, tolerances),
    ``money`` (cost, budgets and amounts, conversion value, CPA, CPC, micros), ``count`` (clicks,
    impressions, conversions, rows, days) or ``other``."""
    answer = _known.get(key)
    if answer is None:
        answer = "other"
        if isinstance(key, str):
            if _RATIO_KEY.search(key):
                answer = "ratio"
            elif _MONEY_KEY.search(key):
                answer = "money"
            elif _COUNT_KEY.search(key):
                answer = "count"
        if len(_known) < 10_000:
            _known[key] = answer
    return answer


def _is_id_key(key: Any, _known: dict[str, bool] = {}) -> bool:  # noqa: B006 - deliberate memo
    """``id``, ``campaign_id``, ``campaign_ids``...: keys whose values name things."""
    answer = _known.get(key)
    if answer is None:
        answer = key == "id" or (isinstance(key, str) and key.endswith(("_id", "_ids")))
        if len(_known) < 10_000:
            _known[key] = answer
    return answer


def _period_days(data: dict[str, Any]) -> int | None:
    period = data.get("period") if isinstance(data, dict) else None
    if not isinstance(period, dict):
        return None
    days = number(period.get("days_in_month"))
    if days:
        return int(days)
    start, end = parse_day(period.get("start")), parse_day(period.get("end"))
    if start and end and end >= start:
        return (end - start).days + 1
    return None


def verdicts_for_text(text: str, snapshot: Any, *, mode: str = "derived") -> list[FigureVerdict]:
    """Verdicts for the figures of one text (a claim, an evidence line) against a ``Snapshot``."""
    return GroundingIndex.for_snapshot(snapshot, mode).check_texts({"text": text})
