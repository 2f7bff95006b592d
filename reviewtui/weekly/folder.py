"""A weekly run's folder: where its files go.

Below both the run (``run.py``, which writes the folder) and its readable reports
(``reports.py``, which write the index), so neither imports the other; the statuses each
account ends with are typed with the records in ``results.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runs.identity import WEEKLY_DIR

WEEKLY_FILE = "weekly.json"
REVIEWED_FILE = "reviewed.json"


@dataclass(frozen=True)
class WeeklyPaths:
    run_dir: Path

    @property
    def manifest(self) -> Path:
        return self.run_dir / WEEKLY_FILE

    @property
    def index_csv(self) -> Path:
        return self.run_dir / "index.csv"

    @property
    def index_md(self) -> Path:
        return self.run_dir / "index.md"

    @property
    def reviewed(self) -> Path:
        return self.run_dir / REVIEWED_FILE

    def account_dir(self, name: str) -> Path:
        return self.run_dir / "accounts" / name

    def raw(self, name: str) -> Path:
        return self.account_dir(name) / "raw.txt"

    def findings(self, name: str) -> Path:
        return self.account_dir(name) / "findings.json"

    def report(self, name: str) -> Path:
        return self.account_dir(name) / "report.md"


    @classmethod
    def choose(cls, results_dir: str | Path, day: str, accounts_dir: str | Path) -> "WeeklyPaths":
        """The folder of a run of ``accounts_dir`` on ``day``: the day's, or the first ``<day>-N`` that is free
        or holds a run of the same accounts folder (which the new run replaces when it ends)."""
        root = Path(results_dir) / WEEKLY_DIR
        source = str(Path(accounts_dir).resolve())
        for n in range(1, 1000):
            paths = cls(root / (day if n == 1 else f"{day}-{n}"))
            if not (paths.run_dir.exists() or paths.run_dir.is_symlink()):
                return paths
            try:
                if read_json(paths.manifest).get("accounts_dir") == source:
                    return paths
            except (OSError, ValueError, AttributeError):
                pass  # unreadable: not ours to replace
        raise ValueError(f"{root}: a thousand weekly runs on {day} already; move some away")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
