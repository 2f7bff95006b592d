"""Safe file writes: atomic replacement, and the read-check-write the authoring saves use.

``atomic_write_bytes`` writes a temporary file in the same folder, fsyncs it
and renames it over the target: a crash or a full disk mid-save leaves either
the old file or the new one, never half of each.

``update_file`` is what a save of a file someone else may be editing uses
(expected.yaml, disputed.md; docs/app.md states the guarantees):

- it holds an exclusive advisory lock (``flock``) on the target's folder from
  the read to the rename, so two writers that both use it run one after the
  other and the second one sees the first one's file;
- ``build(current bytes)`` makes the new content (or refuses, by raising);
- right before the rename the file is read and hashed again and its identity
  (device, inode, size, times) compared: a change made meanwhile by a writer
  that takes no lock (an editor, ``sed -i``, git) raises ``FileChangedError``
  and the new content is not written;
- a symlink is written through: the new file replaces the link's target;
- a read-only target (no write bit) is refused, as a text editor does;
- temporary files a killed save left behind for this target are removed.

Text files keep their own line endings (``decode_text`` / ``encode_text``).

``remove_tree`` deletes a file or a folder without ever following a link out
of it (a run's folders under ``results/``).

A folder nothing reads until it is swapped into place whole (a weekly run's
work folder) needs neither: ``staged_write_text`` writes its files plainly,
and ``sync_tree`` makes them all durable at once before the swap. Two
fsyncs a file (the temporary file and its folder), one after the other,
cost a few milliseconds each on an ordinary disk, most of a weekly run's time
per account; many fsyncs in flight at once share the disk's journal
commits.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: saves are still atomic, but not serialised
    fcntl = None  # type: ignore[assignment]

LOCK_TIMEOUT = 10.0


class FileChangedError(Exception):
    """The file changed on disk between the read and the rename of a save; nothing was written."""


class ReadOnlyFileError(PermissionError):
    """The target has no write permission; a save refuses to replace it."""


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


# -- line endings -----------------------------------------------------------------------------


def decode_text(raw: bytes) -> tuple[str, str]:
    """UTF-8 ``raw`` as text with ``\\n`` line ends, and the newline to write it back with.

    A file whose lines mostly end in CRLF is written back with CRLF, any other with LF.
    Raises UnicodeDecodeError.
    """
    text = raw.decode("utf-8")
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"
    return text.replace("\r\n", "\n"), newline


def encode_text(text: str, newline: str = "\n") -> bytes:
    if newline != "\n":
        text = text.replace("\n", newline)
    return text.encode("utf-8")


# -- plain atomic writes ---------------------------------------------------------------------------


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        _unlink(tmp)
        raise
    fsync_folder(target.parent)


def _write_temp(target: Path, data: bytes) -> str:
    """``data`` in a fsynced temporary file beside ``target``, with ``target``'s mode (0644 if new)."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp_name, mode)
    except BaseException:
        _unlink(tmp_name)
        raise
    return tmp_name


def _unlink(name: str | Path) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def staged_write_text(path: str | os.PathLike[str], text: str) -> None:
    """A file of a folder nothing reads before it is swapped in: written whole, not yet durable (``sync_tree``)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


SYNC_THREADS = 16


def sync_tree(folder: Path) -> None:
    """Make every file and folder under ``folder`` durable (fsync), many at once; OSError if a file cannot be."""
    files, folders = [], [folder]
    for root, dirs, names in os.walk(folder):
        files += [Path(root) / name for name in names]
        folders += [Path(root) / name for name in dirs]

    def sync_file(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    with ThreadPoolExecutor(max_workers=SYNC_THREADS, thread_name_prefix="reviewtui-sync") as pool:
        list(pool.map(sync_file, files))  # raises the first OSError
        list(pool.map(fsync_folder, folders))


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: some file systems refuse)."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove ``path`` (a file, a folder and what it holds, or a link), never following a link.

    A symlink is removed as the link, wherever it points; links inside a folder are removed as
    links (``shutil.rmtree`` does not follow them). Nothing outside ``path`` is touched.
    """
    target = Path(path)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        _unlink(target)
    elif target.is_dir():
        shutil.rmtree(target)


