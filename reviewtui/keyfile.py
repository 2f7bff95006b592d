"""Secret key files: hex text, at least 16 bytes, kept outside what the repository ships.

``reviewtui redact`` keys its pseudonyms with one; the weekly stamp's optional
signature (``runs/signature.py``) another. Both read them here.
"""

from __future__ import annotations

from pathlib import Path

MIN_KEY_BYTES = 16


class KeyFileError(ValueError):
    """A key file that cannot be used; the message names it and the fix."""


def parse_hex_key(text: str, path: Path, fix: str) -> bytes:
    """The key written in ``text`` (hex digits) read from ``path``; KeyFileError ending with ``fix``."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise KeyFileError(f"{path}:1: not a key (expected hex digits); {fix}") from None
    if len(key) < MIN_KEY_BYTES:
        raise KeyFileError(f"{path}:1: the key is {len(key)} bytes; use at least {MIN_KEY_BYTES} ({fix})")
    return key
