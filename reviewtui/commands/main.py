"""``reviewtui`` itself: the app, or a subcommand by name (``eval``, ``check``, ``compare``, ``weekly``, ``import``,
``redact``: the modules beside this one). The entry point of the ``reviewtui`` script and of ``python -m reviewtui``.

The subcommands import only the headless core; the app's Textual import
happens only when no subcommand is given.
"""

from __future__ import annotations

import sys
from typing import Callable

from .args import EXIT_CANCELLED, cancelled_line

SUBCOMMANDS = ("eval", "compare", "weekly", "check", "import", "redact")


def _command(name: str) -> Callable[[list[str]], int]:
    """The subcommand's ``main``, imported only now (the headless core only)."""
    if name == "eval":
        from .eval import main as eval_main

        return eval_main
    if name == "compare":
        from .compare import main as compare_main

        return compare_main
    if name == "weekly":
        from .weekly import main as weekly_main

        return weekly_main
    if name == "check":
        from .check import main as check_main

        return check_main
    if name == "import":
        from .import_ import main as import_main

        return import_main
    from .redact import main as redact_main

    return redact_main


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        # Ctrl-C at any moment of any subcommand (its imports included): exit 3, one line, no traceback.
        # eval and weekly stop their runs themselves and say what was kept; this catches the rest.
        try:
            return _command(args[0])(args[1:])
        except KeyboardInterrupt:
            print(cancelled_line(args[0]), file=sys.stderr)
            return EXIT_CANCELLED
    if args and args[0] in ("-h", "--help"):
        print(
            "usage: reviewtui [--cases DIR] [--results-dir DIR]   open the app\n"
            "       reviewtui eval [options]                      run and gate the evaluation (see reviewtui eval --help)\n"
            "       reviewtui check [--cases DIR]                 validate the case set\n"
            "       reviewtui compare A B [options]               is run B better than run A? (see reviewtui compare --help)\n"
            "       reviewtui weekly ACCOUNTS [options]           the weekly run, behind the gate (see reviewtui weekly --help)\n"
            "       reviewtui import --format meta|google|csv FILE... -o OUT   an export to snapshot.json\n"
            "       reviewtui redact SNAPSHOT -o OUT --key KEYFILE  pseudonymise a snapshot into a case"
        )
        return 0
    from ..tui.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    from .args import exit_from_module

    exit_from_module(main())
