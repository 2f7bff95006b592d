"""The ``replay`` backend: re-score stored raw outputs, ``<case_id>.json`` each.

With ``--repeats``, repeat N (from 1) reads ``<case_id>.repeat<N>.json`` when
that file exists and ``<case_id>.json`` otherwise, so the stored answers of a
repeated run replay as they were, consistency figures included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..caseset.cases import Case
from ..files.untrusted import LimitError, Limits, inside, read_bytes_limited
from .base import Backend, BackendUsageError, CaseOutput

# A model's raw output is a few kilobytes; the limit only stops a stray huge file.
LIMITS = Limits("a replay file", max_bytes=4 << 20, max_depth=0, max_items=0, max_chars=0)


class ReplayBackend(Backend):
    name = "replay"

    def __init__(self, replay_dir: str | Path) -> None:
        self.replay_dir = Path(replay_dir)
        if not self.replay_dir.is_dir():
            raise BackendUsageError(f"--replay-dir {self.replay_dir} is not a folder of <case_id>.json outputs")
        self.model = f"replay:{self.replay_dir}"

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        path = self.replay_dir / f"{case.case_id}.repeat{repeat + 1}.json"
        if not path.exists():
            path = self.replay_dir / f"{case.case_id}.json"
        if path.is_symlink() and not inside(path, self.replay_dir):
            # A link out of the folder could copy any readable file into the results.
            return CaseOutput(case.case_id, None, error=f"refused {path}: it is a link to a file outside "
                              f"--replay-dir {self.replay_dir}; copy the output into the folder")
        try:
            text = read_bytes_limited(path, LIMITS).decode("utf-8")
        except FileNotFoundError:
            return CaseOutput(case.case_id, None, error=f"no stored output {path}")
        except (OSError, UnicodeDecodeError, LimitError) as exc:
            return CaseOutput(case.case_id, None, error=f"cannot read {path}: {exc}")
        return CaseOutput(case.case_id, text, model=self.model)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": None, "replay_dir": str(self.replay_dir)}
