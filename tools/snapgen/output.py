"""Files on disk: snapshot.json (one list item per line) and expected.yaml drafts.

An existing expected.yaml belongs to the seniors: it is never written over.
When one exists the draft goes to ``expected.draft.yaml`` beside it (or to
stdout), for a human to merge by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from .entries import LIST_ORDER, Entry

ONE_ITEM_PER_LINE = {"daily", "search_terms", "ads", "change_events", "campaigns", "budgets", "conversion_actions", "flight_plan"}


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def snapshot_text(snap: dict[str, Any]) -> str:
    """Pretty JSON with each row of the long lists on its own line (readable pointers, small diffs)."""
    parts = []
    for key, value in snap.items():
        if key in ONE_ITEM_PER_LINE and isinstance(value, list):
            if value:
                body = ",\n".join(f"    {_compact(item)}" for item in value)
                parts.append(f"  {json.dumps(key)}: [\n{body}\n  ]")
            else:
                parts.append(f"  {json.dumps(key)}: []")
        else:
            text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _flow(items: list[str]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def expected_doc(case_id: str, kind: str, source: str | None, entries: list[Entry], header: str) -> CommentedMap:
    doc = CommentedMap()
    doc["case"] = case_id
    doc["kind"] = kind
    if source:
        doc["source"] = source
    for list_name in LIST_ORDER:
        seq = CommentedSeq()
        for e in entries:
            if e.list_name != list_name:
                continue
            node = CommentedMap()
            node["id"] = e.id
            node["evidence"] = e.evidence
            if e.rows:
                node["rows"] = _flow(e.rows)
            if e.says:  # regexes quoted: "?" and "|" inside a flow list trip strict YAML readers
                node["says"] = _flow([DoubleQuotedScalarString(p) for p in e.says])
            seq.append(node)
        doc[list_name] = seq
    doc.yaml_set_start_comment(header)
    return doc


def yaml_text(doc: CommentedMap) -> str:
    import io

    y = YAML(typ="rt")
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()


def write_case(case_dir: Path, snapshot: str, expected: str, *, stdout_draft: bool = False) -> list[str]:
    """Write snapshot.json and the expected draft; returns what was written (for the report)."""
    case_dir.mkdir(parents=True, exist_ok=True)
    done = []
    snap_path = case_dir / "snapshot.json"
    if not snap_path.exists() or snap_path.read_text(encoding="utf-8") != snapshot:
        snap_path.write_text(snapshot, encoding="utf-8")
        done.append(str(snap_path))
    exp_path = case_dir / "expected.yaml"
    if not exp_path.exists():
        exp_path.write_text(expected, encoding="utf-8")
        done.append(str(exp_path))
    elif exp_path.read_text(encoding="utf-8") == expected:
        pass  # the seniors have not edited the draft yet: nothing to hand over
    elif stdout_draft:
        print(f"# --- draft for {exp_path} (not written: the file exists) ---")
        print(expected)
    else:
        draft = case_dir / "expected.draft.yaml"
        draft.write_text(expected, encoding="utf-8")
        done.append(f"{draft} (expected.yaml exists and was left alone)")
    return done
