"""Any CSV with a mapping file (``--mapping``): which column holds which field.

The mapping is YAML::

    platform: meta_ads          # or google_ads
    columns:                    # field: the CSV's header text
      date: reporting_start
      reporting_end: reporting_end
      campaign_id: campaign_id
      ad_set_id: fb_campaign_id
      ad_id: ad_id
      impressions: impressions
      clicks: clicks
      cost: spent
      conversions: approved_conversion
    date_format: DD/MM/YYYY     # optional; required when the dates read both ways
    currency: USD               # or a ``currency`` column
    account: {id: act_123, name: My account, time_zone: Europe/Berlin}   # optional
    missing_row_means: no_delivery   # optional: a campaign and day without a row did not deliver

Fields: see ``FIELDS``. ``date`` (or ``reporting_start`` with ``reporting_end``),
``campaign_id`` or ``campaign_name``, and ``cost`` are required.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from ..caseset.account_codes import currency_code_problem, time_zone_problem
from .csvread import InputError, Progress, open_export
from .dates import DATE_FORMATS
from .rows import DATE_FIELDS, NUMBER_FIELDS, TEXT_FIELDS, FileRows, Layout, ReadOptions, read_export

FIELDS = DATE_FIELDS + TEXT_FIELDS + NUMBER_FIELDS
PLATFORMS = ("meta_ads", "google_ads")


@dataclass
class Mapping:
    path: Path
    columns: dict[str, str]
    lines: dict[str, int]
    platform: str
    date_format: str | None = None
    currency: str | None = None
    account: dict[str, str] = field(default_factory=dict)
    currency_line: int = 1
    missing_row_means: str | None = None

    def layout(self) -> Layout:
        return Layout(name=f"mapped ({self.path.name})", aliases={f: (c,) for f, c in self.columns.items()},
                      lifetime_fix=f"name the day column as 'date' in {self.path.name}",
                      add_column=f"name its column under 'columns:' in {self.path.name}")


def _line(node: Any, key: str) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError):
        return 1


def load_mapping(path: str | Path) -> Mapping:
    path = Path(path)
    try:
        data = YAML(typ="rt").load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, 1, "mapping file not found") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(path, (mark.line + 1) if mark else 1, f"not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("columns"), dict):
        raise InputError(path, 1, "the mapping needs a 'columns:' section naming the CSV column of each field")
    cols = data["columns"]
    for name in cols:
        if name not in FIELDS:
            raise InputError(path, _line(cols, name), f"unknown field {name!r}; the fields are: {', '.join(FIELDS)}")
        if not isinstance(cols[name], str) or not cols[name].strip():
            raise InputError(path, _line(cols, name), f"field {name!r} must name a CSV column (a header text)")
    platform = data.get("platform")
    if platform not in PLATFORMS:
        raise InputError(path, _line(data, "platform"), f"'platform' must be one of {', '.join(PLATFORMS)}")
    fmt = data.get("date_format")
    if fmt is not None and fmt not in DATE_FORMATS:
        raise InputError(path, _line(data, "date_format"), f"date_format {fmt!r} is not one of: {', '.join(DATE_FORMATS)}")
    account = data.get("account") or {}
    if not isinstance(account, dict):
        raise InputError(path, _line(data, "account"), "'account' must be a mapping with id, name, time_zone")
    currency = data.get("currency")
    if currency is not None and (problem := currency_code_problem(str(currency).strip().upper())):
        raise InputError(path, _line(data, "currency"), f"'currency': {problem}")
    if "time_zone" in account and (problem := time_zone_problem(str(account["time_zone"]))):
        raise InputError(path, _line(data, "account"), f"'account.time_zone': {problem}")
    missing = data.get("missing_row_means")
    if missing is not None and missing != "no_delivery":
        raise InputError(path, _line(data, "missing_row_means"), "'missing_row_means' is no_delivery (a campaign "
                         "and day without a row did not deliver) or left out (unknown)")
    return Mapping(path, {k: str(v).strip() for k, v in cols.items()}, {k: _line(cols, k) for k in cols},
                   platform, fmt, currency, {k: str(v) for k, v in account.items()}, _line(data, "currency"), missing)


def read(path: Path, mapping: Mapping, options: ReadOptions | None = None,
         progress: Progress | None = None) -> FileRows:
    wanted = {c.lower() for c in mapping.columns.values()}
    export = open_export(path, lambda cells: wanted <= {c.lower() for c in cells}, progress)
    if not export.header:
        found = export.preamble[0][1] if export.preamble else []
        present = {c.strip().lower() for c in found}
        for fname, column in mapping.columns.items():
            if column.lower() not in present:
                raise InputError(mapping.path, mapping.lines[fname],
                                 f"field {fname!r} names the column {column!r}, which {path.name} does not have "
                                 f"(its header, line 1: {', '.join(repr(c.strip()) for c in found)}); fix the mapping")
    options = options or ReadOptions()
    if options.date_format is None and mapping.date_format:
        options = dataclasses.replace(options, date_format=mapping.date_format)
    rows, _reader = read_export(export, mapping.layout(), options)
    if mapping.currency:
        rows.currency = str(mapping.currency).strip().upper()
        rows.currency_source = f"'currency' in {mapping.path}:{mapping.currency_line}"
    return rows
