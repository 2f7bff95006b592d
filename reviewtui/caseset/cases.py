"""Cases: ``cases/<case_id>/snapshot.json`` + ``expected.yaml``.

Loading, validation (``reviewtui check``) and the round-trip editing API the
app uses. expected.yaml is read and written with ruamel.yaml's round-trip
mode so the seniors' comments and key order survive every save; saves are
atomic and refuse to overwrite a file that changed on disk since it was read.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ruamel.yaml import YAML
from ruamel.yaml import events as yaml_events
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .. import taxonomy
from ..files import parse_cache
from . import yaml_comments
from ..files.atomic import FileChangedError, create_numbered, decode_text, encode_text, sha256, update_file
from .rowcheck import daily_problems
from .snapshot import (ParsedBefore, Snapshot, SnapshotError, period_problems, read_snapshot_bytes,
                       required_field_problems)
from .snapshot_reader import PointerError
from ..files.untrusted import LimitError, Limits, inside, printable, read_bytes_limited, says_problem

LISTS = ("must_find", "may_find", "must_not_say")
CASE_KINDS = ("ordinary", "broken_data", "clean", "trap")
CASE_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{1,63}$")
TOP_KEYS = {"case", "kind", "source", "notes", *LISTS}
ENTRY_KEYS = {"id", "evidence", "rows", "says", "claim", "note"}
EXPECTED_FILE = "expected.yaml"
SNAPSHOT_FILE = "snapshot.json"
# Write-ups live here, beside cases/; a `source:` that resolves anywhere else is refused.
WRITEUPS_DIR = "writeups"
# Far above any real case (the largest shipped one has 7 entries in a list and a
# 5 KB file); checked before the YAML is turned into values. max_items covers
# entries per list and `rows` / `says` per entry.
LIMITS = Limits("expected.yaml", max_bytes=256 << 10, max_depth=8, max_items=500, max_chars=10_000)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a case, printed as ``path:line: message``."""

    path: Path
    line: int
    message: str
    severity: str = "error"  # "error" fails `reviewtui check`; "warning" does not

    def __str__(self) -> str:
        prefix = "warning: " if self.severity == "warning" else ""
        # Paths and messages quote file contents: escape anything a terminal would act on.
        return printable(f"{self.path}:{self.line}: {prefix}{self.message}", one_line=True)


