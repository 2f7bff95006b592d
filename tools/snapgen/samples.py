"""Sample accounts for ``reviewtui weekly`` (``examples/accounts/``): generated like the cases, from
some of their specs under other seeds, so the weekly commands of the README have accounts to run on
without anyone's real data. They are accounts, not cases: no expected.yaml, nothing scored.

    python -m tools.snapgen samples            # writes examples/accounts/<name>.json
    python -m tools.snapgen samples --verify   # the committed files regenerate byte for byte
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .build import generate, spec_for

SAMPLES_DIR = Path("examples") / "accounts"
SEED_OFFSET = 7000  # another month of each account than its case's
# (file name, the case whose spec it is drawn from); the id's digits name the account (ACCT-51, ...).
SAMPLES = [
    ("s51-outdoor-store", "c01-outdoor-retail"),
    ("s52-pet-pantry", "c20-pet-pantry"),
    ("s53-skincare-meta", "c18-skincare-brand"),
    ("s54-solar-gaps", "c35-solar-gaps"),
    ("s55-roastery", "c42-roastery-clean"),
    ("s56-language-school", "c48-language-trap"),
]


def sample_texts() -> dict[str, str]:
    """File name -> snapshot.json text of every sample account."""
    texts = {}
    for name, case_id in SAMPLES:
        spec = spec_for(case_id)
        sample = dataclasses.replace(spec, case_id=name, seed=spec.seed + SEED_OFFSET, wu=None)
        texts[f"{name}.json"] = generate(sample).snapshot_text
    return texts


def write_samples(root: Path) -> list[Path]:
    folder = root / SAMPLES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in sample_texts().items():
        path = folder / file_name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def verify_samples(root: Path) -> list[str]:
    """What differs between the committed samples and what the specs generate."""
    folder = root / SAMPLES_DIR
    problems = []
    texts = sample_texts()
    for file_name, text in texts.items():
        path = folder / file_name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            problems.append(f"{path} differs from what tools/snapgen/samples.py generates")
    extra = sorted(p.name for p in folder.glob("*") if p.name not in texts) if folder.is_dir() else []
    problems += [f"{folder / name} is no sample account of tools/snapgen/samples.py" for name in extra]
    return problems
