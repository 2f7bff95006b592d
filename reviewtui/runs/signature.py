"""An optional signature on a run's record: HMAC-SHA256 under a key kept outside the repository.

For teams whose CI makes the stamp (``reviewtui eval --stamp-key FILE``) and
whose scheduler runs the weekly job (``reviewtui weekly --stamp-key FILE``):
whoever can edit ``results/`` but does not hold the key cannot change a byte
of the record the weekly run trusts, nor make one, without the weekly run
refusing it.

``<run folder>/stamp.sig`` lists the SHA-256 of ``manifest.json`` and of
every ``cases/*.json``, and the HMAC of that list. The weekly run, given the
key, hashes the files as they are and checks the list and the HMAC: a file
changed, added or removed, a list edited, or no signature at all, refuses.

The key file (hex, at least 16 bytes; ``openssl rand -hex 32 > FILE``) must
lie outside the git work tree of the case set and outside the cases and
results folders, so the repository never ships it. ``REVIEWTUI_STAMP_KEY``
names it when the flag is not given (the app's weekly gate reads it there).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

from ..files.atomic import atomic_write_text
from ..keyfile import KeyFileError, parse_hex_key
from ..paths import inside, repository_root
from .result_files import MANIFEST_FILE

SIGNATURE_FILE = "stamp.sig"
SIGNATURE_FORMAT = 1
KEY_ENV = "REVIEWTUI_STAMP_KEY"


class SignatureError(Exception):
    """A key that cannot be used (its file, its place); the message names the fix."""


def key_path(flag: str | Path | None) -> Path | None:
    """The key file: the flag's, else ``REVIEWTUI_STAMP_KEY``'s, else none."""
    value = str(flag) if flag else os.environ.get(KEY_ENV, "").strip()
    return Path(value).expanduser() if value else None


def load_key(path: Path, *, cases_dir: Path, results_dir: Path) -> bytes:
    """The key in ``path``; SignatureError when it is missing, unreadable, too short, or where the repository ships it."""
    fix = "keep a key of at least 16 bytes as hex (openssl rand -hex 32) outside the repository"
    for folder, what in ((repository_root(cases_dir), "the repository"), (cases_dir, "the cases folder"),
                         (results_dir, "the results folder")):
        if folder is not None and inside(path, folder):
            raise SignatureError(f"{path}: the stamp key is inside {what} ({folder}), where anyone who can change "
                                 f"the results can read it; {fix}")
    try:
        return parse_hex_key(path.read_text(encoding="utf-8"), path, fix)
    except FileNotFoundError:
        raise SignatureError(f"{path}: no such stamp key file; {fix}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SignatureError(f"{path}: cannot read the stamp key ({exc}); {fix}") from None
    except KeyFileError as exc:
        raise SignatureError(str(exc)) from None


def _signed_files(run_dir: Path) -> dict[str, str]:
    """``{relative name: sha256}`` of the manifest and every case file."""
    names = [MANIFEST_FILE, *sorted(f"cases/{p.name}" for p in (run_dir / "cases").glob("*.json"))]
    return {name: hashlib.sha256((run_dir / name).read_bytes()).hexdigest()
            for name in names if (run_dir / name).is_file()}


def _mac(key: bytes, files: dict[str, str]) -> str:
    listing = json.dumps(files, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hmac.new(key, b"reviewtui-stamp\0" + listing, hashlib.sha256).hexdigest()


def sign_run(run_dir: Path, key: bytes) -> None:
    """Write ``run_dir/stamp.sig`` over the run's manifest and case files as they are now."""
    files = _signed_files(run_dir)
    doc = {"format": SIGNATURE_FORMAT, "algorithm": "HMAC-SHA256", "files": files, "signature": _mac(key, files)}
    atomic_write_text(run_dir / SIGNATURE_FILE, json.dumps(doc, indent=2) + "\n")


def signature_problem(run_dir: Path, key: bytes) -> str | None:
    """Why the record in ``run_dir`` does not carry a valid signature under ``key``; None when it does."""
    path = run_dir / SIGNATURE_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        recorded, mac = doc["files"], doc["signature"]
        if not isinstance(recorded, dict) or not isinstance(mac, str):
            raise TypeError
    except FileNotFoundError:
        return f"{path} not found: the run was not signed, and a stamp key was given (--stamp-key or {KEY_ENV})"
    except (OSError, ValueError, KeyError, TypeError):
        return f"{path} is not a stamp signature; sign the run again (reviewtui eval --stamp-key)"
    if not hmac.compare_digest(_mac(key, recorded), mac):
        return f"{path}: the signature does not match its list of files under this key (made with another key, or edited)"
    current = _signed_files(run_dir)
    changed = sorted(name for name in set(recorded) | set(current) if recorded.get(name) != current.get(name))
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        return f"{run_dir} changed since it was signed: {shown}"
    return None
