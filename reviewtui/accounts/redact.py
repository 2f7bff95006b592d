"""``reviewtui redact SNAPSHOT -o OUT --key KEYFILE [--salt TEXT]``: a snapshot with stable pseudonyms.

Every name, id, search term, URL and piece of free text is replaced; every
number and date is kept as it was, so the case is the account's own numbers.
A pseudonym is an HMAC of the original under the key (and the salt, when one
is given): the same snapshot, key and salt give the same output, a new key
gives new names. The key file (created when missing) stays outside the case
set, so the team can map a finding back by redacting a name again with it; the
printed table maps them too.

What is replaced, by where it sits:

- ids (``id``, ``*_id``, ``*_ids``): digits for digits, the shape kept
  (``act_`` prefixes, dashes), one pseudonym per original and never an original
  id itself; the same original maps to the same pseudonym in every section, in
  dictionary keys, and wherever free text quotes it;
- names (``name``, ``*_name``): ``Campaign 3fa2c1`` plus the campaign-type
  words of the original (``search``, ``brand``, ``non-brand``, ``prospecting``...)
  that the checks read, never the rest; a dictionary key or a value that is a
  name found elsewhere gets that name's pseudonym;
- search terms and keywords: ``term 3fa2c1``; URLs: ``https://example.invalid/3fa2c1d4``;
- dictionary keys that are not field names: ``key 3fa2c1``;
- any other text, unless every word of it is a platform value, a field name or a
  generic word (``redact_words``): ``text 3fa2c1d4``. A run of seven digits and
  more (a phone number) is never neutral.

Pseudonyms of one kind are all distinct: two originals never share one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from ..files.atomic import atomic_write_text
from ..caseset.cases import CASE_ID_RE
from ..caseset.snapshot import Snapshot, SnapshotError
from ..keyfile import KeyFileError, parse_hex_key
from ..paths import inside
from .newcase import blank_expected
from .redact_words import ROLE_WORDS, VOCABULARY

EXIT_OK = 0
EXIT_BAD_INPUT = 2

_ISO_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
_TIME_ZONE = re.compile(r"^[A-Za-z]+(/[A-Za-z_+-]+)+$|^UTC$")
_DAY = r"(MON|TUE|WED|THU|FRI|SAT|SUN)"
_SCHEDULE = re.compile(rf"^(?=.*({_DAY}|\d{{1,2}}:\d{{2}}))(({_DAY}(-{_DAY})?)|[\d:\- ,])+$")
# Seven digits and more, with the separators phone numbers are written with.
_PHONE = re.compile(r"\+?\(?\d[\d\s().\-/]{5,}\d")
_ISO_DATES = re.compile(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?")
_URL = re.compile(r"^(https?://|www\.)", re.IGNORECASE)
_ID_SHAPE = re.compile(r"^(act_)?[\d-]+$")
_WORD = re.compile(r"[^\W_]+(?:[+'][^\W_]*)?", re.UNICODE)
# Values kept verbatim wherever they sit: they describe the snapshot, not the advertiser.
KEEP_KEYS = {"schema_version", "platform", "currency_code", "format", "grain", "period_from", "missing_row_means"}
TERM_KEYS = {"search_term", "keyword", "query", "term"}
# Ids this long are looked for inside free text; shorter ones would match ordinary numbers.
MIN_ID_IN_TEXT = 5


class RedactError(Exception):
    pass


def _holds_cases(folder: Path) -> bool:
    """A folder of case folders (each with an expected.yaml): a case set."""
    try:
        return any((child / "expected.yaml").is_file() for child in folder.iterdir() if child.is_dir())
    except OSError:
        return False


def load_key(path: Path, case_dir: Path | None) -> tuple[bytes, bool]:
    """The key in KEYFILE (hex); a new random one is written there when the file does not exist.

    Refused inside the case folder, inside the case set holding it, and under any folder
    named ``cases``: the case set would ship it, and with it the way back to every name.
    """
    resolved = path.expanduser().resolve()
    if case_dir is not None:
        case = case_dir.resolve()
        case_set = case.parent if _holds_cases(case.parent) else case
        if inside(resolved, case) or inside(resolved, case_set):
            raise RedactError(f"{path}: the key file is inside the case folder {case_dir} or the case set holding it; "
                              "keep it outside, where the case set does not ship it (e.g. --key ~/.reviewtui/redact.key)")
        holder = case.parent if case.parent.name == "cases" or _holds_cases(case.parent) else None
        repository = holder.parent if holder is not None else None  # its own files and writeups/ ship too
        if repository is not None and (resolved.parent == repository or inside(resolved, repository / "writeups")):
            raise RedactError(f"{path}: the key file is in {repository}, beside the case set, or in its writeups/; "
                              "both ship with the case set; keep it outside (e.g. --key ~/.reviewtui/redact.key)")
    if any(parent.name == "cases" for parent in resolved.parents):
        raise RedactError(f"{path}: the key file is inside a 'cases' folder, which would ship it with the case set; "
                          "keep it outside (e.g. --key ~/.reviewtui/redact.key)")
    try:
        if resolved.is_dir():
            raise RedactError(f"{path}: is a folder; --key names the key file (made there when missing)")
        created = False
        if not resolved.exists():
            resolved.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(resolved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32) + "\n")
            created = True
        text = resolved.read_bytes().decode("ascii").strip()
    except RedactError:
        raise
    except UnicodeDecodeError:
        raise RedactError(f"{path}:1: not a key (expected hex digits); delete it to have a new one made") from None
    except OSError as exc:
        raise RedactError(f"{path}: cannot use the key file ({exc.strerror or exc}); name a file you can read and "
                          "write, outside the case set (e.g. --key ~/.reviewtui/redact.key)") from None
    try:
        return parse_hex_key(text, path, "delete it to have a new one made"), created
    except KeyFileError as exc:
        raise RedactError(str(exc)) from None


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith("_id") or key.endswith("_ids")


def _is_name_key(key: str) -> bool:
    return key == "name" or key.endswith("_name")


def _label(key: str, path: tuple[str, ...]) -> str:
    """Campaign, Ad set, Ad, Account, Conversion action... from where a name sits."""
    if key != "name":
        return key[: -len("_name")].replace("_", " ").capitalize()
    section = next((p for p in reversed(path[:-1]) if not p.isdigit()), "")
    return {"account": "Account", "campaigns": "Campaign", "conversion_actions": "Conversion action",
            "ad_sets": "Ad set", "ads": "Ad", "ad_groups": "Ad set"}.get(section, "Name")


class Redactor:
    def __init__(self, key: bytes, salt: str = "") -> None:
        self.key = key
        self.salt = salt
        self.replaced: dict[tuple[str, str], str] = {}
        self.taken: dict[str, set[str]] = {}  # kind -> pseudonyms given
        self.original_ids: set[str] = set()
        self.ids: dict[str, str] = {}
        self.names: dict[str, str] = {}  # any original name -> its pseudonym
        self._ids_in_text: re.Pattern[str] | None = None

    def _digest(self, kind: str, original: str, attempt: int = 0) -> str:
        message = f"{self.salt}\x00{kind}\x00{original}" + (f"\x00{attempt}" if attempt else "")
        return hmac.new(self.key, message.encode(), hashlib.sha256).hexdigest()

    def _unique(self, kind: str, original: str, make: Callable[[str, int], str],
                avoid: set[str] | frozenset[str] = frozenset()) -> str:
        """The pseudonym of ``original``: the first candidate no other original of its kind has taken."""
        if (kind, original) in self.replaced:
            return self.replaced[(kind, original)]
        taken = self.taken.setdefault(kind, set())
        attempt = 0
        while True:
            pseudo = make(self._digest(kind, original, attempt), attempt)
            if pseudo not in taken and pseudo not in avoid:
                break
            attempt += 1
        taken.add(pseudo)
        self.replaced[(kind, original)] = pseudo
        return pseudo

    # --- ids ----------------------------------------------------------------------------------

    def prepare_ids(self, originals: set[str]) -> None:
        """Pseudonyms for every id, given in sorted order so the mapping depends on the set alone."""
        self.original_ids = set(originals)
        for original in sorted(originals):
            self.ident(original)
        long_ids = sorted((i for i in originals if len(re.sub(r"\D", "", i)) >= MIN_ID_IN_TEXT), key=len, reverse=True)
        self._ids_in_text = (re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, long_ids)) + r")(?![\w-])")
                             if long_ids else None)

    def ident(self, original: Any) -> Any:
        text = str(original)
        pseudo = self.ids.get(text)
        if pseudo is None:

            def shaped(digest: str, attempt: int) -> str:
                return _shaped(text, digest, attempt)
            pseudo = self.ids[text] = self._unique("id", text, shaped, self.original_ids)
        if isinstance(original, int) and not isinstance(original, bool) and pseudo.isdigit():
            return int(pseudo)
        return pseudo

    def ids_in_text(self, text: str, placeholder: str | None = None) -> str:
        """The text with every original id it quotes replaced by its pseudonym (or by ``placeholder``)."""
        if self._ids_in_text is None:
            return text
        return self._ids_in_text.sub(lambda m: placeholder or self.ids[m.group(1)], text)

    # --- names, terms, text -------------------------------------------------------------------

    def name(self, original: str, label: str) -> str:
        lowered = original.lower()
        roles = [w for w in ROLE_WORDS if re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", lowered)]
        if "brand" in roles and ("non-brand" in roles or "nonbrand" in roles):
            roles.remove("brand")
        suffix = "".join(f" | {r}" for r in roles)
        kind = label.lower() + " name" if label != "Name" else "name"
        pseudo = self._unique(kind, original, lambda d, n: f"{label} {d[:6 + 2 * n]}{suffix}")
        self.names.setdefault(original, pseudo)
        return pseudo

    def term(self, original: str) -> str:
        return self._unique("search term", original, lambda d, n: f"term {d[:6 + 2 * n]}")

    def dict_key(self, original: str) -> str:
        if original in self.ids:
            return self.ids[original]
        if original in self.names:
            return self.names[original]
        if self.is_neutral(original):
            return original  # a field name, a date
        return self._unique("key", original, lambda d, n: f"key {d[:6 + 2 * n]}")

    def text(self, original: str) -> str:
        stripped = original.strip()
        if stripped in self.ids:
            return self.ids[stripped]
        if stripped in self.names:
            return self.names[stripped]
        if self.is_neutral(self.ids_in_text(original, " id ")):  # the ids it quotes are ours to replace
            return self.ids_in_text(original)
        if _URL.match(stripped):
            return self._unique("url", original, lambda d, n: f"https://example.invalid/{d[:8 + 2 * n]}")
        return self._unique("text", original, lambda d, n: f"text {d[:8 + 2 * n]}")

    @staticmethod
    def is_neutral(value: str) -> bool:
        """Dates, numbers, schedules, platform values, field names and generic words only: nothing that names anyone."""
        v = value.strip()
        if not v or _ISO_MOMENT.match(v) or _SCHEDULE.match(v):
            return True
        if _NUMBER.match(v):
            return not (len(re.sub(r"\D", "", v)) >= 7 and v.startswith(("0", "+")))  # 0891234567 is a phone
        if any(sum(ch.isdigit() for ch in m.group()) >= 7 for m in _PHONE.finditer(_ISO_DATES.sub(" ", v))):
            return False
        if any(ch in v for ch in "@/:"):
            return False
        words = _WORD.findall(v)
        return bool(words) and all(w.lower() in VOCABULARY or w.isdigit() for w in words)


def _shaped(original: str, digest: str, attempt: int) -> str:
    """A pseudonym with the original's shape: digits for digits (``act_``, dashes kept); else ``id-...``.

    After twenty candidates a shape of few digits is full: one digit more each twenty tries.
    """
    if not _ID_SHAPE.match(original):
        return f"id-{digest[:10 + 2 * (attempt // 20)]}"
    digits = iter(str(int(digest, 16)))
    out = "".join(next(digits) if ch.isdigit() else ch for ch in original)
    extra = attempt // 20
    if extra:
        out += "".join(next(digits) for _ in range(extra))
    start = out.rfind("_") + 1
    if out[start:start + 1] == "0":  # a leading zero would read as a different id
        out = out[:start] + "1" + out[start + 1:]
    return out


def _collect(node: Any, key: str, found: set[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _collect(v, k, found)
    elif isinstance(node, list):
        for v in node:
            _collect(v, key, found)
    elif _is_id_key(key) and isinstance(node, (str, int)) and not isinstance(node, bool):
        found.add(str(node))


def _collect_names(node: Any, key: str, path: tuple[str, ...], redactor: Redactor) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _collect_names(v, k, (*path, k), redactor)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _collect_names(v, key, (*path, str(i)), redactor)
    elif _is_name_key(key) and isinstance(node, str):
        redactor.name(node, _label(key, path))


def redact(data: Any, redactor: Redactor) -> Any:
    """The snapshot with every name, id and piece of text replaced; numbers and dates as they were."""
    ids: set[str] = set()
    _collect(data, "", ids)
    redactor.prepare_ids(ids)
    # Names first, so a name quoted elsewhere (a dictionary key, a change event's old value) maps with it.
    _collect_names(data, "", (), redactor)

    def walk(node: Any, key: str, path: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            return {redactor.dict_key(k): walk(v, k, (*path, k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, key, (*path, str(i))) for i, v in enumerate(node)]
        if key in KEEP_KEYS or node is None or isinstance(node, bool):
            return node
        if _is_id_key(key) and isinstance(node, (str, int)):
            return redactor.ident(node)
        if isinstance(node, (int, float)):
            # A number is kept, unless it is an original id written as a number (a change event's old campaign).
            return redactor.ident(node) if isinstance(node, int) and len(str(node)) >= 7 \
                and str(node) in redactor.original_ids else node
        if _is_name_key(key):
            return redactor.name(node, _label(key, path))
        if key in TERM_KEYS:
            return redactor.term(node)
        if key == "time_zone" and _TIME_ZONE.match(node):
            return node
        return redactor.text(node)

    return walk(data, "", ())


def redact_to_file(source: Path, target: Path, key_file: str | Path, *, salt: str = "", force: bool = False) -> list[str]:
    """``reviewtui redact``'s work: the snapshot at ``source`` redacted into ``target`` under the key in
    ``key_file`` (made when missing), and a blank expected.yaml beside a case's snapshot.json. Returns the
    lines to print (the key, what was replaced, what to do next); raises RedactError, nothing written."""
    from .importer import write_output

    if target.exists() and not force:
        raise RedactError(f"{target}: already exists; nothing written (pass --force to replace it)")
    if source.resolve() == target.resolve():
        raise RedactError(f"{target}: the output would replace the snapshot being redacted; write elsewhere")
    if not source.is_file():
        raise RedactError(f"{source}: file not found; name the snapshot.json (or .json) to redact")
    if source.suffix.lower() in (".csv", ".tsv", ".txt", ".xlsx", ".zip", ".gz"):
        raise RedactError(f"{source}: an export, not a snapshot: import it first (reviewtui import --format "
                          f"meta|google|csv {source} -o /tmp/account.json), then redact /tmp/account.json")
    try:
        snapshot = Snapshot.load(source)
    except SnapshotError as exc:
        raise RedactError(str(exc)) from None
    # A snapshot.json is a case's: its folder is the case folder the key must stay out of.
    key, created = load_key(Path(key_file), target.parent if target.name == "snapshot.json" else None)
    redactor = Redactor(key, salt)
    out = redact(snapshot.data, redactor)
    if isinstance(out, dict):
        # `reviewtui check` tells a redacted import from an account that went into the case set as exported.
        out["source"] = {**out["source"], "redacted": True} if isinstance(out.get("source"), dict) else {"redacted": True}
    if problem := write_output(target, json.dumps(out, indent=1, ensure_ascii=False) + "\n"):
        raise RedactError(problem)
    lines = []
    after = []
    expected = target.parent / "expected.yaml"
    if target.name == "snapshot.json" and not expected.exists():
        if CASE_ID_RE.match(target.parent.name):
            atomic_write_text(expected, blank_expected(target.parent.name, source.name))
            after.append(f"wrote {expected}: a blank case (kind ordinary, empty lists); fill in what an audit must "
                         "find (format: docs/formats.md, 'expected.yaml'), then run `reviewtui check`")
        else:
            after.append(f"next: write {expected} (format: docs/formats.md, 'expected.yaml'); {target.parent.name!r} "
                         "is not a case id (lowercase letters, digits, '-' and '_'), so none was written")
    if created:
        lines.append(f"new key written to {key_file}: keep it, outside the case set, to redact again the same way")
    counts = Counter(kind for kind, _orig in redactor.replaced)
    lines.append("replaced: " + (", ".join(f"{n} {kind}(s)" for kind, n in sorted(counts.items())) or "nothing"))
    for (kind, original), pseudo in sorted(redactor.replaced.items()):
        lines.append(f"  {kind:<22} {pseudo!r:<40} <- {original!r}")
    lines.append(f"wrote {target} (numbers and dates unchanged)")
    return lines + after
