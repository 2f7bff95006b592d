"""Where a path lies: inside a folder (links resolved), and the repository around a folder.

The results must not lie in the case set (they would be read as cases, and
shipped with them), and a secret key must lie outside both and outside the
repository.
"""

from __future__ import annotations

from pathlib import Path


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (resolved) is ``folder`` or lies under it."""
    resolved, root = Path(path).resolve(), Path(folder).resolve()
    return resolved == root or root in resolved.parents


def repository_root(start: Path) -> Path | None:
    """The git work tree ``start`` lies in (the nearest folder above it with a ``.git``), if any."""
    for folder in (Path(start).resolve(), *Path(start).resolve().parents):
        if (folder / ".git").exists():
            return folder
    return None
