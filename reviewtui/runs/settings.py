"""What a run needs, in one typed object: ``RunSettings``, validated when it is built.

``reviewtui eval`` builds it from its flags (``eval.settings_from_args``),
the app's new-run form from its fields, ``reviewtui weekly`` for its Claude
backend. The backend, the results folder, the run and ``--estimate`` all
read it.

A value that cannot run raises ``SettingsError`` (a ``UsageError``: exit 2
on the command line) naming every bad setting and what it must be. Each
problem names its setting by field, so the command line says ``--concurrency``
and the form says ``Concurrency`` over the same rule.

Choosing the backend (``chosen_backend``) reads the environment, so it is
asked when the run starts, not when the settings are built.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Mapping

from ..backends import BACKEND_NAMES
from ..scoring.grounding import FIGURE_MODES
from .batch import DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_SECONDS

API_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_CONCURRENCY = 4


class UsageError(Exception):
    """Bad usage: one line on stderr, exit 2."""


@dataclass(frozen=True)
class Bound:
    """The range of a number setting: whole or not, at least ``minimum`` (strictly above it with
    ``above``), at most ``maximum`` (so that no infinite or absurd value starts a run that never ends)."""

    whole: bool
    minimum: float
    maximum: float
    above: bool = False

    @property
    def noun(self) -> str:
        return "whole number" if self.whole else "number"

    def admits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int if self.whole else (int, float)):
            return False
        low_enough = value <= self.maximum
        return low_enough and (value > self.minimum if self.above else value >= self.minimum)

    def describe(self) -> str:
        """``a whole number of at least 1``, ``a number above 0``."""
        return f"a {self.noun} {'above' if self.above else 'of at least'} {self.minimum:g}"

    def exceeds(self, value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value > self.maximum

    def refusal(self, value: object) -> str:
        """What a value ``admits`` refuses must be: ``at most 256`` for a value too large, else ``describe``."""
        return f"at most {self.maximum:g}" if self.exceeds(value) else self.describe()


DAY = 86400.0
# Every number setting's range; the command line's flag types are built from these too.
BOUNDS: dict[str, Bound] = {
    "concurrency": Bound(whole=True, minimum=1, maximum=256),
    "repeats": Bound(whole=True, minimum=1, maximum=100),
    "max_unparseable": Bound(whole=True, minimum=0, maximum=10**6),
    "max_tokens": Bound(whole=True, minimum=1, maximum=10**6),
    "timeout": Bound(whole=False, minimum=0, maximum=DAY, above=True),
    "max_retries": Bound(whole=True, minimum=0, maximum=100),
    "batch_poll": Bound(whole=False, minimum=0, maximum=3600, above=True),
    "batch_timeout": Bound(whole=False, minimum=0, maximum=7 * DAY, above=True),
}

def flag_type(setting: str) -> Callable[[str], Any]:
    """An argparse type for a number setting, from its range in ``BOUNDS`` (eval's and weekly's flags)."""
    bound = BOUNDS[setting]

    def parse(text: str) -> Any:
        try:
            value = (int if bound.whole else float)(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {bound.noun}") from None
        if not bound.admits(value):
            limit = (f"at most {bound.maximum:g}" if bound.exceeds(value)
                     else f"{'above' if bound.above else 'at least'} {bound.minimum:g}")
            raise argparse.ArgumentTypeError(f"{text} must be {limit}")
        return value

    return parse


# The command line's name of each setting (the form has its own labels).
FLAGS = {"cases_dir": "--cases", "use_cache": "--no-cache"}


def flag_of(name: str) -> str:
    return FLAGS.get(name, "--" + name.replace("_", "-"))


@dataclass(frozen=True)
class SettingProblem:
    """One setting that cannot run: ``setting`` is the field, ``text`` what it must be."""

    setting: str
    text: str

    def sentence(self, name: str | None = None) -> str:
        """The problem under the setting's ``name`` (default: its command-line flag)."""
        return f"{name or flag_of(self.setting)} {self.text}"


class SettingsError(UsageError):
    """Settings that cannot run; ``problems`` lists each bad setting, the message joins them on one line."""

    def __init__(self, problems: list[SettingProblem]) -> None:
        super().__init__("; ".join(p.sentence() for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class RunSettings:
    """Everything a run reads: the backend and its options, the folders, the run's shape, batch options.

    ``backend`` None means "Claude when the API key is set, else the reference
    auditor" (``chosen_backend``). ``model``, ``max_tokens``, ``timeout`` and
    ``max_retries`` None mean the Claude backend's defaults.
    """

    backend: str | None = None
    cases_dir: Path = Path("cases")
    results_dir: Path = Path("results")
    replay_dir: Path | None = None
    model: str | None = None
    max_tokens: int | None = None
    use_cache: bool = True
    timeout: float | None = None
    max_retries: int | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    repeats: int = 1
    max_unparseable: int = 0
    figures: str = "derived"
    resume: bool = False
    batch: bool = False
    batch_poll: float = DEFAULT_POLL_SECONDS
    batch_timeout: float = DEFAULT_TIMEOUT_SECONDS
    stamp_key: Path | None = None  # sign the record under this key (runs/signature.py); else REVIEWTUI_STAMP_KEY's
    replace_stamp: bool = False  # a run of another case set may replace the record made on the project's cases

    def __post_init__(self) -> None:
        for name in ("cases_dir", "results_dir", "replay_dir", "stamp_key"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Path):
                object.__setattr__(self, name, Path(value))
        problems = self.problems()
        if problems:
            raise SettingsError(problems)

    def problems(self) -> list[SettingProblem]:
        """Every setting that cannot run, in field order."""
        found = []
        for f in fields(self):
            value = getattr(self, f.name)
            bound = BOUNDS.get(f.name)
            if bound is not None and value is not None and not bound.admits(value):
                found.append(SettingProblem(f.name, f"must be {bound.refusal(value)}"))
        if self.figures not in FIGURE_MODES:
            found.append(SettingProblem("figures", f"must be one of {', '.join(FIGURE_MODES)}, not {self.figures!r}"))
        return found

    def chosen_backend(self, environ: Mapping[str, str] = os.environ) -> tuple[str, str]:
        """The backend to run and the sentence saying why. Raises UsageError."""
        has_key = bool(environ.get(API_KEY_ENV, "").strip())
        requested = self.backend
        if requested:
            if requested not in BACKEND_NAMES:
                raise UsageError(f"unknown backend {requested!r}; use one of {', '.join(BACKEND_NAMES)}")
            if requested == "claude" and not has_key:
                # Said by eval, the app's new-run form and weekly alike: no flag names here.
                raise UsageError(f"the claude backend needs {API_KEY_ENV} in the environment "
                                 "(or run the rules backend, the reference auditor, or replay stored outputs)")
            why = {"claude": "Claude over the Messages API", "rules": "the built-in reference auditor",
                   "replay": "stored raw outputs"}[requested]
            return requested, f"backend {requested} (--backend {requested}): running {why}"
        if has_key:
            return "claude", f"{API_KEY_ENV} is set: running Claude (claude backend)"
        return "rules", f"no {API_KEY_ENV}: running the built-in reference auditor (rules backend)"

    def claude_options_set(self) -> list[str]:
        """The flags set here that only the claude backend reads."""
        claude_only = (("--model", self.model), ("--max-tokens", self.max_tokens),
                       ("--no-cache", None if self.use_cache else True), ("--timeout", self.timeout),
                       ("--max-retries", self.max_retries))
        return [flag for flag, value in claude_only if value is not None]
