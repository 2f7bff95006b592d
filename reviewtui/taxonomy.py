"""The finding taxonomy, read from ``taxonomy.yaml`` (one source of truth).

Everything that needs the list of finding ids (the prompt, the output
schema's enum, ``reviewtui check``, the app's id picker, the reference
auditor) reads it from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

TAXONOMY_PATH = Path(__file__).with_name("taxonomy.yaml")


SEVERITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class Severity:
    """A kind's severity: its level, or ``high`` when the condition holds (a sentence that may name
    the kind's thresholds as ``{name}``)."""

    level: str
    high_when: str = ""

    def of(self, high: bool = False) -> str:
        return "high" if high and self.high_when else self.level


@dataclass(frozen=True)
class Kind:
    id: str
    meaning: str
    detection: str
    thresholds: dict[str, Any] = field(default_factory=dict)
    severity: Severity = Severity("medium")
    withholds: tuple[str, ...] = ()  # a data breakage: the kinds not assessed where it touches

    @property
    def group(self) -> str:
        """The part before the dot: ``pacing``, ``tracking``, ``data``..."""
        return self.id.split(".", 1)[0]


# libyaml's loader when PyYAML has it: the same documents, read ten times faster (the taxonomy and the
# glossary are read by every command that audits or builds the prompt; 0.15 s of start-up in Python)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_packaged(path: Path) -> Any:
    """One of the package's own YAML files (not user input: their errors are the package's)."""
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_LOADER)


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    return _load_packaged(TAXONOMY_PATH)


@lru_cache(maxsize=1)
def _load() -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for entry in _document()["kinds"]:
        severity = entry.get("severity") or {}
        level = severity.get("level", "medium")
        if level not in SEVERITIES:
            raise ValueError(f"{TAXONOMY_PATH}: {entry['id']} severity level {level!r} is not one of {', '.join(SEVERITIES)}")
        kinds[entry["id"]] = Kind(
            id=entry["id"],
            meaning=entry["meaning"].strip(),
            detection=entry.get("detection", "").strip(),
            thresholds=dict(entry.get("thresholds") or {}),
            severity=Severity(level, str(severity.get("high") or "").strip()),
            withholds=tuple(entry.get("withholds") or ()),
        )
    for kind in kinds.values():
        unknown = [k for k in kind.withholds if k not in kinds]
        if unknown:
            raise ValueError(f"{TAXONOMY_PATH}: {kind.id} withholds unknown kinds {unknown}")
    return kinds


def withheld_by(kind_id: str) -> tuple[str, ...]:
    """The data breakages that leave ``kind_id`` not assessed where they touch."""
    return tuple(k.id for k in _load().values() if kind_id in k.withholds)


def severity_scale() -> dict[str, str]:
    """What high, medium and low mean (money at stake, certainty), in the order of ``SEVERITIES``."""
    scale = _document().get("severity_scale") or {}
    return {level: str(scale.get(level, "")).strip() for level in SEVERITIES}


def kinds() -> dict[str, Kind]:
    """All kinds by id, in the file's order."""
    return _load()


def kind_ids() -> list[str]:
    return list(_load())


def is_kind(kind_id: str) -> bool:
    return kind_id in _load()


def split_id(finding_id: str) -> tuple[str, str | None]:
    """``"waste.zero_conv_campaign@333"`` -> ``("waste.zero_conv_campaign", "333")``."""
    kind, sep, scope = finding_id.partition("@")
    return kind, (scope if sep else None)


def join_id(kind: str, scope: str | None) -> str:
    return f"{kind}@{scope}" if scope else kind


# --------------------------------------------------------------------------
# The glossary: the terms the kinds and thresholds are written in
# --------------------------------------------------------------------------

GLOSSARY_PATH = Path(__file__).with_name("glossary.yaml")


@dataclass(frozen=True)
class Term:
    """One glossary term: its name and other phrasings, its operational definition, the function
    that computes it (``module:name``) and a worked example the tests run through that function."""

    term: str
    definition: str
    function: str
    also: tuple[str, ...] = ()
    example: dict[str, Any] = field(default_factory=dict)

    @property
    def phrasings(self) -> tuple[str, ...]:
        return (self.term, *self.also)


@lru_cache(maxsize=1)
def _glossary_document() -> dict[str, Any]:
    return _load_packaged(GLOSSARY_PATH)


@lru_cache(maxsize=1)
def glossary() -> tuple[Term, ...]:
    """Every term, in the file's order."""
    terms = []
    for entry in _glossary_document()["terms"]:
        for key in ("term", "definition", "function"):
            if not entry.get(key):
                raise ValueError(f"{GLOSSARY_PATH}: term {entry.get('term')!r} has no {key}")
        terms.append(Term(term=entry["term"], definition=" ".join(str(entry["definition"]).split()),
                          function=entry["function"], also=tuple(entry.get("also") or ()),
                          example=dict(entry.get("example") or {})))
    return tuple(terms)


def glossary_watch() -> tuple[str, ...]:
    """The words that mark a term of art: every use of one must be a defined term or phrasing."""
    return tuple(str(w) for w in _glossary_document().get("watch") or ())


def _phrase_re(phrase: str, compounds: bool = False) -> re.Pattern[str]:
    """A phrase as a whole word; with ``compounds``, also as the first part of a hyphenated word
    ("lag" in "lag-weighted"), so a new compound of a watched word is caught."""
    end = r"(?!\w)" if compounds else r"(?![\w-])"
    return re.compile(r"(?<![\w-])" + re.escape(phrase) + end, re.IGNORECASE)


def undefined_terms(text: str) -> list[str]:
    """The uses of a watched word in ``text`` that no glossary term or phrasing covers, each as
    ``word: "...its context..."``: a term the prompt uses but the glossary does not define."""
    covered: list[tuple[int, int]] = []
    for term in glossary():
        for phrase in term.phrasings:
            covered += [m.span() for m in _phrase_re(phrase).finditer(text)]
    problems = []
    for word in glossary_watch():
        for m in _phrase_re(word, compounds=True).finditer(text):
            if not any(a <= m.start() and m.end() <= b for a, b in covered):
                context = " ".join(text[max(0, m.start() - 40): m.end() + 40].split())
                problems.append(f"{word}: \"...{context}...\"")
    return problems
