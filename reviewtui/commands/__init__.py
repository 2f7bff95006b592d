"""The command line: one thin module per command, each parsing its arguments and calling the core.

``main.py`` is ``reviewtui`` itself (the app, or a subcommand by name); ``args.py`` what every command
shares (parsing without leaving the process, output to a closed pipe, the exit of a ``python -m`` run);
``eval.py``, ``check.py``, ``compare.py``, ``weekly.py``, ``import_.py`` and ``redact.py`` the subcommands.
No core package imports this one (an import-linter contract).
"""
