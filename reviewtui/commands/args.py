"""A subcommand's arguments parsed without leaving the process, so each ``main`` returns its exit code;
its output printed so that a reader that stops early (``| head``) is no error; and the exit of a
``python -m`` run with that code."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Iterable, NoReturn, TextIO

EXIT_USAGE = 2
EXIT_CANCELLED = 3  # Ctrl-C, in every subcommand: what was asked did not finish


def cancelled_line(command: str) -> str:
    """What a subcommand says when Ctrl-C stopped it before it finished."""
    if command == "eval":
        return "cancelled before the run started: nothing was run or written"
    return f"reviewtui {command}: cancelled (Ctrl-C) before it finished; run it again"


def run_module(command: str, main: Callable[[list[str] | None], int]) -> NoReturn:
    """``python -m reviewtui.<module>``: ``main``'s exit code, and exit 3 without a traceback on Ctrl-C."""
    try:
        code = main(None)
    except KeyboardInterrupt:
        print(cancelled_line(command), file=sys.stderr)
        code = EXIT_CANCELLED
    exit_from_module(code)


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> tuple[argparse.Namespace | None, int]:
    """The arguments, or None with the exit code: 0 after ``--help``, 2 after a usage error (argparse printed it)."""
    try:
        return parser.parse_args(argv), 0
    except SystemExit as exc:
        return None, EXIT_USAGE if exc.code not in (0, None) else 0


def emit(lines: Iterable[str], stream: TextIO | None = None) -> None:
    """Print the lines; a reader that stopped early (``| head``) is no error, and no traceback.

    The command's work and exit code stand: output nobody reads any more is not a failure.
    """
    stream = stream or sys.stdout
    try:
        for line in lines:
            print(line, file=stream)
        stream.flush()
    except BrokenPipeError:
        try:  # the interpreter flushes stdout again at exit: point it at nothing
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass


def exit_from_module(code: int) -> NoReturn:
    """Exit a ``python -m reviewtui...`` run with ``code``, even after a Ctrl-C the program caught.

    Under ``-m``, CPython ends the process by SIGINT (exit -2, 130 in a shell) when any
    KeyboardInterrupt ended a string ``exec`` during the run, even one the program then caught
    and answered with its own exit code: it marks the interpreter at that moment and checks the
    mark only after ``main`` returned. dataclasses and namedtuple build their methods with string
    ``exec``, so a Ctrl-C during start-up's imports often lands there. A string ``exec`` that
    completes clears the mark, so the exit code is the one ``main`` chose.
    """
    exec("pass", {})
    sys.exit(code)
