"""A subcommand's arguments parsed without leaving the process, so each ``main`` returns its exit code."""

from __future__ import annotations

import argparse

EXIT_USAGE = 2


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> tuple[argparse.Namespace | None, int]:
    """The arguments, or None with the exit code: 0 after ``--help``, 2 after a usage error (argparse printed it)."""
    try:
        return parser.parse_args(argv), 0
    except SystemExit as exc:
        return None, EXIT_USAGE if exc.code not in (0, None) else 0
