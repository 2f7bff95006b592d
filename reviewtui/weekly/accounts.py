"""The accounts of a weekly run: a folder with one snapshot per account.

An account is either ``ACCOUNTS/<name>/snapshot.json`` or ``ACCOUNTS/<name>.json``
(the snapshot format of docs/cases.md); two accounts with one name (letter
case and Unicode normalization aside) are refused before any call
(``name_clashes``). A hidden file or folder (its name starts with a dot) is
passed over, except a ``.json`` file, which is listed as skipped: ``..json``
would otherwise be an account with no visible name. Each is read and checked before
anything is sent; one that fails is kept as a skipped account with its
reason, so the rest still run and the index says which was skipped and why.

Platform exports: ``EXPORT_READERS`` is the hook. A reader takes a path that is
not a snapshot (an export file or folder) and returns its ``Snapshot``, or None
when the path is not its format; it raises ``SnapshotError`` naming the file,
the place and the fix when the export is broken. A Meta Ads Manager or
Google Ads CSV export (``<name>.csv``) is read by ``reviewtui import``'s own
readers with its defaults; any other file is skipped with the reason that it
is not a snapshot.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..caseset.cases import SNAPSHOT_FILE, Case
from ..caseset.snapshot import Snapshot, SnapshotError, required_field_problems

ExportReader = Callable[[Path], "Snapshot | None"]


def _platform_export(path: Path) -> Snapshot | None:
    from ..accounts.detect import snapshot_from_export

    return snapshot_from_export(path)


# Meta Ads Manager and Google Ads CSV exports are read as they are (reviewtui/accounts/detect.py).
EXPORT_READERS: list[ExportReader] = [_platform_export]


@dataclass
class Account:
    name: str  # the file or folder name: what the report, the index and the files are called
    path: Path
    snapshot: Snapshot | None
    problem: str | None = None  # why it is skipped

    @property
    def account_id(self) -> str | None:
        data = self.snapshot.data if self.snapshot is not None else None
        account = data.get("account") if isinstance(data, dict) else None
        return str(account.get("id")) if isinstance(account, dict) and account.get("id") is not None else None

    @property
    def display_name(self) -> str:
        data = self.snapshot.data if self.snapshot is not None else None
        account = data.get("account") if isinstance(data, dict) else None
        name = account.get("name") if isinstance(account, dict) else None
        return str(name) if name else self.name

    @property
    def currency(self) -> str | None:
        data = self.snapshot.data if self.snapshot is not None else None
        account = data.get("account") if isinstance(data, dict) else None
        code = account.get("currency_code") if isinstance(account, dict) else None
        return str(code).upper() if code else None

    @property
    def period(self) -> str | None:
        data = self.snapshot.data if self.snapshot is not None else None
        period = data.get("period") if isinstance(data, dict) else None
        if not isinstance(period, dict):
            return None
        return f"{period.get('start')} to {period.get('end')} (data as of {period.get('as_of')})"

    def as_case(self) -> Case:
        """The account as the runner and the backends take it: a case with no expectations."""
        return Case(case_id=self.name, dir=self.path.parent, kind="account", source=None, notes=None,
                    must_find=[], may_find=[], must_not_say=[], doc=None,  # type: ignore[arg-type]
                    snapshot=self.snapshot)


def _read(path: Path) -> Snapshot:
    if path.is_file() and path.suffix == ".json":
        return Snapshot.load(path)
    for reader in EXPORT_READERS:
        snapshot = reader(path)
        if snapshot is not None:
            return snapshot
    raise SnapshotError(path, 1, "not an account snapshot (a <name>.json file, or a folder with snapshot.json); "
                                 "convert a platform export to a snapshot first")


def load_account(name: str, path: Path) -> Account:
    try:
        snapshot = _read(path)
    except SnapshotError as exc:
        return Account(name, path, None, f"{exc.path}:{exc.line}: {exc.message}")
    problems = required_field_problems(snapshot.data)
    if problems:
        return Account(name, path, None, f"{path}:1: {problems[0]}; add it to the snapshot"
                       + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""))
    return Account(name, path, snapshot)


def load_accounts(folder: str | Path) -> list[Account]:
    """Every account in ``folder``, by name; unreadable ones carry their ``problem``."""
    folder = Path(folder)
    accounts = []
    for child in sorted(folder.iterdir()):
        if child.name.startswith("."):
            if child.suffix == ".json":
                accounts.append(Account(child.name, child, None, f"{child}: its name starts with a dot (a hidden "
                                        "file); rename it to <name>.json to run it"))
            continue
        if child.is_dir():
            snapshot = child / SNAPSHOT_FILE
            accounts.append(load_account(child.name, snapshot if snapshot.exists() else child))
        else:  # a file that is no snapshot is listed as skipped, never passed over in silence
            accounts.append(load_account(child.stem, child))
    return accounts


def name_clashes(accounts: list[Account]) -> list[str]:
    """One line per name two accounts share (letter case and Unicode normalization aside: the report folders
    would be one on many disks, and the names look the same).

    Each account's files, report and index row go by its name, so two accounts with one name
    (``shop.json`` and ``shop/snapshot.json``) would be paid for twice and reported once.
    """
    by_name: dict[str, list[Account]] = {}
    for account in accounts:
        by_name.setdefault(unicodedata.normalize("NFC", account.name).casefold(), []).append(account)
    return [f"{' and '.join(str(a.path) for a in same)} would all be the account {same[0].name!r}; rename all but one"
            for same in by_name.values() if len(same) > 1]
