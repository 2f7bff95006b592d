"""Where a path lies: inside a folder (links resolved), the repository around a folder, the project's cases.

The results must not lie in the case set (they would be read as cases, and
shipped with them), and a secret key must lie outside both and outside the
repository. The project's case set is ``cases/`` in the folder reviewtui
runs in (the default of ``--cases`` everywhere): the only case set whose
run can clear the weekly run (docs/weekly.md).
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


PROJECT_CASES = Path("cases")


def project_cases_dir() -> Path:
    """The project's case set: ``cases/`` in the working folder, resolved."""
    return PROJECT_CASES.resolve()


def is_project_cases(folder: Path | str) -> bool:
    """Whether ``folder`` is the project's case set (links resolved)."""
    return Path(folder).resolve() == project_cases_dir()
