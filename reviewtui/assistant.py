"""The audit assistant: prompt version, system prompt, output schema, request builder.

Every results file is stamped with ``PROMPT_VERSION`` and ``prompt_sha256()``;
a run refuses to overwrite results of the same version made with a different
prompt text, so changing anything here means bumping ``PROMPT_VERSION``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from . import taxonomy

PROMPT_VERSION = "audit-v1"
DEFAULT_MODEL = "claude-sonnet-5-5"
CHEAP_MODEL = "claude-haiku-5-5"
DEFAULT_MAX_TOKENS = 8000
SEVERITIES = ("high", "medium", "low")

_PROMPT_HEAD = """\
You are a senior paid-media auditor. You receive one advertising account's \
snapshot for one month as JSON (account, period, targets, budgets with their \
change history, flight plans, campaigns, change events, conversion actions, \
daily rows per campaign, search terms, ads). Audit it the way a careful senior \
would before writing to the account's owner, and return your findings as JSON \
in the required schema.

# What to report

Report only what the rows show. Each finding has:
- id: one id from the taxonomy below;
- scope: the campaign id (as a string, exactly as in the snapshot) when the \
finding is about one campaign, or null when it is about the whole account;
- claim: one or two sentences saying what is wrong and why it matters;
- evidence: the dates and figures from the snapshot that prove it;
- severity: high, medium or low (money at stake, and how sure you are).

Report a problem once: do not repeat an id with the same scope. When the \
account is healthy and nothing material is wrong, return exactly one finding \
with id summary.no_material_issues (scope null) instead of an empty list, so \
that "looked and found nothing" differs from "returned nothing".

# Figures

Every number you write must be traceable to the snapshot: a value in the rows, \
or a simple aggregate of them (a sum, an average, a share, CTR, CPC, \
conversion rate, CPA, ROAS, month-to-date pacing against the budget), or the \
difference, ratio or percent change of two figures you cite in the same \
finding. Quote amounts in the account's currency at the precision of the data \
or rounded (1,234.38 may be written 1,234 or 1.2k). Never estimate, \
extrapolate beyond the month-end projection, invent benchmarks, or quote a \
figure you did not compute from the rows. Dates are written as YYYY-MM-DD. \
If you cannot compute a figure, describe the finding without it.

# Taxonomy

"""

_PROMPT_TAIL = """
# Platform facts behind tempting wrong findings

- Conversion lag: conversions are credited to the click date, so the last \
days before as_of (more with long click-through lookback windows) fill in \
later. A gradual taper over the last few days is lag, not a tracking \
failure. A stop is conversions falling to exactly zero from a date while \
clicks hold, for longer or at higher volume than lag can explain. Compare \
CPA and conversion rate on windows that end before the lag window.
- Mid-month budget changes: pace spend against the budget schedule in force \
(use budget history), not a flat monthly line. A budget raised on the 10th \
makes the first nine days look slow; that is not underspend.
- Flighting: a campaign with a flight plan spends only between its flight \
dates; no spend before the flight starts or after it ends is not a delivery \
problem, and the account budget should be paced against the flight plan.
- Daily caps: Google may spend up to 2x a campaign's daily budget on a single \
day (Meta 1.25x) while averaging the budget over the month. Only a day above \
that multiple exceeds the cap.
- Learning periods: after a bid strategy or target change (see \
change_events), one to two weeks of volatile CPA are expected. Report \
bidding.learning_period rather than calling the volatility a performance \
problem.
- Small samples: a CPA computed from two or three conversions, or a search \
term with a handful of clicks and no conversion, is noise. Require enough \
volume before calling efficiency off target or a term wasted.
- Brand campaigns (names containing "Brand", cheap clicks, high conversion \
rate) normally carry a large share of conversions; that is not risky \
concentration by itself. Concentration is about one non-brand campaign \
carrying the account.
- Counting: with MANY_PER_CLICK counting, conversions above clicks are \
normal, not invalid data. Impression share below 10% is reported as 0.0999.
- Google omits the row for a day on which a campaign had no metrics; a \
missing row for one campaign is not missing data. Missing days means dates \
with no rows at all for the account while spend exists around them.
- Demoted conversion actions: when conversions drop but all_conversions \
holds, an action was removed from primary (tracking.primary_action_changed), \
not a broken tag.
- Broken data: check the data before trusting it (duplicate rows, costs \
still in micros, another currency, shifted dates, a partial last day, \
invalid values, totals that do not add up). When the data is broken, report \
the breakage and do not report the pacing or efficiency figures it would \
corrupt.

