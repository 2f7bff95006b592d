"""The reference auditor on accounts it was not tuned on: the case catalogue redrawn with other seeds.

The auditor's thresholds were checked against the shipped fifty, so its score there flatters it. This
script redraws every case spec of ``tools/snapgen`` with new seeds (same planted scenarios, different
noise, campaigns and ids) into a temporary folder, keeps the generator's drafted expected entries as the
truth (no senior edits), runs ``reviewtui eval --backend rules`` on them through the real CLI, and prints
the summary. Nothing is written inside the repository.

    python benchmarks/auditor_heldout.py [--offsets 1000 2000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.snapgen.build import generate  # noqa: E402
from tools.snapgen.catalogue import CASES  # noqa: E402
from tools.snapgen.output import write_case  # noqa: E402


def redraw(root: Path, offset: int) -> list[str]:
    """Write every spec redrawn with ``seed + offset`` as ``<case>-s<offset>``; returns the skipped ones."""
    skipped = []
    for spec in CASES:
        case_id = f"{spec.case_id}-s{offset}"
        # A write-up case's source is a file the redraw does not have; the case stands alone here.
        redrawn = dataclasses.replace(spec, case_id=case_id, seed=spec.seed + offset, wu=None)
        try:
            gen = generate(redrawn)
        except (ValueError, KeyError, LookupError) as exc:  # a scenario that did not plant with this seed
            skipped.append(f"{case_id}: {exc}")
            continue
        write_case(root / "cases" / case_id, gen.snapshot_text, gen.expected_text())
    return skipped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offsets", type=int, nargs="+", default=[1000])
    parser.add_argument("--keep", help="write the redrawn cases and results here instead of a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        skipped = []
        for offset in args.offsets:
            skipped += redraw(root, offset)
        for line in skipped:
            print(f"skipped {line}", file=sys.stderr)
        env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
        done = subprocess.run(
            [sys.executable, "-m", "reviewtui.commands.eval", "--backend", "rules", "--cases", str(root / "cases"),
             "--results-dir", str(root / "results")],
            cwd=root, env=env, capture_output=True, text=True,
        )
        print(done.stdout)
        if done.returncode not in (0, 1):
            print(done.stderr, file=sys.stderr)
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
