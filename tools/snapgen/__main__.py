"""``python -m tools.snapgen``: list, generate and verify the shipped snapshots.

    python -m tools.snapgen list
    python -m tools.snapgen generate c01-outdoor-retail [more ids] | --all [--root DIR] [--stdout-draft]
    python -m tools.snapgen verify [--root DIR]      # committed snapshots == regenerated, no unlisted condition
    python -m tools.snapgen ready [--root DIR]       # writes writeups/.snapshots-ready for the write-up author
    python -m tools.snapgen samples [--verify]       # the weekly run's sample accounts, examples/accounts/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .build import generate, spec_for
from .catalogue import CASES
from .output import write_case


def _root(args) -> Path:
    return Path(args.root).resolve()


def cmd_list(args) -> int:
    for spec in CASES:
        names = ", ".join(s.name for s in spec.scenarios)
        print(f"{spec.case_id:28} {spec.kind:12} {spec.platform:10} seed={spec.seed:<5} {names}")
    return 0


def cmd_generate(args) -> int:
    specs = CASES if args.all else [spec_for(c) for c in args.cases]
    if not specs:
        print("name case ids or pass --all", file=sys.stderr)
        return 2
    root = _root(args)
    status = 0
    for spec in specs:
        gen = generate(spec)
        if gen.unlisted:
            status = 1
            for cid, why in gen.unlisted.items():
                print(f"{spec.case_id}: unlisted condition {cid}: {why} (plant it, or waive it in the spec with a reason)", file=sys.stderr)
        text = gen.snapshot_text
        for done in write_case(root / "cases" / spec.case_id, text, gen.expected_text(), stdout_draft=args.stdout_draft):
            print(f"wrote {done}", file=sys.stderr)
        if spec.wu:
            wu_path = root / spec.writeup_snapshot
            wu_path.parent.mkdir(parents=True, exist_ok=True)
            if not wu_path.exists() or wu_path.read_text(encoding="utf-8") != text:
                wu_path.write_text(text, encoding="utf-8")
                print(f"wrote {wu_path}", file=sys.stderr)
        print(f"{spec.case_id}: {len(gen.snapshot['daily'])} daily rows, {len(gen.snapshot['campaigns'])} campaigns, "
              f"{sum(e.list_name == 'must_find' for e in gen.entries)} must_find")
    return status


def cmd_verify(args) -> int:
    root = _root(args)
    bad = 0
    for spec in CASES:
        gen = generate(spec)
        path = root / "cases" / spec.case_id / "snapshot.json"
        if not path.exists():
            print(f"{spec.case_id}: missing {path}")
            bad += 1
        elif path.read_text(encoding="utf-8") != gen.snapshot_text:
            print(f"{spec.case_id}: {path} differs from what seed {spec.seed} generates")
            bad += 1
        for cid, why in gen.unlisted.items():
            print(f"{spec.case_id}: unlisted condition {cid}: {why}")
            bad += 1
    print(f"{len(CASES)} cases checked, {bad} problem(s)")
    return 1 if bad else 0


def cmd_ready(args) -> int:
    root = _root(args)
    lines = ["# Write-up snapshots ready (tools/snapgen). One block per write-up: wu id, case id, planted scenarios.",
             "# Figures and dates are read from the rows; the drafted expected.yaml of each case has the evidence lines.", ""]
    for spec in CASES:
        if not spec.wu:
            continue
        gen = generate(spec)
        snap = gen.snapshot
        lines.append(f"{spec.wu}  ->  cases/{spec.case_id}  ({spec.kind}, {snap['platform']}, {PROFILE_LINE(snap)})")
        for s in spec.scenarios:
            lines.append(f"  - scenario: {s.describe(gen.plan)}")
        for e in gen.entries:
            lines.append(f"    {e.list_name}: {e.id}: {e.evidence}")
        lines.append("")
    out = root / "writeups" / ".snapshots-ready"
    out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def cmd_samples(args) -> int:
    from .samples import verify_samples, write_samples

    root = _root(args)
    if args.verify:
        problems = verify_samples(root)
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    for path in write_samples(root):
        print(f"wrote {path}", file=sys.stderr)
    return 0


def PROFILE_LINE(snap) -> str:  # noqa: N802 - a formatting helper used once
    p, a, t = snap["period"], snap["account"], snap["targets"]
    target = f"target CPA {t['target_cpa']}" if t.get("target_cpa") else f"target ROAS {t['target_roas']}"
    return f"{a['currency_code']}, {p['start']} to {p['end']}, as_of {p['as_of']}, monthly budget {t['monthly_budget']:,.2f}, {target}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.snapgen", description="Generate the case set's snapshots.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="the catalogue of cases")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("generate", help="write snapshot.json (and expected.yaml if absent) for cases")
    p.add_argument("cases", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--root", default=".", help="repository root holding cases/ and writeups/ (default: .)")
    p.add_argument("--stdout-draft", action="store_true", help="print drafts for existing expected.yaml instead of writing expected.draft.yaml")
    p.set_defaults(func=cmd_generate)
    p = sub.add_parser("verify", help="check committed snapshots regenerate byte for byte and no condition is unlisted")
    p.add_argument("--root", default=".")
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("ready", help="write writeups/.snapshots-ready")
    p.add_argument("--root", default=".")
    p.set_defaults(func=cmd_ready)
    p = sub.add_parser("samples", help="write the weekly run's sample accounts, examples/accounts/")
    p.add_argument("--root", default=".")
    p.add_argument("--verify", action="store_true", help="only check the committed samples regenerate byte for byte")
    p.set_defaults(func=cmd_samples)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
