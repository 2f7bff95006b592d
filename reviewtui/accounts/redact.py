"""``reviewtui redact SNAPSHOT -o OUT --key KEYFILE``: a snapshot with stable pseudonyms.

Every name, id, search term, URL and piece of free text is replaced; every
number and date is kept as it was, so the case is the account's own numbers.
A pseudonym is an HMAC of the original under the key: the same snapshot and
key give the same output, a new key gives new names. The key file (created
when missing) stays outside the case folder, so the team can map a finding
back by redacting a name again with it; the printed table maps them too.

What is replaced, by where it sits:

- ids (``id``, ``*_id``, ``*_ids``): digits for digits, the shape kept
  (``act_`` prefixes, dashes), so ``123-456-7890`` stays an id of that shape;
  the same original id maps to the same pseudonym in every section;
- names (``name``, ``*_name``): ``Campaign 3fa2c1`` plus the campaign-type
  words of the original (``search``, ``brand``, ``non-brand``, ``prospecting``...)
  that the checks read, never the rest;
- search terms and keywords: ``term 3fa2c1``; URLs: ``https://example.invalid/3fa2c1d4``;
- any other text, unless it is made only of dates, numbers, platform enums
  (``ENABLED``, ``TARGET_CPA``), field names and generic words: ``text 3fa2c1d4``.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..cli_args import parse_args
from ..keyfile import KeyFileError, parse_hex_key
from ..paths import inside
from ..caseset.atomic import atomic_write_text
from ..caseset.snapshot import Snapshot, SnapshotError

EXIT_OK = 0
EXIT_BAD_INPUT = 2

# Campaign-type words kept in a pseudonymised name: the auditor tells brand from
# non-brand and prospecting from retargeting by them. None names an advertiser.
ROLE_WORDS = ("non-brand", "nonbrand", "nb", "brand", "generic", "competitor", "search", "shopping", "pmax",
              "performance max", "display", "video", "youtube", "discovery", "demand gen", "dsa", "prospecting",
              "retargeting", "remarketing", "lookalike", "broad", "advantage+", "conversions", "traffic",
              "awareness", "leads", "sales", "app")
# Words that may stay in free text (conversion action names, change-event values).
GENERIC_WORDS = set(w for r in ROLE_WORDS for w in r.split()) | {
    "nb", "add", "to", "cart", "purchase", "purchases", "booking", "request", "contact", "form", "call", "phone",
    "click", "clicks", "quote", "reservation", "subscription", "trial", "demo", "consultation", "lesson",
    "prospectus", "lead", "sign", "up", "signup", "checkout", "download", "page", "view", "ga4", "added", "removed",
    "new", "old", "none", "null", "true", "false", "enabled", "paused", "active", "inactive", "deleted", "archived",
    "on", "off", "yes", "no", "all", "ad", "ads", "set", "group", "campaign", "account", "budget", "daily",
    "lifetime", "manual", "auto", "automatic", "default", "standard", "accelerated", "mobile", "desktop", "tablet",
    "male", "female", "unknown", "and", "or", "of", "the", "a", "in", "for", "with", "by", "per", "day", "days",
    "not", "delivering", "approved", "disapproved", "eligible", "limited", "learning", "pending", "review",
    "keyword", "status", "amount", "creative", "ok", "error", "completed", "scheduled", "ended",
}
# Keys whose values may be prose written by someone; elsewhere a single word is a
# platform value (``APPROVED``, ``status``) and stays.
FREE_TEXT_KEYS = {"old", "new", "text", "description", "note", "notes", "comment", "message", "headline",
                  "title", "label", "value", "body", "reason"}
_TOKEN = re.compile(r"^[A-Z][A-Z0-9]*$|^[a-z][a-z0-9]*$")
_ISO_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
_ENUM = re.compile(r"^[A-Z0-9]+(_[A-Z0-9]+)+$")  # TARGET_CPA, GOOGLE_ADS_INTEGRATED_DATA_DRIVEN
_SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")  # field names: final_url, attribution_model
_TIME_ZONE = re.compile(r"^[A-Za-z]+(/[A-Za-z_+-]+)+$|^UTC$")
_SCHEDULE = re.compile(r"^((MON|TUE|WED|THU|FRI|SAT|SUN)(-(MON|TUE|WED|THU|FRI|SAT|SUN))?|[\d:\- ,])+$")
_URL = re.compile(r"^(https?://|www\.)", re.IGNORECASE)
_ID_SHAPE = re.compile(r"^(act_)?[\d-]+$")
_WORD = re.compile(r"[^\W_]+(?:[+'][^\W_]*)?", re.UNICODE)
# Values kept verbatim wherever they sit: they describe the snapshot, not the advertiser.
KEEP_KEYS = {"schema_version", "platform", "currency_code", "time_zone", "format", "grain"}
TERM_KEYS = {"search_term", "keyword", "query", "term"}


class RedactError(Exception):
    pass


def load_key(path: Path, case_dir: Path | None) -> tuple[bytes, bool]:
    """The key in KEYFILE (hex); a new random one is written there when the file does not exist."""
    if case_dir is not None and inside(path, case_dir):
        raise RedactError(f"{path}: the key file is inside the case folder {case_dir}; keep it outside, "
                          "where the case set does not ship it (e.g. --key ~/.reviewtui/redact.key)")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32) + "\n")
        created = True
    else:
        created = False
    try:
        return parse_hex_key(path.read_text(encoding="utf-8"), path, "delete it to have a new one made"), created
    except KeyFileError as exc:
        raise RedactError(str(exc)) from None


class Redactor:
    def __init__(self, key: bytes) -> None:
        self.key = key
        self.replaced: dict[tuple[str, str], str] = {}

    def _digest(self, kind: str, original: str) -> str:
        return hmac.new(self.key, f"{kind}\x00{original}".encode(), hashlib.sha256).hexdigest()

    def _remember(self, kind: str, original: str, pseudonym: str) -> str:
        self.replaced[(kind, original)] = pseudonym
        return pseudonym

    def ident(self, original: Any) -> Any:
        text = str(original)
        digest = self._digest("id", text)
        if _ID_SHAPE.match(text):
            digits = iter(str(int(digest, 16)))
            out = "".join(next(digits) if ch.isdigit() else ch for ch in text)
            if out[out.rfind("_") + 1:][:1] == "0":  # a leading zero would read as a different id
                i = out.rfind("_") + 1
                out = out[:i] + "1" + out[i + 1:]
            pseudo: Any = out
        else:
            pseudo = f"id-{digest[:10]}"
        self._remember("id", text, str(pseudo))
        if isinstance(original, int) and not isinstance(original, bool) and str(pseudo).isdigit():
            return int(pseudo)
        return pseudo

    def name(self, original: str, label: str) -> str:
        lowered = original.lower()
        roles = [w for w in ROLE_WORDS if re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", lowered)]
        if "brand" in roles and ("non-brand" in roles or "nonbrand" in roles):
            roles.remove("brand")
        pseudo = f"{label} {self._digest('name', original)[:6]}" + "".join(f" | {r}" for r in roles)
        return self._remember(label.lower() + " name" if label != "Name" else "name", original, pseudo)

    def term(self, original: str) -> str:
        return self._remember("search term", original, f"term {self._digest('term', original)[:6]}")

    def text(self, original: str, key: str = "") -> str:
        if self.is_neutral(original) or (key not in FREE_TEXT_KEYS and _TOKEN.match(original.strip())):
            return original
        if _URL.match(original.strip()):
            return self._remember("url", original, f"https://example.invalid/{self._digest('url', original)[:8]}")
        return self._remember("text", original, f"text {self._digest('text', original)[:8]}")

    @staticmethod
    def is_neutral(value: str) -> bool:
        """Dates, numbers, enums, field names and generic words only: nothing that names anyone."""
        v = value.strip()
        if not v or _ISO_MOMENT.match(v) or _NUMBER.match(v) or _ENUM.match(v) or _SNAKE.match(v) \
                or _SCHEDULE.match(v):
            return True
        words = _WORD.findall(v)
        return bool(words) and all(w.lower() in GENERIC_WORDS or w.isdigit() or (w.isupper() and len(w) <= 3)
                                   for w in words) and not any(ch in v for ch in "@/:")


def _label(key: str, path: tuple[str, ...]) -> str:
    """Campaign, Ad set, Ad, Account, Conversion action... from where a name sits."""
    if key != "name":
        return key[: -len("_name")].replace("_", " ").capitalize()
    section = next((p for p in reversed(path[:-1]) if not p.isdigit()), "")
    return {"account": "Account", "campaigns": "Campaign", "conversion_actions": "Conversion action",
            "ad_sets": "Ad set", "ads": "Ad", "ad_groups": "Ad set"}.get(section, "Name")


def redact(data: Any, redactor: Redactor) -> Any:
    def walk(node: Any, key: str, path: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                new_key = redactor.replaced.get(("id", k), k)
                out[new_key] = walk(v, k, (*path, k))
            return out
        if isinstance(node, list):
            return [walk(v, key, (*path, str(i))) for i, v in enumerate(node)]
        if key in KEEP_KEYS or node is None or isinstance(node, bool):
            return node
        is_id = key == "id" or key.endswith("_id") or key.endswith("_ids")
        if is_id and (isinstance(node, (str, int))):
            return redactor.ident(node)
        if isinstance(node, (int, float)):
            return node
        if key == "name" or key.endswith("_name"):
            return redactor.name(node, _label(key, path))
        if key in TERM_KEYS:
            return redactor.term(node)
        if key == "time_zone" and _TIME_ZONE.match(node):
            return node
        return redactor.text(node, key)

    # Ids first, so that dict keys holding ids (totals by campaign) map with them.
    _collect_ids(data, "", redactor)
    return walk(data, "", ())


def _collect_ids(node: Any, key: str, redactor: Redactor) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _collect_ids(v, k, redactor)
    elif isinstance(node, list):
        for v in node:
            _collect_ids(v, key, redactor)
    elif (key == "id" or key.endswith("_id") or key.endswith("_ids")) and isinstance(node, (str, int)) \
            and not isinstance(node, bool):
        redactor.ident(node)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reviewtui redact", description="Replace names, ids, search terms, URLs and "
                                "free text in a snapshot with stable pseudonyms; numbers and dates are kept.")
    p.add_argument("snapshot", metavar="SNAPSHOT")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="a .json file, or a case folder")
    p.add_argument("--key", required=True, metavar="KEYFILE",
                   help="the secret key (hex; made when missing); keep it outside the case folder")
    p.add_argument("--force", action="store_true", help="replace an existing output")
    return p


def main(argv: list[str] | None = None) -> int:
    from .importer import output_path

    args, code = parse_args(_parser(), argv)
    if args is None:
        return code
    target = output_path(args.output)
    try:
        if target.exists() and not args.force:
            raise RedactError(f"{target}: already exists; nothing written (pass --force to replace it)")
        if Path(args.snapshot).resolve() == target.resolve():
            raise RedactError(f"{target}: the output would replace the snapshot being redacted; write elsewhere")
        snapshot = Snapshot.load(args.snapshot)
        # A snapshot.json is a case's: its folder is the case folder the key must stay out of.
        key, created = load_key(Path(args.key), target.parent if target.name == "snapshot.json" else None)
    except (RedactError, SnapshotError) as exc:
        print(f"{exc}\nnothing written", file=sys.stderr)
        return EXIT_BAD_INPUT
    redactor = Redactor(key)
    out = redact(snapshot.data, redactor)
    atomic_write_text(target, json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    if created:
        print(f"new key written to {args.key}: keep it, outside the case set, to redact again the same way")
    counts = Counter(kind for kind, _orig in redactor.replaced)
    print("replaced: " + (", ".join(f"{n} {kind}(s)" for kind, n in sorted(counts.items())) or "nothing"))
    for (kind, original), pseudo in sorted(redactor.replaced.items()):
        print(f"  {kind:<22} {pseudo!r:<40} <- {original!r}")
    print(f"wrote {target} (numbers and dates unchanged)")
    return EXIT_OK


if __name__ == "__main__":
    from ..cli_args import run_module

    run_module("redact", main)
