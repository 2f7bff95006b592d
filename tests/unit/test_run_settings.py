"""RunSettings: one typed object for a run, built from the flags or from fields, validated when built."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from reviewtui.commands.eval import build_parser, main, settings_from_args
from reviewtui.runs.settings import BOUNDS, RunSettings, SettingProblem, SettingsError, UsageError
from reviewtui.commands.weekly import build_parser as weekly_parser, run_settings as weekly_settings


def from_argv(argv: list[str]) -> RunSettings:
    return settings_from_args(build_parser().parse_args(argv))


def test_the_flags_defaults_are_the_settings_defaults():
    assert from_argv([]) == RunSettings()


def test_every_flag_lands_in_its_setting_and_equals_the_same_fields_built_directly():
    argv = ["--backend", "claude", "--cases", "set", "--results-dir", "out", "--replay-dir", "raw",
            "--model", "m-1", "--max-tokens", "900", "--no-cache", "--timeout", "2.5", "--max-retries", "0",
            "--concurrency", "7", "--repeats", "3", "--max-unparseable", "2", "--figures", "strict",
            "--batch", "--batch-poll", "0.5", "--batch-timeout", "60", "--stamp-key", "k.key", "--replace-stamp"]
    fields = RunSettings(backend="claude", cases_dir=Path("set"), results_dir=Path("out"), replay_dir=Path("raw"),
                         model="m-1", max_tokens=900, use_cache=False, timeout=2.5, max_retries=0, concurrency=7,
                         repeats=3, max_unparseable=2, figures="strict", batch=True, batch_poll=0.5,
                         batch_timeout=60.0, stamp_key=Path("k.key"), replace_stamp=True)
    settings = from_argv(argv)
    assert settings == fields
    # Every field but resume (the app's) is set away from its default here, so none is dropped on the way.
    defaults = RunSettings()
    assert [f.name for f in dataclasses.fields(RunSettings)
            if getattr(settings, f.name) == getattr(defaults, f.name)] == ["resume"]


def test_folders_given_as_text_are_paths():
    settings = RunSettings(cases_dir="cases", results_dir="r", replay_dir="raw")  # type: ignore[arg-type]
    assert (settings.cases_dir, settings.results_dir, settings.replay_dir) == (Path("cases"), Path("r"), Path("raw"))


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("concurrency", 0, "--concurrency must be a whole number of at least 1"),
    ("concurrency", 2.5, "--concurrency must be a whole number of at least 1"),
    ("concurrency", True, "--concurrency must be a whole number of at least 1"),
    ("repeats", 0, "--repeats must be a whole number of at least 1"),
    ("max_unparseable", -1, "--max-unparseable must be a whole number of at least 0"),
    ("max_tokens", 0, "--max-tokens must be a whole number of at least 1"),
    ("timeout", 0, "--timeout must be a number above 0"),
    ("timeout", -3.0, "--timeout must be a number above 0"),
    ("max_retries", -1, "--max-retries must be a whole number of at least 0"),
    ("batch_poll", 0.0, "--batch-poll must be a number above 0"),
    ("batch_timeout", -1, "--batch-timeout must be a number above 0"),
    ("figures", "loose", "--figures must be one of derived, strict, not 'loose'"),
])
def test_each_invalid_value_is_refused_naming_the_flag_and_what_it_must_be(setting, value, message):
    with pytest.raises(SettingsError) as info:
        RunSettings(**{setting: value})
    assert str(info.value) == message
    assert isinstance(info.value, UsageError)  # the command line's exit-2 path
    assert [p.setting for p in info.value.problems] == [setting]


def test_every_bounded_setting_is_a_field():
    assert set(BOUNDS) <= {f.name for f in dataclasses.fields(RunSettings)}


def test_every_problem_is_named_at_once_on_one_line():
    with pytest.raises(SettingsError) as info:
        RunSettings(concurrency=0, repeats=0, figures="x")
    assert str(info.value) == ("--concurrency must be a whole number of at least 1; "
                               "--repeats must be a whole number of at least 1; "
                               "--figures must be one of derived, strict, not 'x'")
    assert "\n" not in str(info.value)


def test_a_problem_reads_under_the_forms_label_too():
    problem = SettingProblem("concurrency", "must be a whole number of at least 1")
    assert problem.sentence() == "--concurrency must be a whole number of at least 1"
    assert problem.sentence("Concurrency") == "Concurrency must be a whole number of at least 1"
    assert SettingProblem("cases_dir", "x").sentence() == "--cases x"
    assert SettingProblem("use_cache", "x").sentence() == "--no-cache x"


def test_optional_claude_settings_may_be_left_unset():
    settings = RunSettings(max_tokens=None, timeout=None, max_retries=None)
    assert settings.claude_options_set() == []
    assert RunSettings(model="m", use_cache=False, max_retries=0).claude_options_set() == [
        "--model", "--no-cache", "--max-retries"]


@pytest.mark.parametrize(("backend", "environ", "name", "why"), [
    (None, {}, "rules", "no ANTHROPIC_API_KEY: running the built-in reference auditor (rules backend)"),
    (None, {"ANTHROPIC_API_KEY": "k"}, "claude", "ANTHROPIC_API_KEY is set: running Claude (claude backend)"),
    ("replay", {}, "replay", "backend replay (--backend replay): running stored raw outputs"),
])
def test_the_backend_is_chosen_from_the_setting_and_the_environment(backend, environ, name, why):
    assert RunSettings(backend=backend).chosen_backend(environ) == (name, why)


def test_an_unknown_or_keyless_backend_is_refused_when_chosen():
    with pytest.raises(UsageError, match=r"^unknown backend 'gpt'; use one of claude, rules, replay$"):
        RunSettings(backend="gpt").chosen_backend({})
    with pytest.raises(UsageError, match="the claude backend needs ANTHROPIC_API_KEY"):
        RunSettings(backend="claude").chosen_backend({"ANTHROPIC_API_KEY": "  "})


@pytest.mark.parametrize(("flag", "value", "error"), [
    ("--concurrency", "0", "argument --concurrency: 0 must be at least 1"),
    ("--repeats", "two", "argument --repeats: 'two' is not a whole number"),
    ("--timeout", "0", "argument --timeout: 0 must be above 0"),
    ("--batch-poll", "soon", "argument --batch-poll: 'soon' is not a number"),
    ("--max-retries", "-1", "argument --max-retries: -1 must be at least 0"),
    # infinite and absurd values: each would start a run that never ends
    ("--timeout", "inf", "argument --timeout: inf must be at most 86400"),
    ("--timeout", "1e309", "argument --timeout: 1e309 must be at most 86400"),
    ("--batch-poll", "inf", "argument --batch-poll: inf must be at most 3600"),
    ("--concurrency", "99999999999999999999", "argument --concurrency: 99999999999999999999 must be at most 256"),
])
def test_the_flags_refuse_out_of_range_values_with_the_settings_ranges(flag, value, error, capsys):
    assert main([f"{flag}={value}"]) == 2
    assert error in capsys.readouterr().err


def test_weekly_flags_become_the_same_validated_run_settings():
    args = weekly_parser().parse_args(["accounts", "--max-tokens", "0"])
    with pytest.raises(UsageError, match=r"^--max-tokens must be a whole number of at least 1$"):
        weekly_settings(args)
    args = argparse.Namespace(**{**vars(args), "max_tokens": None, "timeout": -1.0})
    with pytest.raises(UsageError, match=r"^--timeout must be a number above 0$"):
        weekly_settings(args)


def test_the_settings_refuse_a_value_past_the_maximum_with_its_bound():
    with pytest.raises(UsageError, match=r"^--repeats must be at most 100; --batch-poll must be at most 3600$"):
        RunSettings(batch_poll=float("inf"), repeats=101)
