"""Content-addressed on-disk cache of the Claude backend's responses.

A paid call is made once: the key is the SHA-256 of the model, the whole
request (canonical JSON: system prompt, output schema, snapshot text,
max_tokens) and the repeat index, so a rerun or a run resumed after Ctrl-C
reads the answers it already has, and anything that changes the request
(a prompt edit, another model, a new snapshot) misses and calls the API.

Only successful responses whose text is JSON of the output schema are
stored (a truncated, refused or unparseable answer, or an API error, is
asked again next time). Each entry keeps the API's record of the answer
(``provenance.py``: message id, request id, endpoint, the request it
answers, the SHA-256 of its text as received, the run that got it); an
entry whose record names another request than its key, or whose text is not
the text its record was made of (edited since), is corrupt and asked again.
With a stamp key (``--stamp-key``, ``runs/signature.py``) every entry
written carries an HMAC of its key and response under that key, and an entry
without a valid one is not used: an edited entry cannot feed a signed stamp.
Each entry is one JSON file
``<directory>/<key>.json`` written atomically, so an interrupted run never
leaves half an entry. A file that cannot be read back (corrupt, hand-edited,
another format) is reported on stderr, ignored and overwritten by the next
good response.

The eval keeps the cache in ``<results-dir>/.cache/responses/``
(``default_cache_dir``); it is git-ignored and safe to delete.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, UTC
from pathlib import Path
from typing import Any, Callable

from ..files.atomic import atomic_write_text
from .provenance import is_provenance, text_sha256

CACHE_FORMAT = 1


def cache_entry_mac(key: bytes, cache_key: str, response: Any) -> str:
    """The HMAC of one response-cache entry (its key and its response) under the stamp key."""
    body = json.dumps({"key": cache_key, "response": response}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True).encode("utf-8")
    return hmac.new(key, b"reviewtui-cache\0" + body, hashlib.sha256).hexdigest()


def default_cache_dir(results_dir: str | Path) -> Path:
    """Where the eval keeps the response cache for a results folder."""
    return Path(results_dir) / ".cache" / "responses"


def cache_key(request: dict[str, Any], repeat: int = 0) -> str:
    """SHA-256 over the model, the whole request and the repeat index."""
    payload = {"model": request.get("model"), "request": request, "repeat": repeat}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class CachedResponse:
    """What is kept of a successful response: enough to rebuild the case's output."""

    text: str
    stop_reason: str | None
    input_tokens: int
    output_tokens: int
    model: str | None
    provenance: dict[str, Any] | None = None  # the API's record of the answer (backends/provenance.py)

    @classmethod
    def from_dict(cls, data: Any) -> "CachedResponse":
        """Rebuild from a stored entry; ValueError saying what is wrong with it."""
        if not isinstance(data, dict):
            raise ValueError("'response' is not an object")
        text = data.get("text")
        if not isinstance(text, str):
            raise ValueError("'response.text' is not a string")
        tokens = {k: data.get(k) for k in ("input_tokens", "output_tokens")}
        for name, value in tokens.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"'response.{name}' is not a token count")
        stop_reason, model = data.get("stop_reason"), data.get("model")
        if not isinstance(stop_reason, (str, type(None))) or not isinstance(model, (str, type(None))):
            raise ValueError("'response.stop_reason' or 'response.model' is not a string")
        provenance = data.get("provenance")
        if provenance is not None and not is_provenance(provenance):
            raise ValueError("'response.provenance' is not a record of strings")
        return cls(text=text, stop_reason=stop_reason, model=model, provenance=provenance,
                   **tokens)  # type: ignore[arg-type]  # ints, checked above


def _warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class ResponseCache:
    """The cache folder. ``read=False`` (``--no-cache``) skips lookups but still stores.

    Storing on ``--no-cache`` keeps the freshest answer for the next run, so a
    ``--no-cache`` run interrupted by Ctrl-C can be resumed without the flag
    and pays for nothing twice. ``key``: the stamp key; entries are signed
    under it, and an entry not signed under it is not read.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        read: bool = True,
        warn: Callable[[str], None] = _warn_on_stderr,
        key: bytes | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.read = read
        self._warn = warn
        self.key = key
        self.unsigned = 0  # entries passed over for want of a signature under the key

    def warn(self, message: str) -> None:
        self._warn(message)

    def path_for(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> CachedResponse | None:
        """The stored response for ``key``; None on a miss, when reads are off, or for an unreadable entry."""
        if not self.read:
            return None
        path = self.path_for(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            self._warn(f"cannot read cache file {path} ({exc}); asking the API again")
            return None
        try:
            entry = json.loads(text)
            if not isinstance(entry, dict):
                raise ValueError("not a JSON object")
            if entry.get("format") != CACHE_FORMAT:
                raise ValueError(f"format {entry.get('format')!r}, expected {CACHE_FORMAT}")
            if entry.get("key") != key:
                raise ValueError("its key does not match its file name")
            response = CachedResponse.from_dict(entry.get("response"))
            answers = (response.provenance or {}).get("request_sha256")
            if answers not in (None, key):
                raise ValueError(f"its answer is to another request ({str(answers)[:12]}...)")
            received = (response.provenance or {}).get("text_sha256")
            if received is not None and received != text_sha256(response.text):
                raise ValueError("its text is not the text the API returned: the SHA-256 recorded on receipt differs")
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            self._warn(f"ignoring corrupt cache file {path} ({exc}); it will be overwritten")
            return None
        if self.key is not None and entry.get("signature") != cache_entry_mac(self.key, key, entry.get("response")):
            if not self.unsigned:
                self._warn(f"cache file {path} is not signed under the stamp key (an entry made without the key, "
                           "or edited): entries like it are not used; asking the API again")
            self.unsigned += 1
            return None
        return response

    def put(self, key: str, response: CachedResponse) -> None:
        """Store a successful response atomically. A failed write warns and is otherwise harmless."""
        entry: dict[str, Any] = {
            "format": CACHE_FORMAT,
            "key": key,
            "stored_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "response": asdict(response),
        }
        if self.key is not None:
            entry["signature"] = cache_entry_mac(self.key, key, entry["response"])
        path = self.path_for(key)
        try:
            atomic_write_text(path, json.dumps(entry, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            self._warn(f"cannot write cache file {path} ({exc}); a rerun will call the API again for this case")
