"""Backends behind one interface (``base.Backend``), created by name.

Imports are lazy: the anthropic SDK costs about a second to import, so it is
loaded only when the ``claude`` backend is asked for.
"""

from __future__ import annotations

from typing import Any

from .base import Backend, BackendUsageError, CaseOutput

BACKEND_NAMES = ("claude", "rules", "replay")


def create_backend(name: str, **options: Any) -> Backend:
    """Build a backend by name. Raises BackendUsageError for bad usage (exit 2)."""
    if name == "replay":
        from .replay import ReplayBackend

        replay_dir = options.get("replay_dir")
        if not replay_dir:
            raise BackendUsageError("--backend replay needs --replay-dir DIR")
        return ReplayBackend(replay_dir)
    if name == "claude":
        from .claude import ClaudeBackend  # imports anthropic

        return ClaudeBackend(**{k: v for k, v in options.items() if k != "replay_dir"})
    if name == "rules":
        from .rules import RulesBackend

        return RulesBackend()
    raise BackendUsageError(f"unknown backend {name!r}; use one of {', '.join(BACKEND_NAMES)}")


__all__ = ["Backend", "BackendUsageError", "CaseOutput", "BACKEND_NAMES", "create_backend"]
