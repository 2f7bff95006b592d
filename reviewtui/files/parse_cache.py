"""A cache of parsed expected.yaml trees, so a run starts without re-parsing fifty files.

ruamel.yaml's round-trip parser (kept for comments and line numbers) takes
about 12 ms an expected.yaml, over half a second for the case set before the
first request of a run. The parsed tree is kept as a pickle named by the
SHA-256 of the file's bytes and the ruamel.yaml and Python versions, so an
edited file, or another parser, misses and is parsed again; a tree read
back is the same object the parser builds (comments, key order, line
numbers), and a fresh copy each time.

The folder is ``$REVIEWTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/reviewtui``,
else ``~/.cache/reviewtui``, under ``expected/``; safe to delete. Other
results computed from files' bytes use the same store in their own folder
(the validation memo, the reference auditor's audits, the scores: the list is
in docs/formats.md); those that follow from this package's code too are
salted with ``package_digest``. It holds only
what this code wrote for the user's own files (pickles are code: the folder
is as trusted as the user's home). A read or write that fails is ignored:
the file is parsed as without the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import ruamel.yaml

FORMAT = 1


def cache_dir(folder: str = "expected") -> Path:
    base = os.environ.get("REVIEWTUI_CACHE_DIR")
    if base:
        return Path(base) / folder
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg or Path.home() / ".cache") / "reviewtui" / folder


def _path(raw: bytes, salt: str, folder: str = "expected") -> Path:
    """Named by the bytes, the parser and the caller's ``salt`` (the limits the bytes were checked against)."""
    prefix = f"{FORMAT}|{ruamel.yaml.__version__}|{sys.version_info[:2]}|{salt}|".encode()
    return cache_dir(folder) / f"{hashlib.sha256(prefix + raw).hexdigest()}.pickle"


def load(raw: bytes, salt: str = "", folder: str = "expected") -> Any | None:
    try:
        with _path(raw, salt, folder).open("rb") as fh:
            return pickle.load(fh)
    except Exception:  # a miss, or an entry that cannot be read back: parse instead
        return None


def store(raw: bytes, tree: Any, salt: str = "", folder: str = "expected") -> None:
    path = _path(raw, salt, folder)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
    except Exception:
        tmp.unlink(missing_ok=True)


def sources_digest(package: Path) -> str | None:
    """SHA-256 over the names and bytes of a package's .py and .yaml files, its ``tui`` folder left out
    (the app never changes an audit or a validation); None when one cannot be read."""
    digest = hashlib.sha256()
    try:
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package)
            if path.suffix in (".py", ".yaml") and relative.parts[0] != "tui":
                digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


@lru_cache(maxsize=1)
def package_digest() -> str | None:
    """``sources_digest`` of this package, once a process: the salt of what is kept for results its code
    computes (the audits, the validation's memo), so an edited checkout computes them again."""
    return sources_digest(Path(__file__).resolve().parents[1])
