"""How many made-up figures the fabrication check catches: every figure of a replay folder's
answers changed by 5-14%, one at a time and all at once, and scored again.

    python benchmarks/bench_perturb.py --replay-dir DIR --cases DIR [--seed 1] [--misses 20]

``--replay-dir`` holds ``<case_id>.json`` raw answers (a ``reviewtui eval --backend replay``
folder); ``--cases`` a folder holding those cases (snapshot.json + expected.yaml). Answers of a
case the folder lacks are skipped, and said so.

First the answers as they are: figures fabricated, untraceable and grounded (the false alarms
of an honest set). Then each figure of the claim and evidence (not zero, dates, ids or names:
the scorer's own figure reader decides) is changed by a factor drawn from 0.86-0.95 or
1.05-1.14 (sign random), printed at the same precision with the same marks (currency, %, x,
scale, thousands separators), and kept only when the printed value really changed: read at their precision and hedge, the new
figure and the old admit no value in common ("about 19%" -> "about 20%" is no change: both admit
19.4%); a figure no factor in that range changes so (``2``, ``3``, ``about 6%``) is counted as
unchangeable. When
the finding declares its figures, the declaration with the same ``printed`` is changed with it
(a made-up figure comes with a made-up declaration). A change is *caught* when the changed
figure's verdict is ``fabricated``; ``untraceable`` and ``grounded`` are misses.

- one at a time: one figure changed, the rest of the answer as it was;
- all at once: every changeable figure of an answer changed together.

Prints the share caught, by what the figure measures, and the first ``--misses`` misses with
the scorer's reason. Nothing is asserted: it measures.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
from dataclasses import replace
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewtui.backends.base import CaseOutput  # noqa: E402
from reviewtui.caseset.cases import Case, load_case_set  # noqa: E402
from reviewtui.scoring.figures import Figure, scan  # noqa: E402
from reviewtui.scoring.grounding import GroundingIndex  # noqa: E402
from reviewtui.scoring.score import score_case  # noqa: E402

TEXT_FIELDS = ("claim", "evidence")
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
FACTORS = ((0.86, 0.95), (1.05, 1.14))


def figure_status(row: dict[str, Any]) -> str:
    """fabricated | untraceable | grounded (rows of result files written before ``status`` existed
    have only ``grounded``)."""
    return row.get("status") or ("grounded" if row.get("grounded") else "fabricated")


def changed_text(figure: Figure, rng: random.Random) -> str | None:
    """The figure's text with its number changed by 5-14% at the same precision, or None when no
    such change shows at that precision."""
    digits = _DIGITS.search(figure.text)
    if digits is None:
        return None
    printed = digits.group()
    magnitude = float(printed.replace(",", ""))
    grouped = "," in printed or None
    for _ in range(20):
        low, high = rng.choice(FACTORS)
        new = magnitude * rng.uniform(low, high)
        if grouped is None and new >= 10_000 and not (figure.decimals == 0 and magnitude < 10_000):
            grouped = False
        text = f"{new:,.{figure.decimals}f}" if grouped else f"{new:.{figure.decimals}f}"
        if printed.startswith(".") and text.startswith("0."):
            text = text[1:]
        changed = float(text.replace(",", ""))
        # really changed: read at their precision (with their hedge), the new figure and the old
        # admit no value in common ("about 19%" -> "about 20%" both admit 19.4: no change)
        if abs(changed - magnitude) * figure.scale > _half_width(figure, changed) + _half_width(figure, magnitude):
            return figure.text[:digits.start()] + text + figure.text[digits.end():]
    return None


def _half_width(figure: Figure, printed: float) -> float:
    new = replace(figure, value=printed * figure.scale)
    low, high = new.bounds
    return (high - low) / 2


class Answer:
    """One raw answer, its figures (finding, field, Figure) and their changed texts."""

    def __init__(self, case: Case, raw: str, rng: random.Random) -> None:
        self.case = case
        self.doc = json.loads(raw)
        identifiers = GroundingIndex.for_snapshot(case.snapshot).identifiers
        self.figures: list[tuple[int, str, Figure, str | None]] = []
        for i, finding in enumerate(self.doc.get("findings") or []):
            for field in TEXT_FIELDS:
                text = finding.get(field)
                if isinstance(text, str):
                    for figure in scan(text, identifiers, words=False)[0]:
                        change = None if figure.value == 0 else changed_text(figure, rng)
                        self.figures.append((i, field, figure, change))

    def changed(self, which: list[int]) -> tuple[str, dict[int, tuple[int, str, int]]]:
        """The answer with the figures ``which`` changed; for each, where its changed text starts."""
        doc = copy.deepcopy(self.doc)
        where: dict[int, tuple[int, str, int]] = {}
        by_place: dict[tuple[int, str], list[int]] = {}
        for n in which:
            i, field, _, _ = self.figures[n]
            by_place.setdefault((i, field), []).append(n)
        for (i, field), numbers in by_place.items():
            finding = doc["findings"][i]
            text = finding[field]
            shift = 0
            for n in sorted(numbers, key=lambda k: self.figures[k][2].start):
                _, _, figure, change = self.figures[n]
                assert change is not None
                start = figure.start + shift
                text = text[:start] + change + text[start + len(figure.text):]
                where[n] = (i, field, start)
                shift += len(change) - len(figure.text)
                _change_declaration(finding, figure.text, change)
            finding[field] = text
        return json.dumps(doc, ensure_ascii=False), where


def _change_declaration(finding: dict[str, Any], old: str, new: str) -> None:
    """A declared figure printed as ``old`` is declared as ``new``: the made-up figure's declaration."""
    for item in finding.get("figures") or []:
        if isinstance(item, dict) and isinstance(item.get("printed"), str):
            old_digits, item_digits = _DIGITS.search(old), _DIGITS.search(item["printed"])
            if old_digits and item_digits and old_digits.group() == item_digits.group():
                new_digits = _DIGITS.search(new)
                assert new_digits is not None
                item["printed"] = item["printed"][:item_digits.start()] + new_digits.group() + item["printed"][item_digits.end():]


