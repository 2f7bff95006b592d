"""Where an answer came from: the Claude API's own record of it, kept with the answer.

The Claude backend stores, with every answer it got (and in the response
cache, so an answer read back from the cache keeps it):

- ``message_id``: the id the API gave the message (``msg_`` and letters and
  digits, ``ID_SHAPES``);
- ``request_id``: the ``request-id`` header of the response (``req_...``, a
  direct call), or ``batch_id``: the Message Batch that answered it
  (``msgbatch_...``);
- ``endpoint``: where the request went, as ``scheme://host:port/path``
  (``endpoint_of``), credentials left out;
- ``request_sha256``: the request it answers (the response cache's key: the
  model, the whole request with the snapshot, and the repeat index);
- ``text_sha256``: the SHA-256 of the answer's text as it came back, taken
  the moment it was received, so an answer text edited afterwards (in a case
  file or in the response cache) no longer matches its record;
- ``run_id``: the run that obtained it from the API (``new_run_id``, made
  when a run starts); an answer read back from the cache, or kept by a
  resumed run, keeps the run id of the run that paid for it.

The model the API reported is the answer's own ``model``. The weekly stamp
check (``weekly/rederive.py``) asks every answer of the stamp's run for this
record (``record_problem``), so results written by another backend, a forged
cache entry, an answer whose text was edited, or an answer to another
snapshot or prompt are refused.

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
import re
import secrets
from typing import Any, Mapping
from urllib.parse import SplitResult, unquote, urlsplit

from ..caseset.cases import Case

BASE_URL_ENV = "ANTHROPIC_BASE_URL"
DEFAULT_BASE_URL = "https://api.anthropic.com"
PROVENANCE_KEYS = ("message_id", "request_id", "batch_id", "endpoint", "request_sha256", "text_sha256", "run_id")
# The shapes of the API's ids, as the API documents them (``msg_013Zva2CMHLNnXjNJJKqJ2EF``,
# ``req_018EeWyXxfu5pfWkrYcMdjWG``, ``msgbatch_013Zva2CMHLNnXjNJJKqJ2EF``): a prefix, then letters and digits.
# The API says the format and length of ids may change over time: a change shows as every answer refused
# for the shape of its ids, and is fixed here.
ID_SHAPES = {
    "message_id": re.compile(r"msg_[0-9A-Za-z]{16,128}"),
    "request_id": re.compile(r"req_[0-9A-Za-z]{16,128}"),
    "batch_id": re.compile(r"msgbatch_[0-9A-Za-z]{16,128}"),
}
_SHA256 = re.compile(r"[0-9a-f]{64}")
_DEFAULT_PORTS = {"https": 443, "http": 80}


def _split(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    return parts


def endpoint_of(base_url: str) -> str:
    """``scheme://host:port/path`` of ``base_url``: lower-case scheme and host, the port always written
    (443 for https, 80 for http when none is), the path without its trailing slash; no credentials,
    query or fragment. ``https://api.anthropic.com`` is ``https://api.anthropic.com:443``.

    Each part may name another backend: a gateway that routes by path, or plain http to the same host.
    """
    parts = _split(base_url)
    if parts is None or not parts.hostname or not parts.scheme:
        return "unparseable endpoint"
    scheme = parts.scheme.lower()
    host = parts.hostname.lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    port = parts.port or _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port else "") + parts.path.rstrip("/")


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
    if case.snapshot is not None:
        return case.snapshot.sha256
    return hashlib.sha256(case.snapshot_path.read_bytes()).hexdigest()


def text_sha256(text: str) -> str:
    """SHA-256 of an answer's text (UTF-8), as the Claude backend records it on receipt."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_run_id() -> str:
    """A run's id, made when it starts: random, so no two runs share one."""
    return "run_" + secrets.token_hex(12)


def record_problem(provenance: Mapping[str, Any] | None, text: str | None) -> str | None:
    """What is wrong with an answer's record of the API (None when nothing is), as one of:

    ``"record"``: the record is missing a part (message id, request or batch id, endpoint, the
    request it answers, the run that got it); ``"ids"``: an id is not of the API's shape;
    ``"text"``: the record holds no hash of the text, or the text is not the one received.
    """
    record = provenance or {}
    if not (record.get("message_id") and (record.get("request_id") or record.get("batch_id"))
            and record.get("endpoint") and record.get("request_sha256") and record.get("run_id")):
        return "record"
    for key, shape in ID_SHAPES.items():
        value = record.get(key)
        if value is not None and not (isinstance(value, str) and shape.fullmatch(value)):
            return "ids"
    recorded = record.get("text_sha256")
    if not (isinstance(recorded, str) and _SHA256.fullmatch(recorded)) or text is None \
            or text_sha256(text) != recorded:
        return "text"
    return None


# What a run's manifest lists of each answer it scored (``answers``): the stamp check matches every case file
# against it, so an answer from another run (copied in, or another run's best) is refused.
LISTED_KEYS = ("message_id", "text_sha256", "run_id")


def listed_answer(provenance: Mapping[str, Any] | None) -> dict[str, Any]:
    """An answer as a run's manifest lists it: its message id, the hash of its text, the run that got it."""
    return {key: (provenance or {}).get(key) for key in LISTED_KEYS}


def is_provenance(data: Any) -> bool:
    """Whether ``data`` reads as a stored provenance record: known keys, each a string or None."""
    return isinstance(data, dict) and set(data) <= set(PROVENANCE_KEYS) \
        and all(v is None or isinstance(v, str) for v in data.values())