# -- read-check-write ---------------------------------------------------------------------------


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a save of ``path`` replaces: a symlink's target (followed to the end), else ``path``."""
    return Path(os.path.realpath(path))


@contextmanager
def folder_lock(folder: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` (no lock file is left behind). Waits up to ``timeout`` s."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{folder}: another save in this folder has held its lock for {timeout:.0f} s; try again"
                    ) from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def remove_stale_temps(target: Path) -> list[Path]:
    """Delete the temporary files of earlier saves of ``target`` (a killed save leaves one).

    Called with the folder lock held: every save of ``target`` takes that lock, so no
    temporary file of ``target`` belongs to a save still running.
    """
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.[A-Za-z0-9_]+\.tmp$")
    removed: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if pattern.match(name):
            _unlink(target.parent / name)
            removed.append(target.parent / name)
    return removed


def refuse_read_only(target: Path, shown: str | os.PathLike[str] | None = None) -> None:
    try:
        st = target.stat()
    except FileNotFoundError:
        return
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        name = shown or target
        raise ReadOnlyFileError(
            f"{name} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); make it writable "
            f"(chmod u+w {name}) to save it"
        )


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read(target: Path) -> tuple[bytes | None, tuple[int, ...] | None]:
    """The file's bytes and identity, read through one descriptor (None, None when absent)."""
    try:
        with open(target, "rb") as fh:
            ident = _identity(os.fstat(fh.fileno()))
            return fh.read(), ident
    except FileNotFoundError:
        return None, None


def _current_identity(target: Path) -> tuple[int, ...] | None:
    try:
        return _identity(os.stat(target))
    except FileNotFoundError:
        return None


def update_file(
    path: str | os.PathLike[str],
    build: Callable[[bytes | None], bytes],
    *,
    lock_timeout: float = LOCK_TIMEOUT,
) -> bytes:
    """Replace the file at ``path`` with ``build(its current bytes, or None if absent)``; returns them.

    See the module docstring for the guarantees. ``build`` may raise to refuse the write.
    Raises FileChangedError when the file changed between the read and the rename.
    """
    target = resolve_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(target.parent, lock_timeout):
        remove_stale_temps(target)
        refuse_read_only(target, path)
        before, _ = _read(target)
        data = build(before)
        tmp = _write_temp(target, data)
        try:
            # The last look: what is on disk now must still be what ``build`` saw.
            now, ident = _read(target)
            if sha256(now) != sha256(before) or _current_identity(target) != ident:
                raise FileChangedError(f"{path} changed on disk during the save; nothing was written")
            os.replace(tmp, target)
        except BaseException:
            _unlink(tmp)
            raise
        fsync_folder(target.parent)
    return data


def create_numbered(path: str | os.PathLike[str], data: bytes, limit: int = 1000) -> Path:
    """Write ``data`` as a new file: ``path``, or ``path-2``, ``path-3``, ... (the first name not taken).

    An existing file is never replaced: the name is claimed with a hard link, which fails
    atomically when the name is taken.
    """
    path = Path(path)
    with folder_lock(path.parent):
        remove_stale_temps(path)
        tmp = _write_temp(path, data)
        try:
            for n in range(1, limit + 1):
                candidate = path if n == 1 else path.with_name(f"{path.name}-{n}")
                try:
                    _claim(tmp, candidate, data)
                except FileExistsError:
                    continue
                fsync_folder(path.parent)
                return candidate
        finally:
            _unlink(tmp)
    raise FileExistsError(f"{path} and {limit - 1} numbered copies of it exist; merge and delete some")


def _claim(tmp: str, target: Path, data: bytes) -> None:
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: exclusive create (not atomic, but never overwrites).
        with open(target, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