def statuses(case: Case, raw: str) -> dict[tuple[int, str, int], dict[str, Any]]:
    score = score_case(case, CaseOutput(case.case_id, raw))
    if score.status != "ok":
        raise SystemExit(f"{case.case_id}: the answer is {score.status}: {score.parse_error or score.error}")
    return {(row["finding_index"], row["field"], row["start"]): row for row in score.figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay-dir", required=True, type=Path)
    parser.add_argument("--cases", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misses", type=int, default=0, help="print the first N misses with the reason")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    case_set = load_case_set(args.cases)
    cases = {case.case_id: case for case in case_set.cases}
    answers: list[Answer] = []
    for path in sorted(args.replay_dir.glob("*.json")):
        case = cases.get(path.stem)
        if case is None:
            print(f"skipped {path.name}: no case {path.stem} in {args.cases}")
            continue
        answers.append(Answer(case, path.read_text(encoding="utf-8"), rng))
    if not answers:
        print(f"no answer in {args.replay_dir} has its case in {args.cases}")
        return 2

    honest: Counter[str] = Counter()
    for answer in answers:
        for row in statuses(answer.case, json.dumps(answer.doc)).values():
            honest[figure_status(row)] += 1
    print(f"{len(answers)} answers as they are: {sum(honest.values())} figures, {honest['fabricated']} fabricated, "
          f"{honest['untraceable']} untraceable, {honest['grounded']} grounded")

    misses: list[str] = []
    for mode in ("one at a time", "all at once"):
        caught: Counter[str] = Counter()
        tried: Counter[str] = Counter()
        unchangeable = 0
        for answer in answers:
            changeable = [n for n, (_, _, _, change) in enumerate(answer.figures) if change is not None]
            unchangeable += sum(1 for (_, _, f, change) in answer.figures if change is None and f.value != 0)
            batches = [[n] for n in changeable] if mode == "one at a time" else ([changeable] if changeable else [])
            for batch in batches:
                raw, where = answer.changed(batch)
                rows = statuses(answer.case, raw)
                for n in batch:
                    figure = answer.figures[n][2]
                    row = rows.get(where[n])
                    status = figure_status(row) if row else "not read"
                    tried[figure.measure] += 1
                    if status == "fabricated":
                        caught[figure.measure] += 1
                    elif mode == "one at a time" and len(misses) < args.misses:
                        i, field, _ = where[n]
                        misses.append(f"  {answer.case.case_id} #{i + 1} {field}: {figure.text!r} -> "
                                      f"{answer.figures[n][3]!r}: {status}: {row['reason'] if row else ''}")
        total_tried, total_caught = sum(tried.values()), sum(caught.values())
        by_measure = ", ".join(f"{m} {caught[m]}/{tried[m]}" for m in sorted(tried, key=lambda m: -tried[m]))
        print(f"{mode}: {total_caught} of {total_tried} changed figures caught "
              f"({total_caught / max(total_tried, 1):.1%}); {unchangeable} figures no 5-14% change shows at their "
              f"precision; by measure: {by_measure}")
    if misses:
        print("misses (one at a time):")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
