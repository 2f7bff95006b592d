"""A run's folder while it runs, the lock that keeps it to one writer, and its swap into place.

A run of prompt version V whose results go under the folder H (``results/``,
``results/reference/``, ``results/replay/<name>/``: ``identity.py``) never
writes ``H/V/`` while it runs. It writes ``H/.work/V/`` (its case files as
they land, its ``running`` manifest, its batch state) and ``H/.work/V.csv``,
and only when it ends, with its manifest written, does that folder replace
``H/V/`` and that CSV ``H/V.csv`` (two renames). So:

- a run killed at any moment (kill -9, a crash, a full disk, a read-only
  folder) leaves the previous record of V exactly as it was;
- two runs never mix: ``H/.work/V.lock`` is held (``flock``) from before the
  prompt-hash guard reads the record until the swap, and a second writer is
  refused at once with the first one's process id and start time
  (``RunLockedError``); the lock goes with its process, so a killed run
  never leaves a lock behind;
- a run killed between the two renames is finished by the next writer
  (``recover``): the previous folder is put back where it was.

The next run of V removes what a killed run left in ``H/.work/V/`` (its
answers are in the response cache: rerunning pays for nothing twice). The
batch state of V (``H/.work/V.batch.json``) is in no run's folder, so a
batch a killed run created is resumed rather than sent again. Deletes never follow a link: a
symlink is removed as the link (``files.atomic.remove_tree``), and a run refuses to start
(``LinkedFolderError``) when a folder it writes or deletes in lies behind a link below the results
folder it was given (``H/.work``, or ``results/weekly`` itself): the lock, the work folder and the
previous record would all be somewhere else, outside ``results/``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..files.atomic import fsync_folder, remove_tree
from .result_files import ResultsError, RunPaths, now_iso

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: one writer at a time is then the user's care
    fcntl = None  # type: ignore[assignment]

WORK_DIR = ".work"
BATCH_STATE = "batch.json"
_OLD_SUFFIX = ".old"


class RunLockedError(ResultsError):
    """Another process is writing this run's results now; the message names it, ``owner`` says for what
    (the holder's ``FolderLock.owner``, e.g. the accounts folder of a weekly run), when it said."""

    def __init__(self, message: str, owner: str | None = None) -> None:
        super().__init__(message)
        self.owner = owner


class LinkedFolderError(ResultsError):
    """A folder a run would write or delete in is a link: refused before anything is written."""


class FolderLock:
    """An exclusive ``flock`` on a lock file, held until ``release`` (or the process ends).

    The file records who holds it (process id, start time, what it is), so the writer that is
    refused can say whom it waits for.
    """

    def __init__(self, path: Path, what: str, owner: str | None = None) -> None:
        self.path = path
        self.what = what
        self.owner = owner
        self._fd: int | None = None

    def acquire(self, refused: str) -> None:
        """Take the lock or raise RunLockedError (``refused`` says what cannot happen meanwhile)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder, owner = _holder(fd)
                os.close(fd)
                raise RunLockedError(f"{refused}: {holder} holds {self.path}; wait for it to end (or stop it), "
                                     "then run again", owner) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "since": now_iso(), "what": self.what,
                                  "owner": self.owner}).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def _holder(fd: int) -> tuple[str, str | None]:
    """Who holds the lock, in words, and the owner it recorded."""
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        owner = data.get("owner")
        return (f"another {data.get('what') or 'run'} (process {int(data['pid'])}, since {data.get('since')})",
                owner if isinstance(owner, str) else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "another run", None


def links_below(top: Path, folder: Path) -> list[Path]:
    """The links on the way from ``top`` down to ``folder`` (``folder`` included, ``top`` not)."""
    try:
        parts = folder.relative_to(top).parts
    except ValueError:  # not under top: only the folder itself is ours
        return [folder] if folder.is_symlink() else []
    found, path = [], top
    for part in parts:
        path = path / part
        if path.is_symlink():
            found.append(path)
    return found


class StagedFolder:
    """A folder written at ``work_root/<name>`` and swapped in at ``final`` when done, under ``work_root/<name>.lock``.

    A run of the eval (``RunFolder``) and a weekly run (``weekly/run.py``) both write this way.
    ``top`` is the results folder the run was given (default: ``final``'s folder): no folder below it
    on the way to ``work_root`` or ``final`` may be a link. ``owner`` is recorded in the lock file.
    """

    def __init__(self, final: Path, work_root: Path, what: str, *, top: Path | None = None,
                 owner: str | None = None) -> None:
        self.final = final
        self.work_root = work_root
        self.top = final.parent if top is None else top
        self.work = work_root / final.name
        self._old = work_root / f"{final.name}{_OLD_SUFFIX}"
        self.lock = FolderLock(work_root / f"{final.name}.lock", what, owner)

    def check_links(self) -> None:
        """LinkedFolderError when the work folder or the record's folder lies behind a link below ``top``."""
        for folder in (self.work_root, self.final.parent):
            for link in links_below(self.top, folder):
                raise LinkedFolderError(
                    f"{link} is a link (to {os.readlink(link)}): a run writes and deletes only in real folders under "
                    f"{self.top}, never through a link out of it; remove the link (its target is left as it is) "
                    "and run again")

    def acquire(self, refused: str) -> None:
        """Take the lock (RunLockedError when another run holds it) and finish a swap a killed run left half done.

        LinkedFolderError, before anything is written, when a folder on the way is a link."""
        self.check_links()
        self.lock.acquire(refused)
        try:
            self.recover()
        except BaseException:
            self.lock.release()
            raise

    def release(self) -> None:
        self.lock.release()

    def recover(self) -> None:
        if self._old.exists() or self._old.is_symlink():
            if not (self.final.exists() or self.final.is_symlink()):
                os.rename(self._old, self.final)  # killed between the two renames: put it back
            else:
                remove_tree(self._old)

    def start(self) -> None:
        """A fresh, empty work folder; what a killed run left there is removed."""
        remove_tree(self.work)
        self.work.mkdir(parents=True)

    def discard(self) -> None:
        """Drop the work folder: the run is not to take the place of ``final``, which stays as it is."""
        remove_tree(self.work)

    def swap_in(self, *files: tuple[Path, Path]) -> None:
        """The work folder takes the place of ``final``; each (work file, its place) is renamed after it."""
        remove_tree(self._old)
        if self.final.exists() or self.final.is_symlink():
            os.rename(self.final, self._old)
        os.rename(self.work, self.final)
        for source, target in files:
            os.replace(source, target)
        fsync_folder(self.final.parent)
        remove_tree(self._old)


class RunFolder:
    """Where a run of ``final.version`` under ``final.results_dir`` writes, and how it takes the place of the record."""

    def __init__(self, final: RunPaths, *, top: Path | None = None) -> None:
        self.final = final
        self.work = RunPaths(final.results_dir / WORK_DIR, final.version)
        self.staged = StagedFolder(final.run_dir, self.work.results_dir, f"run of {final.version}", top=top)

    def acquire(self) -> None:
        self.staged.acquire(f"cannot write the results of {self.final.version} in {self.final.results_dir}")

    def release(self) -> None:
        self.staged.release()

    @property
    def batch_state(self) -> Path:
        """The batch state of this version (runs/batch.py): beside the work folder, in no run's folder,
        so a run killed at any moment leaves it where the next run looks."""
        return self.work.results_dir / f"{self.final.version}.{BATCH_STATE}"

    def start(self) -> None:
        self.staged.start()
        self.work.cases_dir.mkdir()

    def swap_in(self) -> None:
        """The work folder becomes the record of this version, its CSV the record's CSV."""
        self.staged.swap_in((self.work.csv, self.final.csv))
