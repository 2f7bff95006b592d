"""Where an answer came from: the Claude API's own record of it, kept with the answer.

The Claude backend stores, with every answer it got (and in the response
cache, so an answer read back from the cache keeps it):

- ``message_id``: the id the API gave the message (``msg_...``);
- ``request_id``: the ``request-id`` header of the response (a direct call),
  or ``batch_id``: the Message Batch that answered it;
- ``endpoint``: the host (and port) the request went to, credentials left out;
- ``request_sha256``: the request it answers (the response cache's key: the
  model, the whole request with the snapshot, and the repeat index).

The model the API reported is the answer's own ``model``. The weekly stamp
check (``weekly/rederive.py``) asks every answer of the stamp's run for this
record, so results written by another backend, a forged cache entry without
it, or an answer to another snapshot or prompt are refused.

``snapshot_sha256`` (of the snapshot's bytes) is kept on every answer of a
run, whatever the backend: a resumed run asks again a case whose snapshot
changed since its answer.

URLs: the API's base URL may carry proxy credentials
(``http://user:secret@proxy``); ``public_url`` and ``endpoint_of`` leave them
out, and ``scrub_url_credentials`` removes them from any text, so no message
or file shows them.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Mapping
from urllib.parse import SplitResult, unquote, urlsplit

from ..caseset.cases import Case

BASE_URL_ENV = "ANTHROPIC_BASE_URL"
DEFAULT_BASE_URL = "https://api.anthropic.com"
PROVENANCE_KEYS = ("message_id", "request_id", "batch_id", "endpoint", "request_sha256")


def _split(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    return parts


def endpoint_of(base_url: str) -> str:
    """``host`` or ``host:port`` of ``base_url``, lower case, without credentials."""
    parts = _split(base_url)
    if parts is None or not parts.hostname:
        return "unparseable endpoint"
    host = parts.hostname.lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host


def configured_base_url(environ: Mapping[str, str] | None = None) -> str:
    """The base URL the Claude backend sends to: ``ANTHROPIC_BASE_URL``, else the API's own."""
    env = os.environ if environ is None else environ
    return env.get(BASE_URL_ENV, "").strip() or DEFAULT_BASE_URL


def configured_endpoint(environ: Mapping[str, str] | None = None) -> str:
    return endpoint_of(configured_base_url(environ))


def public_url(url: str) -> str:
    """``url`` without the user name, password and query: what a message may show of it."""
    parts = _split(url)
    if parts is None or not parts.netloc:
        return "(a URL that cannot be parsed)" if "@" in url or "?" in url else url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{netloc}{parts.path}"


def url_secrets(url: str) -> list[str]:
    """The parts of ``url`` that must never be shown: its user info (raw and decoded) and query."""
    secrets: list[str] = []
    netloc_end = url.find("/", url.find("//") + 2) if "//" in url else -1
    head = url if netloc_end < 0 else url[:netloc_end]
    if "@" in head:
        userinfo = head[head.find("//") + 2 if "//" in head else 0: head.rfind("@")]
        secrets += [userinfo, unquote(userinfo)]
        if ":" in userinfo:
            password = userinfo.split(":", 1)[1]
            secrets += [password, unquote(password)]
    if "?" in url:
        query = url.split("?", 1)[1].split("#", 1)[0]
        secrets += [query, unquote(query)]
    return sorted({s for s in secrets if len(s) >= 3}, key=len, reverse=True)


def scrub_url_credentials(text: str, url: str | None = None) -> str:
    """``text`` with the credentials of ``url`` (default: ``ANTHROPIC_BASE_URL``) replaced by ``[redacted]``."""
    url = configured_base_url() if url is None else url
    for secret in url_secrets(url):
        text = text.replace(secret, "[redacted]")
    return text


def snapshot_sha256(case: Case) -> str:
    """SHA-256 of the snapshot bytes the case was read with (the file's, when it was not loaded)."""
    data = case.snapshot.text.encode("utf-8") if case.snapshot is not None else case.snapshot_path.read_bytes()
    return hashlib.sha256(data).hexdigest()


def is_provenance(data: Any) -> bool:
    """Whether ``data`` reads as a stored provenance record: known keys, each a string or None."""
    return isinstance(data, dict) and set(data) <= set(PROVENANCE_KEYS) \
        and all(v is None or isinstance(v, str) for v in data.values())