Return only the JSON object.
"""


def _taxonomy_section() -> str:
    lines = []
    for kind in taxonomy.kinds().values():
        lines.append(f"- {kind.id}: {kind.meaning} How to tell: {kind.detection}")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def system_prompt() -> str:
    return _PROMPT_HEAD + _taxonomy_section() + _PROMPT_TAIL


@lru_cache(maxsize=1)
def output_schema() -> dict[str, Any]:
    """JSON schema of the output; ``additionalProperties: false`` on every object."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["findings"],
        "properties": {
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["id", "scope", "claim", "evidence", "severity"],
                    "properties": {
                        "id": {"type": "string", "enum": taxonomy.kind_ids()},
                        "scope": {"type": ["string", "null"]},
                        "claim": {"type": "string"},
                        "evidence": {"type": "string"},
                        "severity": {"type": "string", "enum": list(SEVERITIES)},
                    },
                },
            }
        },
    }


@lru_cache(maxsize=1)
def prompt_sha256() -> str:
    """SHA-256 of everything that defines the prompt: system text and output schema."""
    h = hashlib.sha256()
    h.update(system_prompt().encode("utf-8"))
    h.update(b"\0")
    h.update(json.dumps(output_schema(), sort_keys=True).encode("utf-8"))
    return h.hexdigest()


def user_message(snapshot_text: str) -> str:
    return (
        "Audit this account snapshot and return your findings as JSON.\n\n"
        "<snapshot>\n" + snapshot_text.strip() + "\n</snapshot>"
    )


def build_request(snapshot_text: str, *, model: str = DEFAULT_MODEL, max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """Keyword arguments for ``client.messages.create`` (anthropic SDK 2.x)."""
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": [{"type": "text", "text": system_prompt()}],
        "messages": [{"role": "user", "content": user_message(snapshot_text)}],
        "output_config": {"format": {"type": "json_schema", "schema": output_schema()}},
    }


# --------------------------------------------------------------------------
# Parsing the output
# --------------------------------------------------------------------------


@dataclass
class Finding:
    id: str
    scope: str | None
    claim: str
    evidence: str
    severity: str

    @property
    def full_id(self) -> str:
        return taxonomy.join_id(self.id, self.scope)

    def texts(self) -> dict[str, str]:
        """The fields scanned for figures (everything but id and scope)."""
        return {"claim": self.claim, "evidence": self.evidence, "severity": self.severity}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class OutputError(ValueError):
    """Model output that is not JSON, or not of the output schema."""


def parse_output(text: str) -> list[Finding]:
    """Parse the assistant's raw JSON text; raise OutputError saying what is wrong."""
    if text is None or not str(text).strip():
        raise OutputError("empty output")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutputError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        raise OutputError("not the output schema: expected an object with a 'findings' list")
    extra = set(doc) - {"findings"}
    if extra:
        raise OutputError(f"not the output schema: unexpected keys {sorted(extra)}")
    findings = []
    known = set(taxonomy.kind_ids())
    for i, item in enumerate(doc["findings"]):
        if not isinstance(item, dict):
            raise OutputError(f"not the output schema: findings[{i}] is not an object")
        fid = item.get("id")
        if not isinstance(fid, str) or fid not in known:
            raise OutputError(f"not the output schema: findings[{i}].id {fid!r} is not a taxonomy id")
        scope = item.get("scope")
        if scope is not None and not isinstance(scope, (str, int)):
            raise OutputError(f"not the output schema: findings[{i}].scope must be a string or null")
        for key in ("claim", "evidence"):
            if not isinstance(item.get(key, ""), str):
                raise OutputError(f"not the output schema: findings[{i}].{key} must be a string")
        severity = item.get("severity", "medium")
        if severity not in SEVERITIES:
            raise OutputError(f"not the output schema: findings[{i}].severity {severity!r} is not high, medium or low")
        findings.append(
            Finding(
                id=fid,
                scope=str(scope) if scope not in (None, "") else None,
                claim=item.get("claim", ""),
                evidence=item.get("evidence", ""),
                severity=severity,
            )
        )
    return findings