class CaseFileError(Exception):
    """expected.yaml cannot be parsed at all."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class ExternalChangeError(Exception):
    """expected.yaml changed on disk since it was loaded; saving would lose that change."""


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 1 << 30  # never fold a long evidence line (a fold also pushed its comment far out)
    y.Emitter = yaml_comments.Emitter  # keeps comments inside multi-line flow lists
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _line(node: Any, key: Any = None) -> int:
    """1-based line of a mapping key / sequence item (or the node itself)."""
    lc = getattr(node, "lc", None)
    if lc is None or lc.line is None:  # built in memory, never parsed
        return 1
    try:
        if key is None:
            return lc.line + 1
        if isinstance(node, CommentedSeq):
            return lc.item(key)[0] + 1
        return lc.key(key)[0] + 1
    except (KeyError, IndexError, TypeError, AttributeError):
        return lc.line + 1


# --------------------------------------------------------------------------
# Round-trip document
# --------------------------------------------------------------------------


class ExpectedDoc:
    """An expected.yaml held as a round-trip tree, for editing with comments kept."""

    def __init__(self, path: Path, data: CommentedMap, raw: bytes, newline: str = "\n", text: str | None = None) -> None:
        self.path = path
        self.data = data
        self.raw = raw  # the bytes parsed: the case-set digest hashes exactly these
        self.newline = newline  # the file's own line ending, kept on save
        self.loaded_digest = sha256(raw)
        self.text = text  # the text parsed ("\n" line endings): what an unchanged tree dumps as
        self._text_dumped: str | None = None  # how the emitter writes a tree parsed from ``text``

    @classmethod
    def load(cls, path: str | Path) -> "ExpectedDoc":
        path = Path(path)
        try:
            raw = read_bytes_limited(path, LIMITS)
        except FileNotFoundError:
            raise CaseFileError(Problem(path, 1, "file not found: every case needs an expected.yaml beside its "
                                       "snapshot.json; write one with at least `case: <folder name>` and `kind: "
                                       "ordinary` (the format: docs/formats.md, 'expected.yaml')")) from None
        except LimitError as exc:
            raise CaseFileError(Problem(path, 1, f"{exc}; a case file is a few kilobytes")) from None
        except OSError as exc:
            raise CaseFileError(Problem(path, 1, f"cannot read the file ({exc.strerror or exc})")) from None
        return cls.parse(path, raw)

    @classmethod
    def parse(cls, path: Path, raw: bytes) -> "ExpectedDoc":
        try:
            text, newline = decode_text(raw)
        except UnicodeDecodeError as exc:
            raise CaseFileError(Problem(path, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8")) from None
        # A tree is cached only once its bytes passed the checks below under these limits.
        data = parse_cache.load(raw, salt=repr(LIMITS))
        if data is not None:
            return cls(path, data, raw, newline, text)
        try:
            unsafe = _unsafe_yaml(text)
            if unsafe is not None:
                raise CaseFileError(Problem(path, unsafe[0], unsafe[1]))
            data = _yaml().load(text)
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else 1
            what = exc.problem or exc.context or "invalid YAML"
            raise CaseFileError(Problem(path, line, f"malformed YAML: {what}; fix the YAML syntax")) from None
        except YAMLError as exc:
            raise CaseFileError(Problem(path, 1, f"malformed YAML: {exc}; fix the YAML syntax")) from None
        except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
            raise CaseFileError(Problem(path, 1, f"a value cannot be read ({str(exc).split(';')[0]}); "
                                        "use values of ordinary size")) from None
        if data is None:
            data = CommentedMap()
        if not isinstance(data, CommentedMap):
            raise CaseFileError(Problem(path, 1, "expected.yaml must be a mapping with keys case, kind, must_find, ..."))
        parse_cache.store(raw, data, salt=repr(LIMITS))
        return cls(path, data, raw, newline, text)

    def reparse(self, text: str) -> None:
        """Hold the tree of ``text`` (a dump of this document: an undo, a redo, an edit read back).
        CaseFileError when it does not parse; then nothing changes."""
        self.data = ExpectedDoc.parse(self.path, text.encode("utf-8")).data
        self.text, self._text_dumped = text, None

    # -- editing ------------------------------------------------------------

    def entries(self, list_name: str) -> CommentedSeq:
        """The list, created (as an empty block list) if absent."""
        if list_name not in LISTS:
            raise ValueError(f"unknown list {list_name!r}; use one of {', '.join(LISTS)}")
        seq = self.data.get(list_name)
        if not isinstance(seq, CommentedSeq):
            seq = CommentedSeq()
            self.data[list_name] = seq
        if not seq:
            # `must_not_say: []` is written in flow style; entries added to it go in block style.
            seq.fa.set_block_style()
        return seq

    def add_entry(self, list_name: str, entry: dict[str, Any], index: int | None = None) -> int:
        """Append (or insert at ``index``) an entry; returns its index."""
        seq = self.entries(list_name)
        node = _entry_node(entry)
        if index is None or index >= len(seq):
            yaml_comments.append_entry(seq, node)
            return len(seq) - 1
        seq.insert(index, node)
        return index

    def update_entry(self, list_name: str, index: int, fields: dict[str, Any]) -> None:
        """Set (or, with value None, remove) fields of one entry, keeping its other keys and comments."""
        node = self.entries(list_name)[index]
        for key, value in fields.items():
            if value is None or value == [] and key in ("rows", "says"):
                node.pop(key, None)
            elif isinstance(value, list) and isinstance(node.get(key), CommentedSeq):
                yaml_comments.set_items(node[key], value)  # the list's comments stay
            elif _plain(node.get(key)) != value:
                node[key] = _flow_list(value) if isinstance(value, list) else value

    def remove_entry(self, list_name: str, index: int) -> dict[str, Any]:
        """Remove an entry with its own lines and comments; every other comment stays (yaml_comments)."""
        self.entries(list_name)
        return _plain(yaml_comments.remove_entry(self.data, list_name, index))

    def entry(self, list_name: str, index: int) -> dict[str, Any]:
        return _plain(self.entries(list_name)[index])

    # -- saving ---------------------------------------------------------------

    def dump(self) -> str:
        """The tree as YAML text. A tree that holds what was parsed (or last saved) gives that text back
        as it was: the emitter lays some things out its own way (a flow list's ``[`` on a line of its
        own, a comment after a lone ``-``), and an untouched file must save byte for byte."""
        out = _dump(self.data)
        if self.text is None or out == self.text:
            return out
        if self._text_dumped is None:
            self._text_dumped = _dump(ExpectedDoc.parse(self.path, self.text.encode("utf-8")).data)
        return self.text if out == self._text_dumped else out

    def dropped_comments(self) -> list[int]:
        """Lines of the parsed text holding a comment the tree does not keep, which a save after an edit
        would drop: ruamel.yaml reads no comment inside a flow mapping (``{id: x,  # why``). Looked for only
        where such a comment can be, so loading fifty cases pays nothing for it."""
        if self.text is None or not _FLOW_MAPPING_COMMENT.search(self.text):
            return []
        if self._text_dumped is None:
            self._text_dumped = _dump(ExpectedDoc.parse(self.path, self.text.encode("utf-8")).data)
        kept = Counter(m.group(1) for m in _COMMENT.finditer(self._text_dumped))
        lines = []
        for number, line in enumerate(self.text.splitlines(), 1):
            for m in _COMMENT.finditer(line):
                if kept[m.group(1)] > 0:
                    kept[m.group(1)] -= 1
                else:
                    lines.append(number)
        return lines

    def dump_bytes(self) -> bytes:
        """The file as it is saved: the dump with the file's own line endings."""
        return encode_text(self.dump(), self.newline)

    def save(self, *, force: bool = False) -> None:
        """Write the file (atomic, under the folder lock, through a symlink; see reviewtui.files.atomic).

        Refuses with ExternalChangeError when the file on disk is not the one loaded (or last
        saved), checked both before the new text is written and right before the rename,
        unless ``force``. A read-only file raises ReadOnlyFileError (an OSError).
        """
        data = self.dump_bytes()

        def build(current: bytes | None) -> bytes:
            if not force and sha256(current) != self.loaded_digest:
                raise ExternalChangeError(f"{self.path} changed on disk since it was loaded; reload it or keep both")
            return data

        try:
            update_file(self.path, build)
        except FileChangedError:
            raise ExternalChangeError(f"{self.path} changed on disk during the save; reload it or keep both") from None
        self.raw = data
        self.loaded_digest = sha256(data)
        self.text, self._text_dumped = decode_text(data)[0], None

    def save_copy(self, path: str | Path) -> Path:
        """Write the document to ``path`` as a new file, or to ``path-2``, ``path-3``, ... if taken."""
        return create_numbered(path, self.dump_bytes())


# A "#" after "{" with no "}" between: a comment inside a flow mapping, perhaps (see ``dropped_comments``).
_FLOW_MAPPING_COMMENT = re.compile(r"\{[^{}]*\s#")
_COMMENT = re.compile(r"(?:^|\s)(#.*)$", re.M)


def _dump(data: CommentedMap) -> str:
    buf = io.StringIO()
    _yaml().dump(data, buf)
    return buf.getvalue()


def _unsafe_yaml(text: str) -> tuple[int, str] | None:
    """(line, message) for the first thing in the YAML that breaks a limit, before any value is built.

    Anchors and aliases are refused outright: a few aliases to aliases expand
    to gigabytes (a "billion laughs") when the values are turned into text,
    and a case file never needs them.
    """
    open_: list[list[int]] = []  # per open collection: [events so far, events per entry]
    for event in _yaml().parse(text):
        line = event.start_mark.line + 1 if event.start_mark is not None else 1
        if isinstance(event, yaml_events.AliasEvent) or getattr(event, "anchor", None):
            return line, "YAML anchors and aliases (&name, *name) are not allowed in case files; write the value out"
        if isinstance(event, (yaml_events.ScalarEvent, yaml_events.CollectionStartEvent)) and open_:
            open_[-1][0] += 1
            if open_[-1][0] > open_[-1][1] * LIMITS.max_items:
                return line, f"a list or mapping has more than {LIMITS.max_items} entries; the limit is {LIMITS.max_items}"
        if isinstance(event, yaml_events.ScalarEvent) and len(event.value) > LIMITS.max_chars:
            return line, f"a value is {len(event.value):,} characters; the limit is {LIMITS.max_chars:,}"
        if isinstance(event, yaml_events.CollectionStartEvent):
            # A mapping entry is a key and a value: two events.
            open_.append([0, 2 if isinstance(event, yaml_events.MappingStartEvent) else 1])
            if len(open_) > LIMITS.max_depth:
                return line, f"nesting deeper than {LIMITS.max_depth} levels; the limit is {LIMITS.max_depth}"
        elif isinstance(event, yaml_events.CollectionEndEvent):
            open_.pop()
    return None


def _flow_list(values: list[Any]) -> CommentedSeq:
    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


def _entry_node(entry: dict[str, Any]) -> CommentedMap:
    node = CommentedMap()
    for key in ("id", "evidence", "rows", "says", "claim", "note"):
        value = entry.get(key)
        if value is None or (key in ("rows", "says") and not value):
            continue
        node[key] = _flow_list(list(value)) if isinstance(value, (list, tuple)) else value
    for key, value in entry.items():  # keep fields this version does not know
        if key not in node and value is not None:
            node[key] = value
    return node


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


# --------------------------------------------------------------------------
# Case model
# --------------------------------------------------------------------------


@dataclass
class Expectation:
    list_name: str
    index: int
    id: str
    evidence: str
    rows: list[str] = field(default_factory=list)
    says: list[str] = field(default_factory=list)
    claim: str | None = None
    line: int = 1

    @property
    def kind(self) -> str:
        return taxonomy.split_id(self.id)[0]

    @property
    def scope(self) -> str | None:
        return taxonomy.split_id(self.id)[1]


@dataclass
class Case:
    case_id: str
    dir: Path
    kind: str
    source: str | None
    notes: str | None
    must_find: list[Expectation]
    may_find: list[Expectation]
    must_not_say: list[Expectation]
    doc: ExpectedDoc
    snapshot: Snapshot | None

    @property
    def expected_path(self) -> Path:
        return self.dir / EXPECTED_FILE

    @property
    def snapshot_path(self) -> Path:
        return self.dir / SNAPSHOT_FILE

    def expectations(self, list_name: str | None = None) -> list[Expectation]:
        if list_name is not None:
            return getattr(self, list_name)
        return [*self.must_find, *self.may_find, *self.must_not_say]

    @property
    def writeups_dir(self) -> Path:
        """``writeups/`` beside the cases folder."""
        return self.dir.parent.parent / WRITEUPS_DIR

    def source_problem(self) -> str | None:
        """Why ``source`` cannot be read as a write-up, or None when it can (or is not set)."""
        if self.source is None:
            return None
        if not isinstance(self.source, str):
            return f"'source' must be a path such as {WRITEUPS_DIR}/wu01-name.md, not {type(self.source).__name__}"
        if not self.source:
            return None
        target = self.dir.parent.parent / self.source
        if not inside(target, self.writeups_dir):
            return (f"'source' {self.source!r} resolves outside the {WRITEUPS_DIR}/ folder beside the cases "
                    f"folder; a write-up must be a file in {WRITEUPS_DIR}/ (links are followed)")
        return None

    def source_path(self) -> Path | None:
        """The write-up file, relative to the folder that holds ``cases/``; None when unset or refused.

        Only paths that resolve inside ``writeups/`` are returned, so nothing
        reads a file a case file points at elsewhere (``/proc/self/environ``).
        """
        if not self.source or self.source_problem() is not None:
            return None
        return (self.dir.parent.parent / self.source).resolve()

    def refresh(self) -> None:
        """Rebuild the expectation lists from the (edited) round-trip tree."""
        self.kind = str(self.doc.data.get("kind", ""))
        self.source = self.doc.data.get("source")
        self.notes = self.doc.data.get("notes")
        for name in LISTS:
            setattr(self, name, _expectations(self.doc.data, name))


def _expectations(data: CommentedMap, list_name: str) -> list[Expectation]:
    seq = data.get(list_name)
    if not isinstance(seq, list):
        return []
    out = []
    for index, node in enumerate(seq):
        if not isinstance(node, dict):
            continue
        rows = node.get("rows") or []
        says = node.get("says") or []
        out.append(
            Expectation(
                list_name=list_name,
                index=index,
                id=str(node.get("id", "")),
                evidence=str(node.get("evidence", "") or ""),
                rows=[str(r) for r in rows] if isinstance(rows, list) else [],
                says=[str(s) for s in says] if isinstance(says, list) else [],
                claim=node.get("claim"),
                line=_line(seq, index),
            )
        )
    return out


def load_case(case_dir: str | Path, *, with_snapshot: bool = True) -> Case:
    """Load one case. Raises CaseFileError / SnapshotError when a file cannot be parsed.

    The folder holding ``case_dir`` is its case root: a case linked out of it is refused.
    """
    case_dir = Path(case_dir)
    doc = _load_doc(case_dir)
    return _case(case_dir, doc, Snapshot.load(case_dir / SNAPSHOT_FILE) if with_snapshot else None)


def _load_doc(case_dir: Path) -> ExpectedDoc:
    """The case's expected.yaml, once its folder and files are known to be inside the case root."""
    outside = outside_root_problem(case_dir, case_dir.parent)
    if outside is not None:
        raise CaseFileError(outside)
    return ExpectedDoc.load(case_dir / EXPECTED_FILE)


def _case(case_dir: Path, doc: ExpectedDoc, snapshot: Snapshot | None) -> Case:
    data = doc.data
    case = Case(
        case_id=case_dir.name,
        dir=case_dir,
        kind=str(data.get("kind", "")),
        source=data.get("source"),
        notes=data.get("notes"),
        must_find=[],
        may_find=[],
        must_not_say=[],
        doc=doc,
        snapshot=snapshot,
    )
    case.refresh()
    return case


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def validate_case(case: Case) -> list[Problem]:
    """Every structural problem of a loaded case (the snapshot must be loaded)."""
    return _file_problems(case) + content_problems(case)


def _file_problems(case: Case) -> list[Problem]:
    """The problems of expected.yaml that depend on more than the two files' bytes: the case's folder name
    and the write-up it names."""
    path = case.expected_path
    data = case.doc.data
    problems: list[Problem] = []

    def err(line: int, msg: str) -> None:
        problems.append(Problem(path, line, msg))

    if not CASE_ID_RE.match(case.case_id):
        err(1, f"case folder name {case.case_id!r} is not a valid case id (lowercase letters, digits, '-' and '_', 2 to 64 characters)")
    if data.get("case") != case.case_id:
        err(_line(data, "case"), f"'case' is {data.get('case')!r} but the folder is {case.case_id!r}; they must be equal")
    if case.kind not in CASE_KINDS:
        err(_line(data, "kind"), f"'kind' is {case.kind!r}; use one of {', '.join(CASE_KINDS)}")
    for line in case.doc.dropped_comments():
        problems.append(Problem(path, line, "a comment inside a flow mapping ({...}) is not kept when the app saves "
                                "an edit of this file (ruamel.yaml does not read it); write the entry as a block "
                                "mapping, or move the comment after the closing }", "warning"))
    for key in data:
        if key not in TOP_KEYS:
            problems.append(Problem(path, _line(data, key), f"unknown key {key!r} (known: {', '.join(sorted(TOP_KEYS))})", "warning"))
    if (source_problem := case.source_problem()) is not None:
        err(_line(data, "source"), source_problem)
    elif case.source:
        src = case.source_path()
        if src is not None and not src.is_file():
            # Scoring does not need the write-up, so a case set copied on its own still runs;
            # `reviewtui check` on the shipped set fails on it through the write-up checks.
            problems.append(Problem(path, _line(data, "source"), f"source write-up {case.source!r} not found next to the cases folder", "warning"))
    return problems


def content_problems(case: Case) -> list[Problem]:
    """The problems that follow from the bytes of the case's two files alone (``_file_problems`` has the
    others): the snapshot's, and each entry's of expected.yaml against it. What the validation memo keeps."""
    path = case.expected_path
    data = case.doc.data
    problems: list[Problem] = []

    def err(line: int, msg: str) -> None:
        problems.append(Problem(path, line, msg))

    snapshot = case.snapshot
    if snapshot is not None:
        for msg in required_field_problems(snapshot.data):
            problems.append(Problem(snapshot.path, 1, msg + "; add it to the snapshot"))
        problems += [Problem(snapshot.path, snapshot.line_of("/daily"), msg, severity)
                     for severity, msg in daily_problems(snapshot.data)]
        period = snapshot.data.get("period") if isinstance(snapshot.data, dict) else None
        for msg in period_problems(period) if isinstance(period, dict) else []:
            problems.append(Problem(snapshot.path, snapshot.line_of("/period"), msg + "; a snapshot covers about a month"))
    campaign_ids = snapshot.campaign_ids if snapshot is not None else set()

    seen: dict[str, tuple[str, int]] = {}
    for list_name in LISTS:
        seq = data.get(list_name)
        if seq is None:
            continue
        if not isinstance(seq, list):
            err(_line(data, list_name), f"'{list_name}' must be a list of entries")
            continue
        for index, node in enumerate(seq):
            line = _line(seq, index)
            where = f"{list_name}[{index}]"
            if not isinstance(node, dict):
                err(line, f"{where} must be a mapping with id and evidence")
                continue
            for key in node:
                if key not in ENTRY_KEYS:
                    problems.append(Problem(path, _line(node, key), f"{where}: unknown key {key!r} (known: {', '.join(sorted(ENTRY_KEYS))})", "warning"))
            fid = node.get("id")
            if not isinstance(fid, str) or not fid:
                err(line, f"{where} has no 'id'; add a taxonomy id such as tracking.conversions_stopped")
            else:
                kind, scope = taxonomy.split_id(fid)
                if not taxonomy.is_kind(kind):
                    err(_line(node, "id"), f"{where}: unknown finding kind {kind!r}; see reviewtui/taxonomy.yaml for the ids")
                if scope is not None and snapshot is not None and scope not in campaign_ids:
                    err(_line(node, "id"), f"{where}: scope {scope!r} is not a campaign id in snapshot.json (campaigns: {', '.join(sorted(campaign_ids)) or 'none'})")
                if fid in seen:
                    other_list, other_line = seen[fid]
                    err(_line(node, "id"), f"{where}: id {fid!r} already used in {other_list} at line {other_line}; ids are unique across the three lists")
                else:
                    seen[fid] = (list_name, _line(node, "id"))
            evidence = node.get("evidence")
            if not isinstance(evidence, str) or not evidence.strip():
                err(line, f"{where} has no 'evidence'; add one line with the figures from the rows")
            elif "\n" in evidence.strip():
                err(_line(node, "evidence"), f"{where}: 'evidence' must be one line")
            rows = node.get("rows")
            if rows is not None:
                if not isinstance(rows, list):
                    err(_line(node, "rows"), f"{where}: 'rows' must be a list of JSON Pointers such as /daily/12")
                elif snapshot is not None:
                    for ptr in rows:
                        try:
                            snapshot.resolve(str(ptr))
                        except PointerError as exc:
                            err(_line(node, "rows"), f"{where}: row {ptr!r} does not resolve in snapshot.json ({exc}); fix the pointer")
            says = node.get("says")
            if says is not None:
                if not isinstance(says, list):
                    err(_line(node, "says"), f"{where}: 'says' must be a list of regexes")
                else:
                    for pattern in says:
                        if (refused := says_problem(pattern)) is not None:
                            err(_line(node, "says"), f"{where}: {refused}")
    return problems


@dataclass
class CaseSet:
    root: Path
    cases: list[Case]
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def by_id(self, case_id: str) -> Case:
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)

    def digest(self) -> str:
        """SHA-256 over every case's expected.yaml and snapshot.json bytes, in id order.

        The bytes are the ones that were parsed, not the files as they are now: a case saved
        while a run is scored must not give the run the hash of a version it never read.
        (A snapshot not loaded with the set is read here.)
        """
        h = hashlib.sha256()
        for case in sorted(self.cases, key=lambda c: c.case_id):
            h.update(case.case_id.encode())
            snapshot = case.snapshot.raw if case.snapshot is not None else case.snapshot_path.read_bytes()
            for data in (case.doc.raw, snapshot):
                h.update(b"\0")
                h.update(data)
        return h.hexdigest()


def case_dirs(root: str | Path) -> Iterator[Path]:
    root = Path(root)
    for child in sorted(root.iterdir()):
        if child.is_dir() and not child.name.startswith("."):
            yield child


def outside_root_problem(case_dir: Path, root: Path) -> Problem | None:
    """A case folder, or one of its files, that is a link to somewhere outside the case root.

    Such a case is refused: reading it would show an outside file, and saving
    it would rewrite one.
    """
    for path in (case_dir, case_dir / EXPECTED_FILE, case_dir / SNAPSHOT_FILE):
        if (path.exists() or path.is_symlink()) and not inside(path, root):
            return Problem(path, 1, f"{path.name} is a link to {path.resolve()}, outside the cases folder "
                           f"{root}; copy the case into the folder instead of linking it")
    return None


def load_case_set(root: str | Path, *, with_snapshots: bool = True, memo: bool = False) -> CaseSet:
    """Load and validate every case under ``root``; unparseable files become problems.

    ``memo``: a case whose two files this code validated before (the same bytes) takes its problems
    from the validation memo (``_load_validated``) and its snapshot as ``ParsedBefore``, parsed only
    if something reads its rows."""
    root = Path(root)
    cases: list[Case] = []
    problems: list[Problem] = []
    if not root.is_dir():
        problems.append(Problem(root, 1, "cases folder not found; pass --cases DIR"))
        return CaseSet(root, cases, problems)
    for case_dir in case_dirs(root):
        try:
            if memo and with_snapshots:
                case, found = _load_validated(case_dir)
            else:
                case = load_case(case_dir, with_snapshot=with_snapshots)
                found = validate_case(case)
        except CaseFileError as exc:
            problems.append(exc.problem)
            continue
        except SnapshotError as exc:
            problems.append(Problem(exc.path, exc.line, exc.message))
            continue
        cases.append(case)
        problems.extend(found)
    if not cases and not problems:
        problems.append(Problem(root, 1, "no cases found: each case is a folder with snapshot.json and expected.yaml"))
    return CaseSet(root, cases, problems)


# The validation memo: what ``content_problems`` found for a pair of files, by their bytes, in
# ``parse_cache``'s ``validation/`` folder, salted with this package's sources (``package_digest``),
# so an edited validation validates again. A pair whose snapshot did not parse is never kept.
MEMO_FOLDER = "validation"
MEMO_FORMAT = 1
# The top-level values of a snapshot the checks read without its rows (``Snapshot.section``).
KEPT_SECTIONS = ("source",)


def _load_validated(case_dir: Path) -> tuple[Case, list[Problem]]:
    """``load_case`` and ``validate_case`` of ``case_dir``, through the validation memo."""
    doc = _load_doc(case_dir)
    snapshot_path = case_dir / SNAPSHOT_FILE
    raw = read_snapshot_bytes(snapshot_path)
    digest = parse_cache.package_digest()
    salt = f"validation|{MEMO_FORMAT}|{digest}" if digest else ""
    snapshot_sha256 = hashlib.sha256(raw).hexdigest()
    key = f"{sha256(doc.raw)}|{snapshot_sha256}".encode()
    kept = parse_cache.load(key, salt, folder=MEMO_FOLDER) if salt else None
    if isinstance(kept, dict) and kept.get("format") == MEMO_FORMAT:
        snapshot: Snapshot = ParsedBefore(snapshot_path, raw, kept["sections"])
        snapshot.sha256 = snapshot_sha256
        case = _case(case_dir, doc, snapshot)
        paths = {"expected": case.expected_path, "snapshot": snapshot_path}
        found = [Problem(paths[where], line, message, severity) for where, line, message, severity in kept["problems"]]
        return case, _file_problems(case) + found
    snapshot = Snapshot.parse(snapshot_path, raw)
    snapshot.sha256 = snapshot_sha256
    case = _case(case_dir, doc, snapshot)
    found = content_problems(case)
    if salt:
        where = {case.expected_path: "expected", snapshot_path: "snapshot"}
        kept = {"format": MEMO_FORMAT, "sections": {name: snapshot.section(name) for name in KEPT_SECTIONS},
                "problems": [(where[p.path], p.line, p.message, p.severity) for p in found]}
        parse_cache.store(key, kept, salt, folder=MEMO_FOLDER)
    return case, _file_problems(case) + found
