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
results computed from a file's bytes alone use the same store in their own
folder (the reference auditor's audits under ``audits/``). It holds only
what this code wrote for the user's own files (pickles are code: the folder
is as trusted as the user's home). A read or write that fails is ignored:
the file is parsed as without the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
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
