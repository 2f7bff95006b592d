"""A platform export read as an account snapshot without flags, for the weekly run.

``reviewtui import`` takes its format and settings from the command line; the
weekly run meets files in a folder. A ``.csv`` file that has the Meta Ads
Manager or the Google Ads layout is imported with the importer's defaults (the
period and as_of from the data, a closed period); a file that has neither is
not an export (None); an export the defaults cannot read truthfully (ambiguous
dates, no currency, lifetime rows) is an error naming the file, the place and
the ``reviewtui import`` flags that settle it.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..caseset.snapshot import Snapshot, SnapshotError
from .build import Settings, build
from .csvread import InputError
from .rows import LayoutError

FORMATS = {"meta": "meta_ads", "google": "google_ads"}


def snapshot_from_export(path: Path) -> Snapshot | None:
    if not (path.is_file() and path.suffix.lower() == ".csv"):
        return None
    from . import google, meta

    for fmt, module in (("meta", meta), ("google", google)):
        try:
            rows = module.read(path)
            data = build([rows], Settings(platform=FORMATS[fmt], format=fmt)).snapshot
        except LayoutError:
            continue
        except InputError as exc:
            where = f"column {exc.column!r}: " if exc.column else ""
            raise SnapshotError(exc.path, exc.line, f"{where}{exc.message} (read as a {fmt} export; or convert it "
                                f"with `reviewtui import --format {fmt}` and its flags)") from None
        return Snapshot(path, data, json.dumps(data, indent=1, ensure_ascii=False))
    return None
