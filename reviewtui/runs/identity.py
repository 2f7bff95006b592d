"""Whose results a run folder holds: the assistant's, the reference auditor's, or a replay's.

The assistant's results for a prompt version, ``<results>/<version>.csv`` and
``<results>/<version>/``, are the record the gate and the weekly run trust,
so only the Claude backend writes them. The reference auditor writes under
``<results>/reference/`` and a replay of stored outputs under
``<results>/replay/<name of the replay folder>/`` (letters, digits, ``.``, ``_`` and ``-`` of it): the same layout one level
down, so neither can replace or pass for the assistant's record. The manifest
says which in ``results_role``, and the summary, the runs view and the weekly
stamp check read it from there.

A backend handed in by a caller (the tests' scripted stand-ins for the
assistant) is not a name the command line accepts; it writes the assistant's
place, and its manifest names its backend, which the stamp check refuses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from .manifest_fields import Manifest

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

ASSISTANT = "assistant"
REFERENCE = "reference"
REPLAY = "replay"
REFERENCE_DIR = "reference"
REPLAY_DIR = "replay"
WEEKLY_DIR = "weekly"


def results_role(backend_name: str | None) -> str:
    if backend_name == "rules":
        return REFERENCE
    if backend_name == "replay":
        return REPLAY
    return ASSISTANT


def results_home(results_dir: str | Path, backend: Any) -> Path:
    """The folder that holds ``<version>.csv`` and ``<version>/`` for runs of ``backend``."""
    return results_home_of(results_dir, getattr(backend, "name", None), getattr(backend, "replay_dir", None))


def results_home_of(results_dir: str | Path, backend_name: str | None, replay_dir: str | Path | None = None) -> Path:
    """``results_home`` by the backend's name (and a replay's folder), before the backend exists."""
    results_dir = Path(results_dir)
    role = results_role(backend_name)
    if role == REFERENCE:
        return results_dir / REFERENCE_DIR
    if role == REPLAY:
        # The folder's name, reduced to characters safe in a path and on a terminal.
        name = _UNSAFE.sub("_", Path(replay_dir or "outputs").resolve().name).strip("._") or "outputs"
        return results_dir / REPLAY_DIR / name
    return results_dir


def role_of(manifest: Manifest) -> str:
    """The manifest's role; a manifest from before roles were recorded goes by its backend."""
    role = manifest.get("results_role")
    return role if role in (ASSISTANT, REFERENCE, REPLAY) else results_role(manifest.get("backend"))


def role_label(manifest: Manifest) -> str:
    """How the summary, the runs view and the weekly check name whose results these are."""
    role = role_of(manifest)
    if role == REFERENCE:
        return "reference auditor (not the assistant's results)"
    if role == REPLAY:
        where = (manifest.get("backend_details") or {}).get("replay_dir") or "stored outputs"
        return f"replay of {where} (not the assistant's results)"
    return f"assistant ({manifest.get('backend') or '?'})"
