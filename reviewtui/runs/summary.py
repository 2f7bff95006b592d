"""The summary text printed on stdout after a run, from the manifest alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .gate import THRESHOLDS, WORST_CASES_SHOWN
from .identity import ASSISTANT, role_label, role_of
from .run_statistics import by_kind_lines, consistency_lines, uncertainty_lines
from ..backends.throttle import backoff_sentence

if TYPE_CHECKING:
    from .manifest_fields import Manifest, Summary, Usage

ITEMS_SHOWN_PER_CASE = 5


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def format_summary(manifest: Manifest) -> str:
    """The run summary printed on stdout, from the manifest alone."""
    s = manifest.get("summary") or {}
    thresholds = manifest.get("thresholds") or THRESHOLDS
    gate = manifest.get("gate") or {"passed": None, "reasons": []}
    usage = manifest.get("usage") or {}
    lines = []
    scored = f"{s.get('scored', 0)} of {s.get('cases', 0)} cases scored" if s.get("scored") != s.get("cases") else f"{s.get('cases', 0)} cases"
    if role_of(manifest) != ASSISTANT:
        lines.append(f"results of the {role_label(manifest)}")
    lines.append(
        f"prompt {manifest.get('prompt_version')} (sha256 {str(manifest.get('prompt_sha256'))[:12]}), "
        f"backend {manifest.get('backend')}, model {manifest.get('model') or '-'}, {scored}, "
        f"figures {manifest.get('figures')}, status {manifest.get('status')}"
    )
    min_recall = thresholds["min_mean_recall"]
    recall = s.get("mean_recall")
    recall_ok = recall is not None and recall >= min_recall
    lines.append(f"mean recall     {_fmt(recall):<7} needs >= {min_recall:.2f}   {'ok' if recall_ok else 'FAIL'}")
    lines += uncertainty_lines(manifest, "recall")
    lines.append(f"mean precision  {_fmt(s.get('mean_precision')):<7} (reported, not gated)")
    lines += uncertainty_lines(manifest, "precision")
    fabrications = s.get("fabrications", 0)
    fab_ok = fabrications <= thresholds["max_fabrications"]
    lines.append(f"fabrications    {fabrications:<7} allowed {thresholds['max_fabrications']}        {'ok' if fab_ok else 'FAIL'}")
    lines += _case_lines(s.get("fabrication_cases") or [], "fabrication", "", "fabrications")
    lines += _figure_lines(s)

    by_kind = manifest.get("missed_by_kind") or {}
    if by_kind:
        lines.append("missed must_find ids by kind, most cases first (scored cases only):")
        width = max(len(k) for k in by_kind)
        for kind, entry in by_kind.items():
            n = entry["cases"]
            where = ", ".join(
                f"{case_id}{'' if missed_id == kind else ' (@' + missed_id.split('@', 1)[1] + ')'}"
                for missed_id, case_ids in entry["ids"].items() for case_id in case_ids
            )
            lines.append(f"  {n:>3} case{'s' if n != 1 else ' '}  {kind:<{width}}  {where}")
        pattern = manifest.get("miss_pattern")
        if pattern:
            lines.append(f"  pattern: {pattern['text']}")
    else:
        lines.append("missed must_find ids: none")
    lines += consistency_lines(manifest)
    lines += by_kind_lines(manifest)

    unparseable = s.get("unparseable_cases") or []
    answers = s.get("unparseable_answers", len(unparseable))
    allowed = thresholds.get("max_unparseable", 0)
    lines.append(f"unparseable     {answers:<7} allowed {allowed:<8} {'ok' if answers <= allowed else 'FAIL'}"
                 + (f" ({len(unparseable)} case(s))" if answers != len(unparseable) else ""))
    for failed in unparseable:
        lines.append(f"  {failed['case_id']}: {failed['reason']}")
    errors = s.get("error_cases") or []
    lines.append(f"errors          {len(errors)}")
    for failed in errors:
        lines.append(f"  {failed['case_id']}: {failed['reason']}")
    if s.get("not_run"):
        lines.append(f"not run         {s['not_run']}: {', '.join(s.get('not_run_cases') or [])}")
    lines.append(f"tokens          {usage_text(usage)}")
    backoff = backoff_sentence((manifest.get("backend_details") or {}).get("concurrency"))
    if backoff:
        lines.append(f"rate limits     {backoff}")

    if gate.get("passed") is None:
        lines.append("gate            NO VERDICT (run incomplete)")
    else:
        lines.append(f"gate            {'PASSED' if gate['passed'] else 'FAILED'}")
    for reason in gate.get("reasons") or []:
        lines.append(f"  - {reason}")
    return "\n".join(lines) + "\n"


def _figure_lines(s: Summary) -> list[str]:
    """The figures by status (not gated but the fabricated), and where the untraceable ones are;
    nothing for a manifest written before the split."""
    counts = s.get("figures")
    if not isinstance(counts, dict):
        return []
    total = counts.get("grounded", 0) + counts.get("untraceable", 0) + counts.get("fabricated", 0)
    lines = [f"figures         {total:<7} {counts.get('grounded', 0)} grounded, {counts.get('untraceable', 0)} untraceable "
             f"(grounded by the prose rules only, not declared), {counts.get('fabricated', 0)} fabricated"]
    return lines + _case_lines(s.get("untraceable_cases") or [], "untraceable", " untraceable", "untraceable figures")


def _case_lines(entries: Sequence[Mapping[str, Any]], count: str, what: str, more: str) -> list[str]:
    """The first cases of ``entries`` with their count and items, then how many more there are."""
    lines = []
    for entry in entries[:WORST_CASES_SHOWN]:
        items = entry["items"]
        shown = "; ".join(items[:ITEMS_SHOWN_PER_CASE]) + (f"; +{len(items) - ITEMS_SHOWN_PER_CASE} more" if len(items) > ITEMS_SHOWN_PER_CASE else "")
        lines.append(f"  {entry['case_id']}: {entry[count]}{what}: {shown}")
    if len(entries) > WORST_CASES_SHOWN:
        lines.append(f"  ... and {len(entries) - WORST_CASES_SHOWN} more case(s) with {more} (see the CSV)")
    return lines


def usage_text(usage: Usage) -> str:
    """The tokens and estimated cost of a run's calls (the eval's summary, the weekly run's last lines)."""
    tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    cached = usage.get("cached", 0)
    if not tokens_in and not tokens_out:
        return "none (no model calls)"
    cost = usage.get("cost_usd")
    cost_text = "cost unknown for this model" if cost is None else f"estimated cost ${cost:,.2f}"
    write, read = usage.get("cache_write_tokens", 0), usage.get("cache_read_tokens", 0)
    prompt_cache = f" (prompt cache: {write:,} written, {read:,} read)" if write or read else ""
    cache_text = f", {cached} answer(s) from the cache cost nothing" if cached else ""
    kept = usage.get("kept", 0)
    kept_text = f", {kept} answer(s) kept from the interrupted run" if kept else ""
    return f"{tokens_in:,} in{prompt_cache} / {tokens_out:,} out, {cost_text}{cache_text}{kept_text}"
