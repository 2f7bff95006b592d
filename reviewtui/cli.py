"""Command line: ``reviewtui`` (the app), ``reviewtui eval``, ``check``, ``compare``, ``weekly``, ``import``, ``redact``.

The subcommands import only the headless core; the app's Textual import
happens only when no subcommand is given.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "eval":
        try:  # Ctrl-C while the eval's modules load: no traceback, the eval's exit code for it
            from .eval import main as eval_main
        except KeyboardInterrupt:
            print("cancelled before the run started: nothing was run or written", file=sys.stderr)
            return 3
        return eval_main(args[1:])
    if args and args[0] == "compare":
        from .runs.compare import main as compare_main

        return compare_main(args[1:])
    if args and args[0] == "weekly":
        from .weekly.cli import main as weekly_main

        return weekly_main(args[1:])
    if args and args[0] == "check":
        from .check import main as check_main

        return check_main(args[1:])
    if args and args[0] == "import":
        from .accounts.importer import main as import_main

        return import_main(args[1:])
    if args and args[0] == "redact":
        from .accounts.redact import main as redact_main

        return redact_main(args[1:])
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
    from .tui.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    from .cli_args import exit_from_module

    exit_from_module(main())
