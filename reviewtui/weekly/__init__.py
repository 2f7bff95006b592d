"""The weekly run: the assistant on the live accounts, behind the stamp the gate left.

- ``stamp.py``: the stamp check. The manifest of the assistant's run of the
  current prompt version (``results/<version>/manifest.json``) must show a
  complete Claude run that passed the gate with the same prompt text, case
  set and model; otherwise the weekly run refuses, with one reason a line,
  before any backend exists.
- ``accounts.py``: the accounts folder, one snapshot per account, each
  checked before it is sent; the hook where platform exports come in.
- ``run.py``: the run itself (the same runner, client, cache, concurrency and
  retries as ``reviewtui eval``, or with ``--batch`` the eval's Message Batch
  path), figure grounding against each account's own snapshot, the reference
  auditor's second opinion, and the files under ``results/weekly/<date>/``.
- ``reports.py``: the report a person sends, and the index.

``reviewtui weekly ACCOUNTS`` is ``commands/weekly.py``.

Headless: no Textual here; anthropic only through the Claude backend.
"""
